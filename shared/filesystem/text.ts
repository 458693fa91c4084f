/**
 * Text handling shared by every backend: strict UTF-8 and line pagination. Browser-safe.
 *
 * Lines end at "\n" (a "\r\n" ending stays part of the line's text in `read()`), and a final
 * newline does not start another line, so "a\nb\n" has 2 lines and "" has 0.
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

/** Start offsets of each line (see module comment for what a line is). */
export function lineStarts(text: string): number[] {
  const starts: number[] = [];
  if (text.length === 0) return starts;
  starts.push(0);
  let index = text.indexOf("\n");
  while (index !== -1 && index + 1 < text.length) {
    starts.push(index + 1);
    index = text.indexOf("\n", index + 1);
  }
  return starts;
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
