/**
 * A session line too long for one read chunk, scanned where it lies in the file instead of
 * gathered into a buffer of its own: the envelope scan (`scanEnvelopeWindow`) walks it
 * through one reused window, which is refilled as the scan moves on. Fresh memory is what
 * a long line costs most (the pages of a 12.6 MB buffer took ~60 ms to touch, the scan of
 * its bytes ~20 ms); through a 1 MiB window a line of any length touches 1 MiB.
 *
 * The window is read synchronously, because the scan that asks for more is: each read is
 * of the next window of a file being scanned, work the scan does on the CPU right after.
 *
 * The scan through the window gives a line's summary only when the whole-line path would
 * give the same one: the scan succeeds, the line ends (`\n` or the end of the file, as the
 * file was when opened), its bytes are valid UTF-8 and within `maxLineBytes`. Anything
 * else (`usable` false) sends the caller back to the whole-line path, which gives the
 * line's error.
 */
import { isUtf8 } from "node:buffer";
import { readSync } from "node:fs";
import type { EnvelopeWindow } from "./envelope-scan.js";

/** Checks bytes for UTF-8 as they come, a character cut between two pieces included. */
class Utf8Stream {
  readonly #held = Buffer.alloc(8);
  /** Bytes of a character that the next piece may finish, in `#held`. */
  #heldBytes = 0;
  valid = true;

  /** The next piece of the line; `last`: nothing follows it. */
  push(bytes: Uint8Array, last: boolean): void {
    if (!this.valid) return;
    let from = 0;
    if (this.#heldBytes > 0) {
      while (from < bytes.length && this.#heldBytes < 4 && ((bytes[from] ?? 0) & 0xc0) === 0x80) this.#held[this.#heldBytes++] = bytes[from++] ?? 0;
      if (from === bytes.length && !last && this.#heldBytes < 4) return;
      this.valid = isUtf8(this.#held.subarray(0, this.#heldBytes));
      this.#heldBytes = 0;
      if (!this.valid) return;
    }
    let cut = bytes.length;
    if (!last) {
      // Held back: from the last character start among the last four bytes.
      for (let at = bytes.length - 1; at >= Math.max(from, bytes.length - 4); at--) {
        if (((bytes[at] ?? 0) & 0xc0) !== 0x80) {
          cut = at;
          break;
        }
      }
    }
    this.valid = isUtf8(bytes.subarray(from, cut));
    for (let at = cut; at < bytes.length; at++) this.#held[this.#heldBytes++] = bytes[at] ?? 0;
  }
}

export interface LongLineWindowOptions {
  /** The file's descriptor (read with positions: the handle's own position is not used). */
  readonly fd: number;
  /** The window's memory, reused from line to line (it grows only for a key or small value longer than it). */
  readonly buffer: Buffer;
  /** The line's first bytes, already read (at most the buffer's length). */
  readonly head: Uint8Array;
  /** File offset of the byte after `head`. */
  readonly position: number;
  /** The file's size when it was opened: a line that runs past it falls back to the whole-line path. */
  readonly sizeHint: number;
  readonly lineNumber: number;
  readonly maxLineBytes: number;
}

export class LongLineWindow implements EnvelopeWindow {
  bytes: Uint8Array;
  /** Set when the whole-line path must read this line (see the module's comment). */
  failed = false;
  /** Bytes after the line's `\n` that were read with it (a view into `buffer`), once it ended. */
  rest: Buffer | null = null;
  #buffer: Buffer;
  /** Bytes in `#buffer` (the line's, then `rest`). */
  #filled: number;
  /** Bytes of the line that left the window (a BOM included). */
  #dropped = 0;
  #position: number;
  #ended = false;
  readonly #fd: number;
  readonly #sizeHint: number;
  readonly #maxLineBytes: number;
  readonly #utf8 = new Utf8Stream();

  constructor(options: LongLineWindowOptions) {
    this.#fd = options.fd;
    this.#buffer = options.buffer;
    this.#sizeHint = options.sizeHint;
    this.#maxLineBytes = options.maxLineBytes;
    this.#position = options.position;
    let head = options.head;
    // The BOM of line 1 is not part of the line's body (`lineBody`).
    if (options.lineNumber === 1 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
      head = head.subarray(3);
      this.#dropped = 3;
    }
    if (options.lineNumber === 1 && head === options.head && head.length < 3) this.failed = true;
    this.#buffer.set(head);
    this.#filled = head.length;
    this.bytes = this.#buffer.subarray(0, this.#filled);
    this.#utf8.push(this.bytes, false);
  }

  /** The window's memory (larger than given when a key or small value needed more). */
  get buffer(): Buffer {
    return this.#buffer;
  }

  /** The line's length in bytes (without its `\n`), once it ended. */
  get lineBytes(): number {
    return this.#dropped + this.bytes.length;
  }

  /** File offset after what was read. */
  get position(): number {
    return this.#position;
  }

  /** True when the scan's summary stands for the line (it ended, fits, and is UTF-8). */
  get usable(): boolean {
    return this.#ended && !this.failed && this.#utf8.valid && this.lineBytes <= this.#maxLineBytes;
  }

  advance(keepFrom: number): boolean {
    if (this.#ended || this.failed) return false;
    if (this.#position >= this.#sizeHint) {
      // The line runs to the end of the file as it was opened: it ends there unless the file grew.
      const probe = Buffer.alloc(1);
      if (readSync(this.#fd, probe, 0, 1, this.#position) === 0) this.#end(this.#filled, this.#filled, this.#filled);
      else this.failed = true;
      return false;
    }
    const kept = this.#filled - keepFrom;
    if (kept === this.#buffer.length) {
      const larger = Buffer.allocUnsafe(this.#buffer.length * 2);
      this.#buffer.copy(larger, 0, keepFrom, this.#filled);
      this.#buffer = larger;
    } else {
      this.#buffer.copyWithin(0, keepFrom, this.#filled);
    }
    this.#dropped += keepFrom;
    this.#filled = kept;
    const wanted = Math.min(this.#buffer.length - kept, this.#sizeHint - this.#position);
    const read = readSync(this.#fd, this.#buffer, kept, wanted, this.#position);
    if (read === 0) {
      this.failed = true; // the file shrank under the scan
      return false;
    }
    this.#position += read;
    this.#filled += read;
    const fresh = this.#buffer.subarray(kept, this.#filled);
    const newline = fresh.indexOf(0x0a);
    if (newline !== -1) {
      this.#end(kept, kept + newline, kept + newline + 1);
    } else {
      this.bytes = this.#buffer.subarray(0, this.#filled);
      this.#utf8.push(fresh, false);
    }
    if (this.lineBytes > this.#maxLineBytes) this.failed = true;
    return true;
  }

  /** The line ends at `end` in the buffer (its bytes from `unchecked` on are new); the next lines' start at `restFrom`. */
  #end(unchecked: number, end: number, restFrom: number): void {
    this.bytes = this.#buffer.subarray(0, end);
    this.#utf8.push(this.#buffer.subarray(unchecked, end), true);
    this.rest = restFrom < this.#filled ? this.#buffer.subarray(restFrom, this.#filled) : null;
    this.#ended = true;
  }
}
