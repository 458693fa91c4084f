/**
 * A group of search hits (one turn's events, a snapshot's files, a bundle's logs…): each
 * hit a link to where it is, with where it is and a snippet whose match is marked. The
 * search view and the bundle hits draw their groups with it.
 */
import { Link } from "./Link.js";
import { plural } from "./format.js";
import type { ViewPatch } from "../state/view-state.js";
import { visibleText } from "./json-model.js";

/** `text` with the first match of `query` (a substring, any case; or a regular expression) marked. */
export function Snippet({ text, query, regex }: { text: string; query: string; regex: boolean }) {
  let at = -1;
  let length = 0;
  if (regex) {
    try {
      const match = new RegExp(query).exec(text);
      if (match !== null) {
        at = match.index;
        length = match[0].length;
      }
    } catch {
      // shown unmarked
    }
  } else {
    at = text.toLowerCase().indexOf(query.toLowerCase());
    length = query.length;
  }
  if (at === -1 || length === 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + length)}</mark>
      {text.slice(at + length)}
    </>
  );
}

export interface HitItem {
  readonly to: ViewPatch;
  /** Where the hit is (item and JSON path, file and line, log line…). */
  readonly where: string;
  readonly snippet: string;
}

export interface HitGroupProps {
  readonly title: string;
  readonly items: readonly HitItem[];
  readonly query: string;
  readonly regex: boolean;
  readonly testId?: string | undefined;
  readonly hitTestId?: string;
  /** What the group holds (`data-kind`), for tests and styles. */
  readonly kind?: string;
}

export function HitGroup({ title, items, query, regex, testId, hitTestId = "search-hit", kind }: HitGroupProps) {
  if (items.length === 0) return null;
  return (
    <section className="card hit-group" data-testid={testId} data-kind={kind} aria-label={title}>
      <h3>
        {title} <span className="muted small">{plural(items.length, "match", "matches")}</span>
      </h3>
      <ul className="hit-list">
        {items.map((item, index) => (
          <li key={index}>
            <Link to={item.to} className="hit" data-testid={hitTestId}>
              <span className="hit-where mono">{item.where}</span>
              <span className="hit-snippet mono">
                <Snippet text={visibleText(item.snippet)} query={query} regex={regex} />
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
