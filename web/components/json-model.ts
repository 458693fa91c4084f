/**
 * How slice values are shown: their kind (markdown wrappers, float and truncation markers
 * as the API sends them), previews, item search and the object filter. Pure functions.
 */
import { toStrictJson } from "../../shared/session/browser.js";

export type JsonKind = "string" | "number" | "boolean" | "null" | "array" | "object" | "markdown" | "truncated";

export interface MarkdownValue {
  readonly text: string;
  readonly html: string;
}

const MARKDOWN_KEY = "__markdown__";
const FLOAT_KEY = "__float__";
const TRUNCATED_KEY = "__truncated__";

function onlyKey(value: object, key: string): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === key;
}

/** The markdown wrapper's text and (server-sanitised) HTML, or null. */
export function asMarkdown(value: unknown): MarkdownValue | null {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !onlyKey(value, MARKDOWN_KEY)) return null;
  const inner = (value as Record<string, unknown>)[MARKDOWN_KEY];
  if (typeof inner !== "object" || inner === null) return null;
  const { text, html } = inner as { text?: unknown; html?: unknown };
  return typeof text === "string" && typeof html === "string" ? { text, html } : null;
}

/** `NaN`, `Infinity` or `-Infinity` for a float marker, else null. */
export function asFloatMarker(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !onlyKey(value, FLOAT_KEY)) return null;
  const inner = (value as Record<string, unknown>)[FLOAT_KEY];
  return inner === "NaN" || inner === "Infinity" || inner === "-Infinity" ? inner : null;
}

export function kindOf(value: unknown): JsonKind {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    default:
      break;
  }
  if (Array.isArray(value)) return "array";
  if (asMarkdown(value) !== null) return "markdown";
  if (asFloatMarker(value) !== null) return "number";
  if (onlyKey(value as object, TRUNCATED_KEY)) return "truncated";
  return "object";
}

/** A primitive as text: bigints exactly, non-finite floats by name. */
export function primitiveText(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  return asFloatMarker(value) ?? "";
}

// C0 controls (but tab and newline), DEL, C1 controls, and the invisible bidirectional
// formatting characters that can make text read differently from what it is.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as shown in the viewer: control and bidi-override characters made visible (`␛`,
 * `⟨U+202E⟩`), so agent data cannot reorder or hide what the user reads.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return "\u2421";
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
  });
}

/** Children of a container as `[label, value]` (arrays keep their original indices; pruned holes are skipped). */
export function entriesOf(value: unknown): [string, unknown][] {
  if (Array.isArray(value)) {
    const result: [string, unknown][] = [];
    value.forEach((element, index) => {
      if (element !== undefined) result.push([`[${index}]`, element]);
    });
    return result;
  }
  if (typeof value === "object" && value !== null) return Object.entries(value);
  return [];
}

/** A short inline preview of an array (first 6 elements, 24 characters each). */
export function arrayPreview(value: readonly unknown[]): string {
  const parts = value.slice(0, 6).map((element) => {
    const markdown = asMarkdown(element);
    const kind = kindOf(element);
    let text: string;
    if (markdown !== null) text = markdown.text;
    else if (kind === "object") text = `{${Object.keys(element as object).length} keys}`;
    else if (kind === "array") text = `[${(element as unknown[]).length}]`;
    else text = primitiveText(element);
    text = text.replace(/\s+/g, " ");
    return text.length > 24 ? `${text.slice(0, 23)}…` : text;
  });
  const more = value.length > 6 ? `, … +${value.length - 6} more` : "";
  return `[${parts.join(", ")}${more}]`;
}

/** True when every element is a primitive (shown as compact chips). */
export function isPrimitiveArray(value: readonly unknown[]): boolean {
  return value.length > 0 && value.every((element) => element === null || ["string", "number", "bigint", "boolean"].includes(typeof element));
}

/** Item search: case-insensitive substring of the item's JSON (as the original did). */
export function itemMatches(item: unknown, needle: string): boolean {
  if (needle === "") return true;
  return toStrictJson(item).toLowerCase().includes(needle.toLowerCase());
}

/**
 * The object filter: keeps properties whose key (at any depth) contains `needle`, with
 * their whole value, and the containers leading to them; everything else is pruned.
 * Returns undefined when nothing matches. Array elements keep their indices (holes).
 */
export function pruneByKey(value: unknown, needle: string): unknown {
  const lower = needle.toLowerCase();
  const visit = (node: unknown, depth: number): unknown => {
    if (depth > 200 || typeof node !== "object" || node === null || asMarkdown(node) !== null) return undefined;
    if (Array.isArray(node)) {
      const kept: unknown[] = new Array(node.length);
      let any = false;
      node.forEach((element, index) => {
        const pruned = visit(element, depth + 1);
        if (pruned !== undefined) {
          kept[index] = pruned;
          any = true;
        }
      });
      return any ? kept : undefined;
    }
    const kept: Record<string, unknown> = {};
    let any = false;
    for (const [key, child] of Object.entries(node)) {
      if (key.toLowerCase().includes(lower)) {
        Object.defineProperty(kept, key, { value: child, enumerable: true, writable: true, configurable: true });
        any = true;
        continue;
      }
      const pruned = visit(child, depth + 1);
      if (pruned !== undefined) {
        Object.defineProperty(kept, key, { value: pruned, enumerable: true, writable: true, configurable: true });
        any = true;
      }
    }
    return any ? kept : undefined;
  };
  return lower === "" ? value : visit(value, 0);
}

/** Every container path below `path` in `value` (for "expand/collapse children"). */
export function containerPaths(value: unknown, path: string, out: string[] = [], depth = 0): string[] {
  if (depth > 200) return out;
  for (const [label, child] of entriesOf(value)) {
    const kind = kindOf(child);
    if (kind === "object" || kind === "array") {
      const childPath = `${path}.${label}`;
      out.push(childPath);
      containerPaths(child, childPath, out, depth + 1);
    }
  }
  return out;
}
