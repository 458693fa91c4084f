/** Preformatted text cut to its first 25 lines, with an Expand/Collapse toggle. */
import { useState } from "react";
import { visibleText } from "../../components/json-model.js";

export const TRUNCATE_LINES = 25;

export function TruncatedText({ text: raw, className }: { text: string; className: string }) {
  const [expanded, setExpanded] = useState(false);
  const text = visibleText(raw);
  const lines = text.split("\n");
  const long = lines.length > TRUNCATE_LINES;
  return (
    <div className={className}>
      <pre>{long && !expanded ? `${lines.slice(0, TRUNCATE_LINES).join("\n")}\n…` : text === "" ? '""' : text}</pre>
      {long ? (
        <button type="button" className="mini-btn" onClick={() => setExpanded(!expanded)}>
          {expanded ? "Collapse" : `Expand (${lines.length} lines)`}
        </button>
      ) : null}
    </div>
  );
}
