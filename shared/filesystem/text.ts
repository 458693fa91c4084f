/**
 * Text handling shared by every backend: strict UTF-8 and line pagination. Browser-safe.
 *
 * Lines are Python's `str.splitlines()` lines, as WINK counts them: a line ends at "\n",
 * "\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028" or "\u2029", and a
 * final line break does not start another line — so "a\nb\n" has 2 lines, "" has 0 and
 * "a\rb\u2028c\n" has 3.
 */
import { InvalidArgumentError } from "../errors.js";

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Decode UTF-8 exactly (a BOM is kept); null when the bytes are not valid UTF-8. */
export function tryDecodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/** Decode UTF-8 or throw EINVAL telling the caller to use `readBytes`. */
export function decodeUtf8OrThrow(bytes: Uint8Array, path: string): string {
  const text = tryDecodeUtf8(bytes);
  if (text === null) {
    throw new InvalidArgumentError(`Cannot read ${path} as text: binary content (not valid UTF-8); use readBytes() instead`, {
      path,
      reason: "binary",
    });
  }
  return text;
}

/**
 * Check a caller's `encoding`: only UTF-8 is supported (the spec guarantees only "utf-8").
 * Accepts the spellings Python accepts for it ("utf-8", "UTF8", "utf_8"…); EINVAL otherwise.
 */
export function checkUtf8Encoding(encoding: unknown): void {
  if (encoding === undefined || encoding === null) return;
  const normal = typeof encoding === "string" ? encoding.trim().toLowerCase().replaceAll("_", "-") : "";
  if (normal !== "utf-8" && normal !== "utf8" && normal !== "u8" && normal !== "utf") {
    throw new InvalidArgumentError(`Unsupported encoding ${JSON.stringify(encoding)}: only utf-8 is supported (use readBytes() for other encodings)`, {
      encoding: String(encoding),
    });
  }
}

/** Number of Unicode code points (what the original's character limits count). */
export function codePointCount(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return text.length - surrogatePairs;
}

/** Every line break `str.splitlines()` knows; "\r\n" is one break. */
export const LINE_BREAK_SOURCE = "\\r\\n|[\\n\\r\\v\\f\\x1c-\\x1e\\x85\\u2028\\u2029]";
/** The breaks other than "\n": text without them splits at "\n" alone. */
const OTHER_BREAK = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/** Start offsets of each line (see module comment for what a line is). */
export function lineStarts(text: string): number[] {
  const starts: number[] = [];
  if (text.length === 0) return starts;
  starts.push(0);
  if (!OTHER_BREAK.test(text)) {
    let index = text.indexOf("\n");
    while (index !== -1 && index + 1 < text.length) {
      starts.push(index + 1);
      index = text.indexOf("\n", index + 1);
    }
    return starts;
  }
  const breaks = new RegExp(LINE_BREAK_SOURCE, "g");
  for (let found = breaks.exec(text); found !== null; found = breaks.exec(text)) {
    const next = found.index + found[0].length;
    if (next >= text.length) break;
    starts.push(next);
  }
  return starts;
}

/** Python's `text.splitlines(keepends)`. */
export function splitLines(text: string, keepEnds = false): string[] {
  const starts = lineStarts(text);
  const trailingBreak = new RegExp(`(?:${LINE_BREAK_SOURCE})$`);
  return starts.map((start, i) => {
    const line = text.slice(start, starts[i + 1] ?? text.length);
    return keepEnds ? line : line.replace(trailingBreak, "");
  });
}

export interface LineWindow {
  readonly content: string;
  readonly totalLines: number;
  readonly offset: number;
  readonly count: number;
  readonly truncated: boolean;
}

/** Lines [offset, offset+limit) of `text` with their terminators; limit null/−1 = to the end. */
export function sliceLines(text: string, offset: number, limit: number | null): LineWindow {
  const starts = lineStarts(text);
  const totalLines = starts.length;
  const first = Math.min(offset, totalLines);
  const end = limit === null || limit < 0 ? totalLines : Math.min(totalLines, first + limit);
  const from = first < totalLines ? (starts[first] as number) : text.length;
  const to = end < totalLines ? (starts[end] as number) : text.length;
  return {
    content: text.slice(from, to),
    totalLines,
    offset,
    count: end - first,
    truncated: end < totalLines,
  };
}
