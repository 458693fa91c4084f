/**
 * Markdown in agent data: which strings look like markdown (WINK's heuristic) and their
 * rendering as safe HTML.
 *
 * Safety does not depend on the web app: raw HTML in the source is escaped (`html: false`),
 * and links and images keep only `http:`, `https:`, `mailto:` and scheme-less (relative or
 * `#anchor`) targets, so the HTML holds no script, no event handler and no `javascript:` or
 * `data:` URL whatever the input.
 */
import MarkdownIt from "markdown-it";
import type { MarkdownIt as MarkdownRenderer } from "markdown-it";
import type { JsonValue } from "../session/json-value.js";
import { isJsonObject } from "../session/json-value.js";

/** Key of the wrapper object that stands for a markdown string in slice items. */
export const MARKDOWN_KEY = "__markdown__";

/** Longest string rendered (longer ones are left as plain strings: rendering would stall). */
export const MAX_MARKDOWN_CHARS = 256 * 1024;

const MIN_MARKDOWN_CHARS = 16;
// WINK's link (`\[.+?\]\(.+?\)`) and bold (`\*\*[^\s].+?\*\*`) patterns backtrack
// quadratically on long lines in V8; they are checked line by line in linear time instead.
const MARKDOWN_PATTERNS: readonly RegExp[] = [/(^|\n)#{1,6}\s/, /(^|\n)[-*+]\s/, /(^|\n)\d+\.\s/, /`{1,3}[^`]+`{1,3}/, /\n\n/];

/**
 * WINK's heuristic: at least 16 characters once trimmed, and a heading, list item, code
 * span, link, blank line or bold text.
 */
export function looksLikeMarkdown(text: string): boolean {
  if (text.length > MAX_MARKDOWN_CHARS || text.trim().length < MIN_MARKDOWN_CHARS) return false;
  return MARKDOWN_PATTERNS.some((pattern) => pattern.test(text)) || text.split("\n").some((line) => hasLink(line) || hasBold(line));
}

/** `[text](target)` on one line: a `[`, later `](` with text between, then `)` after a character. */
function hasLink(line: string): boolean {
  const open = line.indexOf("[");
  if (open === -1) return false;
  const middle = line.indexOf("](", open + 2);
  return middle !== -1 && line.indexOf(")", middle + 3) !== -1;
}

/** `**x…**` on one line: an opening `**` before a non-space, and a closing `**` after one more character. */
function hasBold(line: string): boolean {
  for (let open = line.indexOf("**"); open !== -1; open = line.indexOf("**", open + 1)) {
    const next = line[open + 2];
    if (next !== undefined && !/\s/.test(next)) return line.indexOf("**", open + 4) !== -1;
  }
  return false;
}

const SAFE_SCHEME = /^(?:https?|mailto):/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** True for link targets we let through: http(s), mailto, and relative or anchor links. */
export function isSafeLink(url: string): boolean {
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  if (SAFE_SCHEME.test(compact)) return true;
  return !ANY_SCHEME.test(compact) && !compact.startsWith("//") && !compact.startsWith("\\");
}

let renderer: MarkdownRenderer | null = null;

function markdownRenderer(): MarkdownRenderer {
  if (renderer !== null) return renderer;
  const md = new MarkdownIt("commonmark", { html: false, linkify: true });
  md.enable("linkify");
  md.validateLink = isSafeLink;
  renderer = md;
  return md;
}

/** Renders markdown as HTML with raw HTML escaped and unsafe link schemes dropped. */
export function renderMarkdown(text: string): string {
  return markdownRenderer().render(text);
}

/**
 * The value with every markdown-looking string (at any depth) replaced by
 * `{"__markdown__": {"text", "html"}}`, as WINK's `/api/slices` does. Objects that already
 * hold a `__markdown__` key are returned unchanged; other values are copied, never mutated.
 */
export function enrichMarkdown(value: JsonValue): JsonValue {
  if (typeof value === "string") {
    return looksLikeMarkdown(value) ? { [MARKDOWN_KEY]: { text: value, html: renderMarkdown(value) } } : value;
  }
  if (Array.isArray(value)) return value.map(enrichMarkdown);
  if (!isJsonObject(value)) return value;
  if (Object.prototype.hasOwnProperty.call(value, MARKDOWN_KEY)) return value;
  const copy: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    // defineProperty: a data key named "__proto__" stays data and never sets the prototype.
    Object.defineProperty(copy, key, { value: enrichMarkdown(value[key] ?? null), writable: true, enumerable: true, configurable: true });
  }
  return copy;
}
