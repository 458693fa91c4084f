/**
 * The JSON-lines members of a bundle (`logs/app.jsonl`, `transcript.jsonl`) as byte ranges
 * of their lines, decoded one line at a time when asked: a page of 50 log records decodes
 * 50 lines, not the 3 MB file. Lines are split on `\n` only: WINK writes these files with
 * `ensure_ascii=False`, so U+2028, U+2029 and U+0085 occur raw inside strings (Python's
 * `splitlines()` cuts there, which is how WINK's own transcript loses entries).
 */
import type { JsonObject } from "../session/json-value.js";
import { isJsonObject } from "../session/json-value.js";
import { parsePythonJson } from "../session/python-json-parse.js";

// Invalid UTF-8 becomes U+FFFD: a log line with one bad byte is still worth showing.
const lossyUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Text of `bytes[start, end)`. */
export function decodeRange(bytes: Uint8Array, start: number, end: number): string {
  return lossyUtf8.decode(bytes.subarray(start, end));
}

function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** The non-blank lines of a JSON-lines file. */
export class JsonLines {
  readonly bytes: Uint8Array;
  /** Byte offsets: start (inclusive) and end (exclusive, before `\r\n`/`\n`) of each non-blank line. */
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** 1-based physical line number of each non-blank line. */
  readonly lineNumbers: Uint32Array;
  /** Physical lines, blank ones included. */
  readonly physicalLines: number;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    const starts: number[] = [];
    const ends: number[] = [];
    const numbers: number[] = [];
    let physical = 0;
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    for (let start = bom; start < bytes.length; ) {
      const newline = bytes.indexOf(0x0a, start);
      const stop = newline === -1 ? bytes.length : newline;
      physical += 1;
      let end = stop;
      if (end > start && bytes[end - 1] === 0x0d) end -= 1;
      if (!isBlank(bytes, start, end)) {
        starts.push(start);
        ends.push(end);
        numbers.push(physical);
      }
      start = stop + 1;
    }
    this.physicalLines = physical;
    this.starts = Uint32Array.from(starts);
    this.ends = Uint32Array.from(ends);
    this.lineNumbers = Uint32Array.from(numbers);
  }

  get count(): number {
    return this.starts.length;
  }

  /** The text of non-blank line `index`. */
  line(index: number): string {
    return decodeRange(this.bytes, this.starts[index] as number, this.ends[index] as number);
  }
}

export type ParsedRecord = { readonly ok: true; readonly value: JsonObject } | { readonly ok: false; readonly reason: string };

/** One line as a JSON object (Python JSON: bare NaN and big integers kept), or why not. */
export function parseRecord(line: string): ParsedRecord {
  try {
    const value = parsePythonJson(line);
    return isJsonObject(value) ? { ok: true, value } : { ok: false, reason: "not a JSON object" };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
