/**
 * A session file's index (line offsets and envelope summaries) built from its physical
 * lines, whatever they are read from: a file on disk (`scanSessionFile`) or one ranged
 * stream of a remote object (the server's remote sources, `linesOfChunks`). One line is held
 * at a time; over-long lines are reported, never buffered.
 */
import { isUtf8 } from "node:buffer";
import { SessionLoadError } from "../errors.js";
import type { EnvelopeScanOptions, EnvelopeSummary } from "./envelope-scan.js";
import { scanEnvelope } from "./envelope-scan.js";
import { DEFAULT_MAX_LINE_BYTES, decodeLineBody, lineBody, lineFromBytes, tooLongLine } from "./line-text.js";
import type { PythonJsonParseOptions } from "./python-json-parse.js";
import type { SessionLineError, SnapshotLineResult } from "./snapshot-line.js";
import { parseSnapshotLine } from "./snapshot-line.js";

/** Where a line sits in its file. */
export interface LineLocation {
  readonly lineNumber: number;
  /** Offset of the line's first byte (BOM and CR included) in the file. */
  readonly byteOffset: number;
  /** Length in bytes without the `\n`. */
  readonly byteLength: number;
}

/** One physical line; `bytes` (the caller may keep them) is null when the line was longer than the cap. */
export interface PhysicalLine extends LineLocation {
  readonly bytes: Uint8Array | null;
}

/** An indexed snapshot line: where it is and what its envelope says. */
export interface SessionIndexEntry extends EnvelopeSummary, LineLocation {}

/** Collects the index entries and line errors of a file's physical lines, in order. */
export class SessionIndexBuilder {
  readonly entries: SessionIndexEntry[] = [];
  readonly errors: SessionLineError[] = [];
  /** Physical lines seen so far (blank ones included). */
  lineCount = 0;
  readonly #maxLineBytes: number;
  readonly #options: EnvelopeScanOptions;

  constructor(options: EnvelopeScanOptions & { maxLineBytes?: number } = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#options = options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth };
  }

  add(line: PhysicalLine): void {
    this.lineCount = line.lineNumber;
    if (line.bytes === null) {
      this.errors.push(tooLongError(line, this.#maxLineBytes));
      return;
    }
    const body = lineBody(line.bytes, line.lineNumber);
    if (body === null) return;
    if (!isUtf8(body)) {
      const decoded = decodeLineBody(body, line.lineNumber);
      if (decoded.kind === "error") this.errors.push(decoded.error);
      return;
    }
    const scanned = scanEnvelope(body, line.lineNumber, this.#options);
    const location = { lineNumber: line.lineNumber, byteOffset: line.byteOffset, byteLength: line.byteLength };
    if (scanned.ok) this.entries.push({ ...scanned.summary, ...location });
    else this.errors.push(scanned.error);
  }
}

function tooLongError(line: PhysicalLine, maxLineBytes: number): SessionLineError {
  const text = tooLongLine(line.lineNumber, line.byteLength, maxLineBytes);
  if (text.kind !== "error") throw new SessionLoadError("unreachable: tooLongLine returned no error");
  return text.error;
}

/**
 * The physical lines of a byte stream, by the session reader's rules: lines end at `\n`,
 * blank lines count, the last line may lack `\n`, a final `\n` starts no new line. A line
 * longer than `maxLineBytes` is yielded with `bytes: null` (its bytes stream past unkept).
 */
export async function* linesOfChunks(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<PhysicalLine> {
  let lineNumber = 1;
  let lineStart = 0;
  let parts: Uint8Array[] = [];
  let lineBytes = 0;
  let overflow = false;
  for await (const chunk of chunks) {
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(0x0a, at);
      const end = newline === -1 ? chunk.length : newline;
      if (!overflow && lineBytes + (end - at) > maxLineBytes) {
        overflow = true;
        parts = []; // the line is reported, not kept
      }
      // A part that outlives this chunk is copied: a producer may reuse its buffers.
      if (!overflow && end > at) parts.push(newline === -1 ? chunk.slice(at, end) : chunk.subarray(at, end));
      lineBytes += end - at;
      if (newline === -1) break;
      yield { lineNumber, byteOffset: lineStart, byteLength: lineBytes, bytes: overflow ? null : Buffer.concat(parts, lineBytes) };
      lineNumber++;
      lineStart += lineBytes + 1;
      parts = [];
      lineBytes = 0;
      overflow = false;
      at = newline + 1;
    }
  }
  if (lineBytes > 0) yield { lineNumber, byteOffset: lineStart, byteLength: lineBytes, bytes: overflow ? null : Buffer.concat(parts, lineBytes) };
}

/** One indexed line's bytes (without its `\n`) parsed as a snapshot; a blank line is an error line. */
export function snapshotFromLineBytes(bytes: Uint8Array, lineNumber: number, options: PythonJsonParseOptions = {}): SnapshotLineResult {
  const line = lineFromBytes(bytes, lineNumber);
  if (line.kind === "error") return { ok: false, error: line.error };
  if (line.kind === "blank") return { ok: false, error: { lineNumber, kind: "json", reason: "The line is blank" } };
  return parseSnapshotLine(line.text, lineNumber, options);
}
