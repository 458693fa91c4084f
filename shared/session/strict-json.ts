/**
 * Strict JSON for HTTP responses: valid RFC 8259 text for any value a session file holds,
 * without ever throwing.
 *
 * - `bigint` → its exact digits (a JSON number; the client decides how to read it).
 * - `NaN`, `Infinity`, `-Infinity` → `{"__float__": "NaN" | "Infinity" | "-Infinity"}`.
 * - Lone surrogates → `\udXXX` escapes (valid JSON text; nothing is replaced by U+FFFD).
 * - Nesting beyond `maxDepth` → `{"__truncated__": "max-depth"}`; a cycle →
 *   `{"__truncated__": "cycle"}`.
 * - `undefined`, functions and symbols follow JSON.stringify: dropped from objects, `null`
 *   in arrays. Objects with `toJSON()` are serialised through it.
 */
import { writeJson, type JsonDialect } from "./json-writer.js";
import { DEFAULT_MAX_JSON_DEPTH } from "./python-json-parse.js";

/** Key of the marker object standing for a non-finite float in strict JSON. */
export const FLOAT_MARKER_KEY = "__float__";
/** Key of the marker object standing for a value cut off by depth or a cycle. */
export const TRUNCATED_MARKER_KEY = "__truncated__";

export interface StrictJsonOptions {
  /** Containers nested deeper than this are replaced by a truncation marker (default 1000). */
  maxDepth?: number;
}

/** Serialises `value` as strict JSON text (see the module comment for the mapping). */
export function toStrictJson(value: unknown, options: StrictJsonOptions = {}): string {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  // Most values need no mapping: check cheaply, then let the native serialiser do the work.
  if (isNativeSafe(value, 0, maxDepth, new Set())) return JSON.stringify(value) ?? "null";
  const parts: string[] = [];
  if (!writeJson(parts, value, STRICT_DIALECT, maxDepth)) return "null";
  return parts.join("");
}

/** A float marker object for a non-finite number (what the web app renders as NaN/∞). */
export function floatMarker(value: number): { [FLOAT_MARKER_KEY]: "NaN" | "Infinity" | "-Infinity" } {
  return { [FLOAT_MARKER_KEY]: Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity" };
}

function isNativeSafe(value: unknown, depth: number, maxDepth: number, ancestors: Set<object>): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (depth >= maxDepth || ancestors.has(value)) return false;
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
      ancestors.add(value);
      let safe = true;
      if (Array.isArray(value)) {
        for (const element of value) if (!(safe = isNativeSafe(element, depth + 1, maxDepth, ancestors))) break;
      } else {
        for (const key of Object.keys(value)) {
          const member = (value as Record<string, unknown>)[key];
          if (!(safe = isNativeSafe(member, depth + 1, maxDepth, ancestors))) break;
        }
      }
      ancestors.delete(value);
      return safe;
    }
    default:
      return false;
  }
}

/** Strict JSON: native strings and numbers, marker objects for non-finite floats and cut-off containers. */
const STRICT_DIALECT: JsonDialect = {
  itemSeparator: ",",
  keySeparator: ":",
  string: (value) => JSON.stringify(value),
  number: (value) => (Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(floatMarker(value))),
  cutOff: (reason) => JSON.stringify({ [TRUNCATED_MARKER_KEY]: reason }),
  toJsonThrew: () => null, // a throwing toJSON must not break the response
};

/**
 * An array that {@link strictJsonChunks} writes item by item, producing each item as the
 * writer reaches it and dropping it once written (a whole slice with its markdown rendered
 * is then never built at once). Elsewhere it serialises through `toJSON` as a plain array.
 */
export class LazyJsonArray {
  constructor(
    readonly length: number,
    readonly at: (index: number) => unknown,
  ) {}

  toJSON(): unknown[] {
    return Array.from({ length: this.length }, (_, index) => this.at(index));
  }
}

export interface StrictJsonChunkOptions extends StrictJsonOptions {
  /** Characters gathered before a chunk is yielded (default 64 Ki). */
  chunkChars?: number;
  /**
   * Containers down to this depth are written member by member; anything deeper is one
   * `toStrictJson` call (the native serialiser when it can). Default 3: a session line's
   * items (line → slices → slice → items) or a slice page's items (page → items).
   */
  streamDepth?: number;
}

/**
 * The text {@link toStrictJson} gives, as chunks of about `chunkChars`, built as they are
 * pulled: a big answer (a 20 MB slice, a whole session line) is sent with the memory of a
 * chunk and an item, not of the whole text and its copies. Cycles are found within each
 * item; one running through the streamed levels ends at the depth cap instead.
 */
export function* strictJsonChunks(value: unknown, options: StrictJsonChunkOptions = {}): Generator<string, void, undefined> {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const chunkChars = options.chunkChars ?? 64 * 1024;
  const streamDepth = Math.min(options.streamDepth ?? 3, maxDepth);
  let parts: string[] = [];
  let size = 0;
  for (const part of streamedParts(value, 0, streamDepth, maxDepth)) {
    parts.push(part);
    size += part.length;
    if (size >= chunkChars) {
      yield parts.join("");
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield parts.join("");
}

/** Whether a value has a JSON form (JSON.stringify drops the others from objects). */
function hasJsonForm(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

function* streamedParts(value: unknown, depth: number, streamDepth: number, maxDepth: number): Generator<string, void, undefined> {
  if (value instanceof LazyJsonArray) {
    if (depth >= maxDepth) {
      yield JSON.stringify({ [TRUNCATED_MARKER_KEY]: "max-depth" });
      return;
    }
    yield "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) yield ",";
      const element = value.at(index);
      yield* hasJsonForm(element) ? streamedParts(element, depth + 1, streamDepth, maxDepth) : ["null"];
    }
    yield "]";
    return;
  }
  const container = typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== "function";
  if (!container || depth >= streamDepth) {
    yield toStrictJson(value, { maxDepth: maxDepth - depth });
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) yield ",";
      const element: unknown = value[index];
      yield* hasJsonForm(element) ? streamedParts(element, depth + 1, streamDepth, maxDepth) : ["null"];
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (!hasJsonForm(member)) continue;
    yield `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    yield* streamedParts(member, depth + 1, streamDepth, maxDepth);
  }
  yield "}";
}
