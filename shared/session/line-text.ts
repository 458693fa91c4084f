/**
 * From the physical lines of a JSONL file to line texts: shared by the in-memory reader
 * (`session-text.ts`, which the browser uses) and the streaming one (`session-file.node.ts`).
 *
 * Line numbers are physical and 1-based; blank and whitespace-only lines are skipped but
 * counted. A UTF-8 BOM is stripped from line 1, one trailing CR from every line, and bytes
 * that are not valid UTF-8 make the line an error line (fatal decoding: no U+FFFD).
 */
import type { SessionLineError } from "./snapshot-line.js";

/** Longest line read by default (128 MiB); longer lines become error lines. */
export const DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024;

export type LineText =
  | { readonly kind: "text"; readonly lineNumber: number; readonly text: string }
  | { readonly kind: "blank"; readonly lineNumber: number }
  | { readonly kind: "error"; readonly error: SessionLineError };

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes one physical line (without its `\n`). */
export function lineFromBytes(bytes: Uint8Array, lineNumber: number): LineText {
  const body = lineBody(bytes, lineNumber);
  if (body === null) return { kind: "blank", lineNumber };
  return decodeLineBody(body, lineNumber);
}

/**
 * The bytes of a physical line without the BOM (line 1) and trailing CR, or null when the
 * line is blank.
 */
export function lineBody(bytes: Uint8Array, lineNumber: number): Uint8Array | null {
  let start = 0;
  let end = bytes.length;
  if (lineNumber === 1 && end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  if (end > start && bytes[end - 1] === 0x0d) end--;
  return isBlankBytes(bytes, start, end) ? null : bytes.subarray(start, end);
}

/** Decodes a line body (see {@link lineBody}) with fatal UTF-8 decoding. */
export function decodeLineBody(body: Uint8Array, lineNumber: number): LineText {
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    const at = firstInvalidUtf8(body);
    return {
      kind: "error",
      error: { lineNumber, kind: "encoding", reason: `Invalid UTF-8 at byte ${at + 1} of the line` },
    };
  }
  return { kind: "text", lineNumber, text };
}

/** Prepares one physical line of already decoded text (without its `\n`). */
export function lineFromString(line: string, lineNumber: number): LineText {
  let text = line;
  if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (BLANK.test(text)) return { kind: "blank", lineNumber };
  return { kind: "text", lineNumber, text };
}

/** The error line for a line longer than the cap (its bytes were never buffered). */
export function tooLongLine(lineNumber: number, lineBytes: number, maxLineBytes: number): LineText {
  return {
    kind: "error",
    error: {
      lineNumber,
      kind: "too-long",
      reason: `Line is ${formatByteCount(lineBytes)}, over the limit of ${formatByteCount(maxLineBytes)} (maxLineBytes); it was skipped`,
    },
  };
}

/** `1,234 bytes` / `300.0 MiB` style, independent of the locale. */
export function formatByteCount(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB (${groupDigits(bytes)} bytes)`;
  return `${groupDigits(bytes)} bytes`;
}

function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const BLANK = /^[ \t\r\v\f]*$/;

function isBlankBytes(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0b && b !== 0x0c) return false;
  }
  return true;
}

/**
 * Offset of the first byte that breaks UTF-8 (only called once decoding has failed):
 * overlong forms, surrogates (CESU-8), code points past U+10FFFF and truncated sequences.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min, cp] = [1, 0x80, b & 0x1f];
    else if (b >= 0xe0 && b <= 0xef) [need, min, cp] = [2, 0x800, b & 0x0f];
    else if (b >= 0xf0 && b <= 0xf4) [need, min, cp] = [3, 0x10000, b & 0x07];
    else return i;
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}
