/**
 * One slice item as a tree: type icon, key, type badge, inline previews, per-node
 * expand/collapse and expand/collapse children, long strings truncated, markdown with a
 * rendered/raw toggle. Text is always rendered as text; only sanitised markdown HTML is
 * inserted as HTML.
 */
import { memo, useState } from "react";
import type { ReactNode } from "react";
import { arrayPreview, asMarkdown, containerPaths, entriesOf, isPrimitiveArray, kindOf, primitiveText, visibleText } from "../../components/json-model.js";
import type { JsonKind } from "../../components/json-model.js";
import { MarkdownBlock } from "./MarkdownBlock.js";
import { TRUNCATE_LINES, TruncatedText } from "./TruncatedText.js";
import type { TreeState } from "./tree-state.js";

const KIND_GLYPH: Record<JsonKind, string> = {
  string: "T",
  number: "#",
  boolean: "◐",
  null: "∅",
  array: "≡",
  object: "{}",
  markdown: "M↓",
  truncated: "…",
};

function Highlight({ text, needle }: { text: string; needle: string }): ReactNode {
  if (needle === "") return text;
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  if (at === -1) return text;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + needle.length)}</mark>
      {text.slice(at + needle.length)}
    </>
  );
}

export interface JsonTreeProps {
  readonly value: unknown;
  /** Path prefix of this item's nodes (`item-3`). */
  readonly path: string;
  readonly label: string;
  readonly tree: TreeState;
  /** The object filter's query, highlighted in keys. */
  readonly keyNeedle: string;
  readonly onPopOut: (title: string, html: string) => void;
}

export const JsonTree = memo(function JsonTree(props: JsonTreeProps) {
  return (
    <div className="json-tree" role="tree">
      <JsonNode {...props} depth={0} />
    </div>
  );
});

function JsonNode({ value, path, label, tree, keyNeedle, onPopOut, depth }: JsonTreeProps & { depth: number }) {
  const kind = kindOf(value);
  const container = kind === "object" || kind === "array";
  const open = container && tree.isOpen(path, depth);
  const entries = container ? entriesOf(value) : [];
  const count = Array.isArray(value) ? value.length : entries.length;
  const markdown = kind === "markdown" ? asMarkdown(value) : null;
  const badge = kind === "array" ? `array (${count})` : kind === "object" ? `object (${count})` : typeof value === "bigint" ? "integer" : kind;

  return (
    <div className={`json-node kind-${kind}`} role="treeitem" aria-expanded={container ? open : undefined} aria-selected={false}>
      <div className="json-node-header">
        <span className={`json-glyph glyph-${kind}`} aria-hidden="true">
          {KIND_GLYPH[kind]}
        </span>
        {container ? (
          <button type="button" className="json-key json-key-button" onClick={() => tree.set(path, !open)} aria-label={`${open ? "Collapse" : "Expand"} ${label}`}>
            <Highlight text={visibleText(label)} needle={keyNeedle} />
          </button>
        ) : (
          <span className="json-key">
            <Highlight text={visibleText(label)} needle={keyNeedle} />
          </span>
        )}
        <span className="json-badge">{badge}</span>
        {kind === "array" && !open ? <span className="json-preview">{visibleText(arrayPreview(value as unknown[]))}</span> : null}
        {markdown !== null ? <span className="json-preview">{visibleText(markdown.text.replace(/\s+/g, " ").slice(0, 64))}</span> : null}
        {container && count > 0 ? (
          <span className="json-node-actions">
            <button type="button" className="mini-btn" onClick={() => tree.set(path, !open)}>
              {open ? "Collapse" : "Expand"}
            </button>
            <button type="button" className="mini-btn mini-btn-quiet" onClick={() => tree.setMany([path, ...containerPaths(value, path)], true)}>
              Expand children
            </button>
            <button type="button" className="mini-btn mini-btn-quiet" onClick={() => tree.setMany(containerPaths(value, path), false)}>
              Collapse children
            </button>
          </span>
        ) : null}
      </div>
      {container ? (
        open ? (
          <div className="json-children" role="group">
            {count === 0 ? (
              <span className="muted small">(empty)</span>
            ) : kind === "array" && isPrimitiveArray(value as unknown[]) ? (
              <div className="json-chips">
                {entries.map(([childLabel, child]) => (
                  <Chip key={childLabel} label={childLabel} value={child} />
                ))}
              </div>
            ) : (
              entries.map(([childLabel, child]) => (
                <JsonNode key={childLabel} value={child} path={`${path}.${childLabel}`} label={childLabel} tree={tree} keyNeedle={keyNeedle} onPopOut={onPopOut} depth={depth + 1} />
              ))
            )}
          </div>
        ) : null
      ) : markdown !== null ? (
        <MarkdownBlock markdown={markdown} title={label} onPopOut={onPopOut} />
      ) : kind === "truncated" ? (
        <div className="json-leaf muted">(nested too deep to show)</div>
      ) : (
        <LeafText value={value} kind={kind} />
      )}
    </div>
  );
}

function Chip({ label, value }: { label: string; value: unknown }) {
  const text = visibleText(primitiveText(value));
  const [expanded, setExpanded] = useState(false);
  const lines = text.split("\n");
  const long = lines.length > TRUNCATE_LINES;
  return (
    <span className={`json-chip kind-${kindOf(value)}`} title={label}>
      {long && !expanded ? lines.slice(0, TRUNCATE_LINES).join("\n") : text}
      {long ? (
        <button type="button" className="mini-btn" onClick={() => setExpanded(!expanded)}>
          {expanded ? "Collapse" : "Expand"}
        </button>
      ) : null}
    </span>
  );
}

function LeafText({ value, kind }: { value: unknown; kind: JsonKind }) {
  const text = primitiveText(value);
  return kind === "string" ? <TruncatedText text={text} className="json-leaf leaf-string" /> : (
    <div className={`json-leaf leaf-${kind}`}>
      <pre>{text}</pre>
    </div>
  );
}
