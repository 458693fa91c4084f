/**
 * A session file's indexed lines, stored by column: where each line lies and when it was made
 * in typed arrays, what it says (version, ids, tags, slices) as an ordinal into the distinct
 * summaries of the file. An index of 1.5 million lines kept one object a line (~170 bytes with
 * its summary shared, 843 before that); here a line costs its columns (~29 bytes) and an entry
 * object is built only when one is asked for.
 */
import type { EnvelopeSummary } from "./envelope-scan.js";
import type { LineLocation } from "./physical-lines.node.js";
import type { EnvelopeShape } from "./summary-interning.js";
import { SummaryInterning } from "./summary-interning.js";

/** An indexed snapshot line: where it is and what its envelope says. */
export interface SessionIndexEntry extends EnvelopeSummary, LineLocation {}

export type { EnvelopeShape } from "./summary-interning.js";

/** Distinct shapes remembered by key: past it a new shape is stored as given (a file of all-different lines grows no key table). */
const MAX_SHAPE_KEYS = 10_000;
const INITIAL_CAPACITY = 64;
const MAX_UINT32 = 0xffff_ffff;
/** Bytes one shape is counted for in `byteSize` (its object, its key, its share of strings and slices). */
const SHAPE_BYTES = 400;

/** How a line's `createdAt` is held: as WINK writes it (microseconds in `#times`), or as a string aside. */
const TIME_OTHER = 0;
const TIME_MICROS = 1;
const TIME_SECONDS = 2;
/** Python's `isoformat()` of a UTC time: with microseconds, or without when they are 0. */
const PYTHON_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/;
const UTC_SUFFIX = new TextEncoder().encode("+00:00");
/** Where a time's text is written before it is decoded (one at a time: the index is read on one thread). */
const TIME_TEXT = new Uint8Array(32);
const ASCII = new TextDecoder("latin1");

export class SessionLines implements Iterable<SessionIndexEntry> {
  #count = 0;
  // Line numbers and lengths in 32 bits (8 bytes a line less, of 37) until one does not fit:
  // then that column is widened to 64.
  #lineNumbers: Uint32Array | Float64Array = new Uint32Array(INITIAL_CAPACITY);
  #byteOffsets = new Float64Array(INITIAL_CAPACITY);
  #byteLengths: Uint32Array | Float64Array = new Uint32Array(INITIAL_CAPACITY);
  #shapeOrdinals = new Uint32Array(INITIAL_CAPACITY);
  /** Seconds since the epoch × 10^6 + the microseconds, for `TIME_MICROS` and `TIME_SECONDS`. */
  #times = new Float64Array(INITIAL_CAPACITY);
  #timeKinds = new Uint8Array(INITIAL_CAPACITY);
  /** The `createdAt` of lines whose time is not in WINK's form, by position. */
  readonly #otherTimes = new Map<number, string>();
  readonly #shapes: EnvelopeShape[] = [];
  readonly #shapeIds = new Map<string, number>();
  #ascending = true;

  /** Lines made of entries (a bundle's, a stored index), in their order; equal summaries kept once, as a scan keeps them. */
  static from(entries: Iterable<SessionIndexEntry>): SessionLines {
    const lines = new SessionLines();
    const interning = new SummaryInterning();
    for (const entry of entries) {
      const { shape, key } = interning.shape(entry);
      lines.add(entry, shape, entry.createdAt, key);
    }
    return lines.seal();
  }

  get length(): number {
    return this.#count;
  }

  /**
   * Bytes the lines keep: their columns at the size they hold (after `seal`, what they use),
   * the distinct shapes and the times kept as strings.
   */
  get byteSize(): number {
    const columns = this.#lineNumbers.byteLength + this.#byteOffsets.byteLength + this.#byteLengths.byteLength + this.#shapeOrdinals.byteLength + this.#times.byteLength + this.#timeKinds.byteLength;
    return columns + this.#shapes.length * SHAPE_BYTES + this.#otherTimes.size * 80;
  }

  /**
   * Appends a line. `key` says which lines share `shape` (equal keys, equal shapes; null:
   * look for none).
   */
  add(location: LineLocation, shape: EnvelopeShape, createdAt: string, key: string | null): void {
    const at = this.#count;
    if (at === this.#lineNumbers.length) this.#resize(at * 2);
    if (at > 0 && (this.#lineNumbers[at - 1] as number) >= location.lineNumber) this.#ascending = false;
    if (location.lineNumber > MAX_UINT32 && this.#lineNumbers instanceof Uint32Array) this.#lineNumbers = Float64Array.from(this.#lineNumbers);
    if (location.byteLength > MAX_UINT32 && this.#byteLengths instanceof Uint32Array) this.#byteLengths = Float64Array.from(this.#byteLengths);
    this.#lineNumbers[at] = location.lineNumber;
    this.#byteOffsets[at] = location.byteOffset;
    this.#byteLengths[at] = location.byteLength;
    this.#shapeOrdinals[at] = this.#shapeOrdinal(shape, key);
    this.#setTime(at, createdAt);
    this.#count = at + 1;
  }

  /** Gives back the room the columns grew into beyond their lines (they grow by doubling). */
  seal(): this {
    if (this.#lineNumbers.length > this.#count) this.#resize(this.#count);
    return this;
  }

  /** The entry at a position (0-based), built now. */
  at(position: number): SessionIndexEntry | undefined {
    if (!Number.isInteger(position)) return undefined;
    const at = position < 0 ? this.#count + position : position;
    if (at < 0 || at >= this.#count) return undefined;
    const shape = this.#shapes[this.#shapeOrdinals[at] as number] as EnvelopeShape;
    // One literal, always the same fields in the same order: every entry gets one hidden class.
    return {
      version: shape.version,
      createdAt: this.#time(at),
      parentId: shape.parentId,
      childrenIds: shape.childrenIds,
      tags: shape.tags,
      sessionId: shape.sessionId,
      validationErrors: shape.validationErrors,
      slices: shape.slices,
      lineNumber: this.#lineNumbers[at] as number,
      byteOffset: this.#byteOffsets[at] as number,
      byteLength: this.#byteLengths[at] as number,
    };
  }

  /** What the line at a position says but for its time and place: one object for all the lines that say the same. */
  shapeAt(position: number): EnvelopeShape {
    return this.#shapes[this.#shapeOrdinals[position] as number] as EnvelopeShape;
  }

  /** The entry at a position of `0 … length - 1`, built now. */
  summaryAt(position: number): SessionIndexEntry {
    return this.at(position) as SessionIndexEntry;
  }

  lineNumberAt(position: number): number {
    return this.#lineNumbers[position] as number;
  }

  /** The `createdAt` of the line at a position of `0 … length - 1`, as the line wrote it. */
  timeAt(position: number): string {
    return this.#time(position);
  }

  /** The entry of a line number (found by bisection: lines come in file order), or undefined. */
  ofLine(lineNumber: number): SessionIndexEntry | undefined {
    if (!this.#ascending) return this.find((entry) => entry.lineNumber === lineNumber);
    let low = 0;
    let high = this.#count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.#lineNumbers[middle] as number;
      if (found === lineNumber) return this.at(middle);
      if (found < lineNumber) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** The first (or, `last`, the last) entry of a session, looked for without building the others. */
  ofSession(sessionId: string, last = false): SessionIndexEntry | undefined {
    for (let i = 0; i < this.#count; i++) {
      const at = last ? this.#count - 1 - i : i;
      if ((this.#shapes[this.#shapeOrdinals[at] as number] as EnvelopeShape).sessionId === sessionId) return this.at(at);
    }
    return undefined;
  }

  /** Every entry of a session, in file order; the other lines' entries are never built. */
  ofSessionAll(sessionId: string): SessionIndexEntry[] {
    const found: SessionIndexEntry[] = [];
    for (let at = 0; at < this.#count; at++) {
      if ((this.#shapes[this.#shapeOrdinals[at] as number] as EnvelopeShape).sessionId === sessionId) found.push(this.at(at) as SessionIndexEntry);
    }
    return found;
  }

  find(predicate: (entry: SessionIndexEntry) => boolean): SessionIndexEntry | undefined {
    for (const entry of this) if (predicate(entry)) return entry;
    return undefined;
  }

  filter(predicate: (entry: SessionIndexEntry) => boolean): SessionIndexEntry[] {
    const kept: SessionIndexEntry[] = [];
    for (const entry of this) if (predicate(entry)) kept.push(entry);
    return kept;
  }

  map<T>(transform: (entry: SessionIndexEntry, position: number) => T): T[] {
    const mapped = new Array<T>(this.#count);
    for (let i = 0; i < this.#count; i++) mapped[i] = transform(this.at(i) as SessionIndexEntry, i);
    return mapped;
  }

  /** Every entry as an object (what the public `SessionFileIndex.entries` holds). */
  toArray(): SessionIndexEntry[] {
    return this.map((entry) => entry);
  }

  *[Symbol.iterator](): Iterator<SessionIndexEntry> {
    for (let i = 0; i < this.#count; i++) yield this.at(i) as SessionIndexEntry;
  }

  #shapeOrdinal(shape: EnvelopeShape, key: string | null): number {
    if (key !== null) {
      const known = this.#shapeIds.get(key);
      if (known !== undefined) return known;
    }
    const ordinal = this.#shapes.push(shape) - 1;
    if (key !== null && this.#shapeIds.size < MAX_SHAPE_KEYS) this.#shapeIds.set(key, ordinal);
    return ordinal;
  }

  #setTime(at: number, createdAt: string): void {
    const micros = pythonUtcMicros(createdAt);
    if (micros === null) {
      this.#timeKinds[at] = TIME_OTHER;
      this.#otherTimes.set(at, createdAt);
      return;
    }
    this.#timeKinds[at] = createdAt.length === 25 ? TIME_SECONDS : TIME_MICROS;
    this.#times[at] = micros;
  }

  #time(at: number): string {
    const kind = this.#timeKinds[at];
    if (kind === TIME_OTHER) return this.#otherTimes.get(at) as string;
    const micros = this.#times[at] as number;
    const seconds = Math.floor(micros / 1e6);
    const date = new Date(seconds * 1000).toISOString();
    // Written as bytes and decoded once: a joined string would be a rope of several heap
    // objects per entry (an index of 1,000,000 entry objects kept 360 bytes a line, not 170).
    for (let i = 0; i < 19; i++) TIME_TEXT[i] = date.charCodeAt(i);
    let end = 19;
    if (kind === TIME_MICROS) {
      TIME_TEXT[19] = 0x2e;
      let fraction = micros - seconds * 1e6;
      for (let i = 25; i > 19; i--, fraction = Math.floor(fraction / 10)) TIME_TEXT[i] = 0x30 + (fraction % 10);
      end = 26;
    }
    TIME_TEXT.set(UTC_SUFFIX, end);
    return ASCII.decode(TIME_TEXT.subarray(0, end + UTC_SUFFIX.length));
  }

  #resize(capacity: number): void {
    const size = Math.max(capacity, this.#count);
    this.#lineNumbers = resized(this.#lineNumbers, this.#lineNumbers instanceof Uint32Array ? new Uint32Array(size) : new Float64Array(size), this.#count);
    this.#byteOffsets = resized(this.#byteOffsets, new Float64Array(size), this.#count);
    this.#byteLengths = resized(this.#byteLengths, this.#byteLengths instanceof Uint32Array ? new Uint32Array(size) : new Float64Array(size), this.#count);
    this.#shapeOrdinals = resized(this.#shapeOrdinals, new Uint32Array(size), this.#count);
    this.#times = resized(this.#times, new Float64Array(size), this.#count);
    this.#timeKinds = resized(this.#timeKinds, new Uint8Array(size), this.#count);
  }
}

function resized<T extends Float64Array | Uint32Array | Uint8Array>(from: T | Float64Array | Uint32Array | Uint8Array, to: T, count: number): T {
  to.set(from.subarray(0, count));
  return to;
}

/**
 * `text` as seconds × 10^6 + microseconds when it is exactly what Python's `isoformat()` of
 * a UTC time writes (so it is written back the same), else null.
 */
function pythonUtcMicros(text: string): number | null {
  if (!PYTHON_UTC.test(text)) return null;
  const ms = Date.parse(`${text.slice(0, 19)}Z`);
  // A date that does not exist (`02-30`) is moved by the parser: it is not written back the same.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== text.slice(0, 19)) return null;
  const micros = (ms / 1000) * 1e6 + (text.length === 25 ? 0 : Number(text.slice(20, 26)));
  // Exact for the years 1685 to 2255; a time beyond them is kept as its string.
  return Number.isSafeInteger(micros) ? micros : null;
}
