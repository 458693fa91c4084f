/**
 * A path cut in the middle when it does not fit: its directories give way (an ellipsis) before
 * its file name does, so nine `weakincentives/…/name.py` rows still say which file each is.
 * Cut in CSS (`.cut-path`), so it takes whatever width the row has. Text that is not one path
 * (a command, a pattern with spaces) is cut at its end as usual. `value` is drawn as given
 * (agent text: the caller makes its control characters visible first).
 */

/** `value` as its directories (with no trailing slash) and its last segment (with its leading slash); null when it is not one path. */
export function pathParts(value: string): { head: string; tail: string } | null {
  if (/\s/.test(value)) return null;
  const slash = value.replace(/\/+$/, "").lastIndexOf("/");
  if (slash <= 0) return null;
  return { head: value.slice(0, slash), tail: value.slice(slash) };
}

export function CutPath({ value, className }: { value: string; className?: string }) {
  const parts = pathParts(value);
  const classes = className === undefined ? "cut-path" : `cut-path ${className}`;
  if (parts === null) return <span className={`${classes} is-whole`}>{value}</span>;
  return (
    <span className={classes}>
      <span className="cut-head">{parts.head}</span>
      <span className="cut-tail">{parts.tail}</span>
    </span>
  );
}
