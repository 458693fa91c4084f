/** A markdown string: rendered (sanitised again here) or raw, with a pop-out. */
import { useMemo, useState } from "react";
import type { MarkdownValue } from "../../components/json-model.js";
import { sanitizeHtml } from "./sanitize.js";
import { TruncatedText } from "./TruncatedText.js";

export function MarkdownBlock({ markdown, title, onPopOut }: { markdown: MarkdownValue; title: string; onPopOut: (title: string, html: string) => void }) {
  const [raw, setRaw] = useState(false);
  const html = useMemo(() => sanitizeHtml(markdown.html), [markdown.html]);
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
        <TruncatedText text={markdown.text} className="json-leaf leaf-string" />
      ) : (
        // Sanitised twice (server: no raw HTML, safe links; here: DOMPurify), never executed.
        <div className="markdown-body" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </div>
  );
}
