/**
 * Line offsets of a JSONL object read over ranges, newest line first.
 *
 * `newest(n)` reads backwards from the end, in growing chunks through the reader's block
 * cache, only until it has the last `n` lines: opening the newest snapshot of a 25 MB session
 * file costs its last line's bytes, not the file. `build()` then streams the part not yet
 * scanned once (one ranged request, resumed if cut) and keeps only the newline offsets in
 * memory (8 bytes a line), which gives every line its 1-based physical line number.
 *
 * Line rules are those of the session reader (`session/session-file.node.ts`): lines end at
 * "\n"; blank lines count; the last line may lack "\n"; a final "\n" starts no new line.
 * The index belongs to one version (the reader's validator); when the object changes,
 * reads fail with `E_SOURCE_CHANGED` and the caller builds a new index.
 */
import { SourceError } from "../errors.js";
import type { RandomAccessReader } from "./random-access-reader.js";
import type { Source } from "./source.js";

/** Where a line sits: its 1-based number once known (after `build`), its place from the end. */
export interface LineSpan {
  /** 1-based physical line number; null until the index is built. */
  readonly lineNumber: number | null;
  /** 1 for the last line, 2 for the one before it… */
  readonly fromEnd: number;
  readonly byteOffset: number;
  /** Bytes without the "\n". */
  readonly byteLength: number;
}

export interface LineIndexOptions {
  /** First backward chunk (default 64 KiB); each further one doubles, up to 8 MiB. */
  readonly tailChunkBytes?: number;
  /** Longest line `readLine` returns (default 64 MiB); longer is `E_SOURCE_LIMIT`. */
  readonly maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const MAX_TAIL_CHUNK_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A growable list of offsets (8 bytes each). */
class Offsets {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  at(index: number): number | undefined {
    return index >= 0 && index < this.length ? this.data[index] : undefined;
  }
}

export class LineIndex {
  private readonly tailChunkBytes: number;
  private readonly maxLineBytes: number;
  /** Lowest offset scanned backwards; the tail [scannedFrom, size) is known. */
  private scannedFrom: number;
  /** Newline offsets found in the tail, descending. */
  private readonly tailNewlines: number[] = [];
  /** All newline offsets, ascending, once built. */
  private all: Offsets | null = null;
  private building: Promise<void> | null = null;

  constructor(
    private readonly source: Source,
    private readonly reader: RandomAccessReader,
    options: LineIndexOptions = {},
  ) {
    this.tailChunkBytes = options.tailChunkBytes ?? 64 * 1024;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.scannedFrom = reader.size;
  }

  get size(): number {
    return this.reader.size;
  }

  get built(): boolean {
    return this.all !== null;
  }

  /** Physical lines in the object; null until built. */
  get lineCount(): number | null {
    const all = this.all;
    if (all === null) return null;
    if (this.size === 0) return 0;
    return all.at(all.length - 1) === this.size - 1 ? all.length : all.length + 1;
  }

  /** The last `count` lines, newest first (fewer when the object has fewer). */
  async newest(count: number): Promise<LineSpan[]> {
    if (this.all !== null) return this.fromIndex(count);
    let chunk = this.tailChunkBytes;
    for (;;) {
      const spans = this.fromTail(count);
      if (spans.length >= count || this.scannedFrom === 0) return spans;
      const start = Math.max(0, this.scannedFrom - chunk);
      const bytes = await this.reader.read(start, this.scannedFrom - start);
      for (let at = bytes.lastIndexOf(NEWLINE); at !== -1; at = at === 0 ? -1 : bytes.lastIndexOf(NEWLINE, at - 1)) {
        this.tailNewlines.push(start + at);
      }
      this.scannedFrom = start;
      chunk = Math.min(MAX_TAIL_CHUNK_BYTES, chunk * 2);
    }
  }

  /** Scans the rest of the object once (one streamed range) so every line has its number. */
  build(): Promise<void> {
    this.building ??= this.scanHead().catch((error: unknown) => {
      this.building = null;
      throw error;
    });
    return this.building;
  }

  /** Line `lineNumber` (1-based); builds the index first if needed. */
  async line(lineNumber: number): Promise<LineSpan> {
    await this.build();
    const count = this.lineCount ?? 0;
    if (!Number.isSafeInteger(lineNumber) || lineNumber < 1 || lineNumber > count) {
      throw new SourceError("E_SOURCE_INVALID", `${this.source.describe(this.reader.key)} has no line ${lineNumber} (it has ${count})`, {
        url: this.source.describe(this.reader.key),
        key: this.reader.key,
        reason: "line",
      });
    }
    return this.spanOf(lineNumber, count);
  }

  /** The bytes of a line (without its "\n"). */
  async readLine(span: LineSpan): Promise<Uint8Array> {
    if (span.byteLength > this.maxLineBytes) {
      const url = this.source.describe(this.reader.key);
      throw new SourceError("E_SOURCE_LIMIT", `Line ${span.lineNumber ?? `${span.fromEnd} from the end`} of ${url} has ${span.byteLength} bytes, more than the limit of ${this.maxLineBytes}`, {
        url,
        key: this.reader.key,
        limit: this.maxLineBytes,
      });
    }
    return this.reader.read(span.byteOffset, span.byteLength);
  }

  private async scanHead(): Promise<void> {
    const head = new Offsets();
    if (this.scannedFrom > 0) {
      const stream = await this.source.stream(this.reader.key, { offset: 0, length: this.scannedFrom }, { etag: this.reader.etag });
      let position = 0;
      for await (const chunk of stream.chunks) {
        for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) head.push(position + at);
        position += chunk.byteLength;
      }
    }
    for (let i = this.tailNewlines.length - 1; i >= 0; i--) head.push(this.tailNewlines[i] as number);
    this.all = head;
  }

  private spanOf(lineNumber: number, count: number): LineSpan {
    const all = this.all as Offsets;
    const start = lineNumber === 1 ? 0 : (all.at(lineNumber - 2) as number) + 1;
    const end = all.at(lineNumber - 1) ?? this.size;
    return { lineNumber, fromEnd: count - lineNumber + 1, byteOffset: start, byteLength: end - start };
  }

  private fromIndex(count: number): LineSpan[] {
    const total = this.lineCount ?? 0;
    const spans: LineSpan[] = [];
    for (let n = total; n >= 1 && spans.length < count; n--) spans.push(this.spanOf(n, total));
    return spans;
  }

  /** The complete lines the backward scan has found so far, newest first. */
  private fromTail(count: number): LineSpan[] {
    const size = this.size;
    const spans: LineSpan[] = [];
    if (size === 0) return spans;
    const newlines = this.tailNewlines;
    // A final "\n" ends the last line rather than starting an empty one.
    const endsWithNewline = newlines[0] === size - 1;
    const below = endsWithNewline ? newlines.slice(1) : newlines;
    let end = endsWithNewline ? size - 1 : size;
    if (this.scannedFrom === size) return spans;
    for (let i = 0; spans.length < count; i++) {
      const previous = below[i];
      if (previous === undefined && this.scannedFrom > 0) break; // this line's start is not scanned yet
      const start = previous === undefined ? 0 : previous + 1;
      spans.push({ lineNumber: null, fromEnd: i + 1, byteOffset: start, byteLength: end - start });
      if (previous === undefined) break;
      end = previous;
    }
    return spans;
  }
}
