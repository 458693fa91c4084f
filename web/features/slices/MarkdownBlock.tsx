/** A markdown string: rendered (sanitised again here) or raw, with a pop-out. */
import { useMemo, useState } from "react";
import type { MarkdownValue } from "./json-model.js";
import { sanitizeHtml } from "./sanitize.js";

const RAW_TRUNCATE_LINES = 25;

export function MarkdownBlock({ markdown, title, onPopOut }: { markdown: MarkdownValue; title: string; onPopOut: (title: string, html: string) => void }) {
  const [raw, setRaw] = useState(false);
  const [expanded, setExpanded] = useState(false);
  const html = useMemo(() => sanitizeHtml(markdown.html), [markdown.html]);
  const lines = markdown.text.split("\n");
  const long = lines.length > RAW_TRUNCATE_LINES;
  return (
    <div className="markdown-block">
      <div className="segmented" role="group" aria-label="Markdown display">
        <button type="button" className={raw ? "" : "is-on"} aria-pressed={!raw} onClick={() => setRaw(false)}>
          Rendered HTML
        </button>
        <button type="button" className={raw ? "is-on" : ""} aria-pressed={raw} onClick={() => setRaw(true)}>
          Raw Markdown
        </button>
        <button type="button" className="mini-btn mini-btn-quiet" onClick={() => onPopOut(title, html)}>
          Pop out
        </button>
      </div>
      {raw ? (
        <div className="json-leaf leaf-string">
          <pre>{long && !expanded ? `${lines.slice(0, RAW_TRUNCATE_LINES).join("\n")}\n…` : markdown.text}</pre>
          {long ? (
            <button type="button" className="mini-btn" onClick={() => setExpanded(!expanded)}>
              {expanded ? "Collapse" : `Expand (${lines.length} lines)`}
            </button>
          ) : null}
        </div>
      ) : (
        // Sanitised twice (server: no raw HTML, safe links; here: DOMPurify), never executed.
        <div className="markdown-body" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </div>
  );
}
