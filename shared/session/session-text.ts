/**
 * Whole-file readers for text already in memory (a dropped file in the browser, a small
 * file on the server). The streaming reader for large files is `session-file.node.ts`.
 */
import type { JsonObject } from "./json-value.js";
import type { LineText } from "./line-text.js";
import { DEFAULT_MAX_LINE_BYTES, lineFromBytes, lineFromString, tooLongLine } from "./line-text.js";
import type { PythonJsonParseOptions } from "./python-json-parse.js";
import type { SessionLineError, SessionSnapshot } from "./snapshot-line.js";
import { parseJsonLine, snapshotFromObject } from "./snapshot-line.js";

export interface SessionReadOptions extends PythonJsonParseOptions {
  /**
   * Longest line accepted (default 128 MiB). Bytes for `Uint8Array` input and files; UTF-16
   * code units for string input. Longer lines become `too-long` error lines.
   */
  maxLineBytes?: number;
}

/** A line of a JSONL file that parsed to a JSON object. */
export interface JsonLineRecord {
  readonly lineNumber: number;
  readonly value: JsonObject;
}

export interface JsonLinesContents {
  readonly records: JsonLineRecord[];
  readonly errors: SessionLineError[];
  /** Physical lines in the file, blank ones included. */
  readonly lineCount: number;
}

export interface SessionFileContents {
  /** Loaded snapshots in file order. */
  readonly snapshots: SessionSnapshot[];
  /** Lines that did not load, in file order. */
  readonly errors: SessionLineError[];
  /** Physical lines in the file, blank ones included. */
  readonly lineCount: number;
}

/** Reads a JSONL text at the JSON layer: every non-blank line must be a JSON object. */
export function parseJsonLinesText(input: string | Uint8Array, options: SessionReadOptions = {}): JsonLinesContents {
  const collector = new JsonLinesCollector(options);
  const lineCount = forEachLine(input, options, (line) => collector.add(line));
  return collector.contents(lineCount);
}

/**
 * Reads a whole session file: one snapshot per line. Bad lines are reported with their
 * line number and never hide the good ones.
 */
export function parseSessionText(input: string | Uint8Array, options: SessionReadOptions = {}): SessionFileContents {
  return snapshotsOf(parseJsonLinesText(input, options));
}

/** Collects the JSON layer's verdicts line by line (shared with the streaming reader). */
export class JsonLinesCollector {
  private readonly records: JsonLineRecord[] = [];
  private readonly errors: SessionLineError[] = [];

  constructor(private readonly options: PythonJsonParseOptions = {}) {}

  add(line: LineText): void {
    if (line.kind === "error") {
      this.errors.push(line.error);
    } else if (line.kind === "text") {
      const parsed = parseJsonLine(line.text, line.lineNumber, this.options);
      if (parsed.ok) this.records.push({ lineNumber: parsed.lineNumber, value: parsed.value });
      else this.errors.push(parsed.error);
    }
  }

  contents(lineCount: number): JsonLinesContents {
    return { records: this.records, errors: this.errors, lineCount };
  }
}

/** The envelope layer over the JSON layer's records: snapshots, plus every line's error. */
export function snapshotsOf(lines: JsonLinesContents): SessionFileContents {
  const snapshots: SessionSnapshot[] = [];
  const errors = [...lines.errors];
  for (const record of lines.records) {
    const result = snapshotFromObject(record.value, record.lineNumber);
    if (result.ok) snapshots.push(result.snapshot);
    else errors.push(result.error);
  }
  errors.sort((a, b) => a.lineNumber - b.lineNumber);
  return { snapshots, errors, lineCount: lines.lineCount };
}

/** Calls `visit` for every physical line; returns the number of physical lines. */
function forEachLine(input: string | Uint8Array, options: SessionReadOptions, visit: (line: LineText) => void): number {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const length = input.length;
  let lineNumber = 0;
  let start = 0;
  while (start < length) {
    lineNumber++;
    const newline = typeof input === "string" ? input.indexOf("\n", start) : input.indexOf(0x0a, start);
    const end = newline === -1 ? length : newline;
    if (end - start > maxLineBytes) visit(tooLongLine(lineNumber, end - start, maxLineBytes));
    else if (typeof input === "string") visit(lineFromString(input.slice(start, end), lineNumber));
    else visit(lineFromBytes(input.subarray(start, end), lineNumber));
    start = end + 1;
  }
  return lineNumber;
}
