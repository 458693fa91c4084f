/** Byte ranges: checking them, clamping them to an object, and the HTTP `Range` forms. */
import { SourceError } from "../errors.js";
import type { ByteRange } from "./driver.js";

/** Throws `E_SOURCE_INVALID` unless `range` asks for at least one byte at a non-negative offset. */
export function checkRange(range: ByteRange): ByteRange {
  if ("suffix" in range) {
    if (!Number.isSafeInteger(range.suffix) || range.suffix < 1) throw invalidRange(`suffix of ${range.suffix} bytes`);
  } else if (!Number.isSafeInteger(range.offset) || range.offset < 0 || !Number.isSafeInteger(range.length) || range.length < 1) {
    throw invalidRange(`${range.length} bytes at offset ${range.offset}`);
  }
  return range;
}

function invalidRange(what: string): SourceError {
  return new SourceError("E_SOURCE_INVALID", `Invalid byte range: ${what} (ranges need a whole, non-negative offset and at least one byte)`, { reason: "range" });
}

/**
 * The part of `range` inside an object of `size` bytes, or null when it starts at or past
 * the end. A suffix of an empty object is the empty range at 0 (what a ZIP reader's first
 * read of an empty file gets).
 */
export function clampRange(range: ByteRange, size: number): { offset: number; length: number } | null {
  if ("suffix" in range) {
    const offset = Math.max(0, size - range.suffix);
    return { offset, length: size - offset };
  }
  if (range.offset >= size) return null;
  return { offset: range.offset, length: Math.min(range.length, size - range.offset) };
}

/** `Range` header value for `range`. */
export function rangeHeader(range: ByteRange): string {
  return "suffix" in range ? `bytes=-${range.suffix}` : `bytes=${range.offset}-${range.offset + range.length - 1}`;
}

export function describeRange(range: ByteRange): string {
  return "suffix" in range ? `the last ${range.suffix} bytes` : `bytes ${range.offset}-${range.offset + range.length - 1}`;
}

/** `E_SOURCE_INVALID` for a range that starts at or past the end of an object. */
export function unsatisfiable(url: string, key: string, range: ByteRange, size: number | null): SourceError {
  const sizeText = size === null ? "" : ` (the object has ${size} bytes)`;
  return new SourceError("E_SOURCE_INVALID", `Cannot read ${describeRange(range)} of ${url}: the range starts past the end${sizeText}`, {
    url,
    key,
    reason: "range-not-satisfiable",
    size,
  });
}

export interface ContentRange {
  readonly offset: number;
  readonly length: number;
  readonly size: number;
}

/** Parses `Content-Range: bytes a-b/n` (null when absent or malformed, or the size is "*"). */
export function parseContentRange(value: string | null | undefined): ContentRange | null {
  if (value == null) return null;
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value.trim());
  if (match === null) return null;
  const first = Number(match[1]);
  const last = Number(match[2]);
  const size = Number(match[3]);
  if (!Number.isSafeInteger(size) || last < first || last >= size) return null;
  return { offset: first, length: last - first + 1, size };
}

/** The size in an unsatisfied range's `Content-Range: bytes *\/n`, or null. */
export function parseUnsatisfiedRange(value: string | null | undefined): number | null {
  if (value == null) return null;
  const match = /^bytes \*\/(\d+)$/.exec(value.trim());
  return match === null ? null : Number(match[1]);
}

/** Whether a `Content-Range` answers the range asked for (a server may not widen or move it). */
export function answersRange(asked: ByteRange, got: ContentRange): boolean {
  const expected = clampRange(asked, got.size);
  return expected !== null && expected.offset === got.offset && expected.length === got.length;
}

/** The body of an empty range. */
export async function* noChunks(): AsyncGenerator<Uint8Array> {
  // nothing to send
}
