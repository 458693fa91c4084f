/**
 * The JSON-lines members of a bundle (`logs/app.jsonl`, `transcript.jsonl`) as one decoded
 * text and the ranges of its lines. Lines are split on `\n` only: WINK writes these files
 * with `ensure_ascii=False`, so U+2028, U+2029 and U+0085 occur raw inside strings (Python's
 * `splitlines()` cuts there, which is how WINK's own transcript loses entries).
 */
import type { JsonObject } from "../session/json-value.js";
import { isJsonObject } from "../session/json-value.js";
import { parsePythonJson } from "../session/python-json-parse.js";

const lossyUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/** The non-blank lines of a JSON-lines text. */
export class JsonLinesText {
  readonly text: string;
  /** Start (inclusive) and end (exclusive, before `\r\n`/`\n`) of each non-blank line in `text`. */
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** 1-based physical line number of each non-blank line. */
  readonly lineNumbers: Uint32Array;
  /** Physical lines, blank ones included. */
  readonly physicalLines: number;

  constructor(bytes: Uint8Array) {
    // Invalid UTF-8 becomes U+FFFD: a log line with one bad byte is still worth showing.
    this.text = lossyUtf8.decode(bytes);
    const text = this.text;
    const starts: number[] = [];
    const ends: number[] = [];
    const numbers: number[] = [];
    let physical = 0;
    for (let start = 0; start < text.length; ) {
      const newline = text.indexOf("\n", start);
      const stop = newline === -1 ? text.length : newline;
      physical += 1;
      let end = stop;
      if (end > start && text.charCodeAt(end - 1) === 0x0d) end -= 1;
      if (!isBlank(text, start, end)) {
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

  line(index: number): string {
    return this.text.slice(this.starts[index], this.ends[index]);
  }
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
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
