/**
 * The one line splitter of session files: physical lines by the session reader's rules, from
 * bytes as they come (a file read in chunks, a remote object's ranged stream). Lines end at
 * `\n`, blank lines count, the last line may lack `\n`, a final `\n` starts no new line. A line
 * longer than `maxLineBytes` is yielded with `bytes: null`: its bytes stream past unkept.
 */

/** Where a line sits in its file. */
export interface LineLocation {
  readonly lineNumber: number;
  /** Offset of the line's first byte (BOM and CR included) in the file. */
  readonly byteOffset: number;
  /** Length in bytes without the `\n`. */
  readonly byteLength: number;
}

/** One physical line; `bytes` (the caller may keep them: a copy) is null when the line was longer than the cap. */
export interface PhysicalLine extends LineLocation {
  readonly bytes: Uint8Array | null;
}

export class LineSplitter {
  #lineNumber = 1;
  #lineStart = 0;
  #parts: Uint8Array[] = [];
  #lineBytes = 0;
  #overflow = false;

  constructor(readonly maxLineBytes: number) {}

  /** True between lines: nothing of the next line is held yet. */
  get atLineStart(): boolean {
    return this.#lineBytes === 0 && !this.#overflow;
  }

  /** Number of the line being read. */
  get lineNumber(): number {
    return this.#lineNumber;
  }

  /** Offset in the file of the line being read. */
  get lineStart(): number {
    return this.#lineStart;
  }

  /**
   * The lines that end in `view`; what follows its last `\n` is held for the next view, as a
   * view into it when `keepView` (the caller will not reuse its memory), else copied. With
   * `stopAtTail`, a fresh line with no `\n` in the rest of `view` is left to the caller: `tail`
   * then says where it starts (-1 when `view` was used up).
   */
  *split(view: Uint8Array, keepView: boolean, stopAtTail = false): Generator<PhysicalLine, number> {
    let at = 0;
    while (at < view.length) {
      const newline = view.indexOf(0x0a, at);
      const end = newline === -1 ? view.length : newline;
      if (newline === -1 && stopAtTail && this.atLineStart && end - at <= this.maxLineBytes) return at;
      if (!this.#overflow && this.#lineBytes + (end - at) > this.maxLineBytes) {
        this.#overflow = true;
        this.#parts = []; // the line is reported, not kept
      }
      if (!this.#overflow && end > at) this.#parts.push(newline === -1 && !keepView ? view.slice(at, end) : view.subarray(at, end));
      this.#lineBytes += end - at;
      if (newline === -1) break;
      yield this.#take();
      at = newline + 1;
    }
    return -1;
  }

  /** A whole line read by the caller (the bytes are the caller's to give). */
  line(bytes: Uint8Array): PhysicalLine {
    const line = { lineNumber: this.#lineNumber, byteOffset: this.#lineStart, byteLength: bytes.length, bytes };
    this.#lineNumber++;
    this.#lineStart += bytes.length + 1;
    return line;
  }

  /** A whole line the caller went past without keeping its bytes: where it was. */
  skip(byteLength: number): LineLocation {
    const location = { lineNumber: this.#lineNumber, byteOffset: this.#lineStart, byteLength };
    this.#lineNumber++;
    this.#lineStart += byteLength + 1;
    return location;
  }

  /** The start of a line read by the caller, to be continued by `split` (over the cap: counted, not kept). */
  begin(bytes: Uint8Array): void {
    this.#lineBytes = bytes.length;
    if (bytes.length > this.maxLineBytes) this.#overflow = true;
    else this.#parts = [bytes];
  }

  /** Whether the unfinished line holds memory of `buffer` (which the caller then must not reuse). */
  holds(buffer: ArrayBufferLike): boolean {
    return this.#parts.some((part) => part.buffer === buffer);
  }

  /** The last line, when the bytes ended without `\n`. */
  *end(): Generator<PhysicalLine> {
    if (this.#lineBytes > 0) yield this.#take();
  }

  #take(): PhysicalLine {
    const line = { lineNumber: this.#lineNumber, byteOffset: this.#lineStart, byteLength: this.#lineBytes, bytes: this.#overflow ? null : Buffer.concat(this.#parts, this.#lineBytes) };
    this.#lineNumber++;
    this.#lineStart += this.#lineBytes + 1;
    this.#parts = [];
    this.#lineBytes = 0;
    this.#overflow = false;
    return line;
  }
}
