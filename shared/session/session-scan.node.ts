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
import { LineSplitter, type LineLocation, type PhysicalLine } from "./physical-lines.node.js";
import { SessionLines } from "./session-lines.js";
import { SummaryInterning } from "./summary-interning.js";

export type { LineLocation, PhysicalLine } from "./physical-lines.node.js";
export type { SessionIndexEntry } from "./session-lines.js";

/**
 * Line errors an index keeps whole (the first ones, in line order); the rest are counted
 * (`errorCount`). A file of 2,000,000 lines that are not snapshots kept 2,000,000 errors
 * (~0.8 GB) and listed them all in every `/api/files`.
 */
export const DEFAULT_KEPT_LINE_ERRORS = 1000;

export interface SessionIndexBuilderOptions extends EnvelopeScanOptions {
  maxLineBytes?: number;
  /** Line errors kept whole (default {@link DEFAULT_KEPT_LINE_ERRORS}); later ones are only counted. */
  keptErrors?: number;
  /** The first error to keep (0-based among the file's errors; default 0): a later page of them. */
  errorsFrom?: number;
  /** False: only lines and errors are counted, no line is kept (reading a later page of errors). */
  keepEntries?: boolean;
}

/** Collects the indexed lines and line errors of a file's physical lines, in order. */
export class SessionIndexBuilder {
  /** The snapshot lines, compactly (`seal` them when the file is read). */
  readonly lines = new SessionLines();
  /** The kept line errors: `keptErrors` of them from the `errorsFrom`-th. */
  readonly errors: SessionLineError[] = [];
  /** Every line error seen, kept or not. */
  errorCount = 0;
  /** Physical lines seen so far (blank ones included). */
  lineCount = 0;
  readonly #maxLineBytes: number;
  readonly #options: EnvelopeScanOptions;
  readonly #keptErrors: number;
  readonly #errorsFrom: number;
  readonly #keepEntries: boolean;
  readonly #interning = new SummaryInterning();

  constructor(options: SessionIndexBuilderOptions = {}) {
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#options = options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth };
    this.#keptErrors = options.keptErrors ?? DEFAULT_KEPT_LINE_ERRORS;
    this.#errorsFrom = options.errorsFrom ?? 0;
    this.#keepEntries = options.keepEntries ?? true;
  }

  add(line: PhysicalLine): void {
    this.lineCount = line.lineNumber;
    if (line.bytes === null) {
      this.#addError(tooLongError(line, this.#maxLineBytes));
      return;
    }
    const body = lineBody(line.bytes, line.lineNumber);
    if (body === null) return;
    if (!isUtf8(body)) {
      const decoded = decodeLineBody(body, line.lineNumber);
      if (decoded.kind === "error") this.#addError(decoded.error);
      return;
    }
    const scanned = scanEnvelope(body, line.lineNumber, this.#options);
    if (scanned.ok) this.addSummary(line, scanned.summary);
    else this.#addError(scanned.error);
  }

  #addError(error: SessionLineError): void {
    const ordinal = this.errorCount++;
    if (ordinal >= this.#errorsFrom && this.errors.length < this.#keptErrors) this.errors.push(error);
  }

  /** A line summarised where it lies (`scanEnvelopeWindow`), its bytes never held whole. */
  addSummary(line: LineLocation, summary: EnvelopeSummary): void {
    this.lineCount = line.lineNumber;
    if (!this.#keepEntries) return;
    const { shape, key } = this.#interning.shape(summary);
    this.lines.add(line, shape, summary.createdAt, key);
  }
}

function tooLongError(line: PhysicalLine, maxLineBytes: number): SessionLineError {
  const text = tooLongLine(line.lineNumber, line.byteLength, maxLineBytes);
  if (text.kind !== "error") throw new SessionLoadError("unreachable: tooLongLine returned no error");
  return text.error;
}

/** The physical lines of a byte stream (see `LineSplitter` for the rules). */
export async function* linesOfChunks(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<PhysicalLine> {
  const lines = new LineSplitter(maxLineBytes);
  // A part that outlives its chunk is copied: a producer may reuse its buffers.
  for await (const chunk of chunks) {
    const split = lines.split(chunk, false);
    for (let step = split.next(); step.done !== true; step = split.next()) yield step.value;
  }
  for (const line of lines.end()) yield line;
}

/** One indexed line's bytes (without its `\n`) parsed as a snapshot; a blank line is an error line. */
export function snapshotFromLineBytes(bytes: Uint8Array, lineNumber: number, options: PythonJsonParseOptions = {}): SnapshotLineResult {
  const line = lineFromBytes(bytes, lineNumber);
  if (line.kind === "error") return { ok: false, error: line.error };
  if (line.kind === "blank") return { ok: false, error: { lineNumber, kind: "json", reason: "The line is blank" } };
  return parseSnapshotLine(line.text, lineNumber, options);
}
