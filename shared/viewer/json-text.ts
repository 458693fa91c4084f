/**
 * Indented JSON text of session values for people to read and diff (slice diffs): big
 * integers keep their exact digits, non-finite floats read `NaN` / `Infinity` as Python
 * wrote them, and nesting deeper than the cap is cut with a marker instead of overflowing
 * the stack. Not meant to be parsed back (the API's strict JSON is for that).
 */
import type { JsonValue } from "../session/json-value.js";

/** Deepest nesting written out; deeper values become `"…"`. */
export const MAX_PRETTY_DEPTH = 64;

/** Indented (2 spaces), key order as written. */
export function prettyJson(value: JsonValue, maxDepth = MAX_PRETTY_DEPTH): string {
  const parts: string[] = [];
  write(value, "", 0, maxDepth, parts);
  return parts.join("");
}

function write(value: JsonValue, indent: string, depth: number, maxDepth: number, parts: string[]): void {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    parts.push(JSON.stringify(value));
  } else if (typeof value === "number") {
    parts.push(Number.isFinite(value) ? JSON.stringify(value) : String(value));
  } else if (typeof value === "bigint") {
    parts.push(value.toString());
  } else if (depth >= maxDepth) {
    parts.push('"…"');
  } else if (Array.isArray(value)) {
    if (value.length === 0) {
      parts.push("[]");
      return;
    }
    const inner = `${indent}  `;
    parts.push("[\n");
    value.forEach((element, index) => {
      parts.push(inner);
      write(element, inner, depth + 1, maxDepth, parts);
      parts.push(index < value.length - 1 ? ",\n" : "\n");
    });
    parts.push(`${indent}]`);
  } else {
    const keys = Object.keys(value);
    if (keys.length === 0) {
      parts.push("{}");
      return;
    }
    const inner = `${indent}  `;
    parts.push("{\n");
    keys.forEach((key, index) => {
      parts.push(inner, JSON.stringify(key), ": ");
      write(value[key] ?? null, inner, depth + 1, maxDepth, parts);
      parts.push(index < keys.length - 1 ? ",\n" : "\n");
    });
    parts.push(`${indent}}`);
  }
}
