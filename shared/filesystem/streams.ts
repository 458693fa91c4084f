/**
 * Streaming access (conformance 3.12) built once over any driver: a byte reader that reads
 * ranges on demand, a writer whose bytes land atomically when it is closed, and a UTF-8 text
 * reader on top of the byte reader.
 */
import { InvalidArgumentError } from "../errors.js";
import type { ByteReader, ByteWriter, TextReader, WriteMode, WriteResult } from "./protocol.js";

const DEFAULT_CHUNK = 64 * 1024;

function closedError(what: string, path: string): InvalidArgumentError {
  return new InvalidArgumentError(`I/O operation on closed ${what}: ${path}`, { path, reason: "closed" });
}

function checkChunkSize(size: number): void {
  if (!Number.isInteger(size) || size <= 0) throw new InvalidArgumentError(`chunk size must be a positive integer, got ${size}`);
}

export class RangeByteReader implements ByteReader {
  private offset = 0;
  private isClosed = false;

  constructor(
    readonly path: string,
    readonly size: number,
    private readonly readRange: (offset: number, length: number) => Promise<Uint8Array>,
  ) {}

  get position(): number {
    if (this.isClosed) throw closedError("reader", this.path);
    return this.offset;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  async read(size?: number): Promise<Uint8Array> {
    if (this.isClosed) throw closedError("reader", this.path);
    if (size !== undefined && (!Number.isInteger(size) || size < 0)) throw new InvalidArgumentError(`size must be a non-negative integer, got ${size}`);
    const wanted = Math.max(0, Math.min(size ?? this.size - this.offset, this.size - this.offset));
    if (wanted === 0) return new Uint8Array(0);
    const data = await this.readRange(this.offset, wanted);
    this.offset += data.length;
    return data;
  }

  async seek(offset: number, whence: 0 | 1 | 2 = 0): Promise<number> {
    if (this.isClosed) throw closedError("reader", this.path);
    let base: number;
    if (whence === 0) base = 0;
    else if (whence === 1) base = this.offset;
    else if (whence === 2) base = this.size;
    else throw new InvalidArgumentError(`Invalid whence ${String(whence)}: expected 0 (start), 1 (current) or 2 (end)`, { whence });
    const target = base + offset;
    if (!Number.isInteger(target) || target < 0) throw new InvalidArgumentError(`Cannot seek to negative position ${target}`, { offset, whence });
    this.offset = target;
    return target;
  }

  async *chunks(size = DEFAULT_CHUNK): AsyncIterable<Uint8Array> {
    checkChunkSize(size);
    for (;;) {
      const chunk = await this.read(size);
      if (chunk.length === 0) return;
      yield chunk;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.chunks()[Symbol.asyncIterator]();
  }

  async close(): Promise<void> {
    this.isClosed = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

const encoder = new TextEncoder();

/**
 * Collects bytes and hands them to `commit` once, on `close()`; the driver's write is atomic,
 * so an aborted or failed writer never leaves a partial file.
 */
export class BufferedByteWriter implements ByteWriter {
  private parts: Uint8Array[] = [];
  private total = 0;
  private state: "open" | "closed" | "aborted" = "open";
  private result: WriteResult | null = null;

  constructor(
    readonly path: string,
    readonly mode: WriteMode,
    private readonly maxBytes: number,
    private readonly commit: (data: Uint8Array) => Promise<WriteResult>,
  ) {}

  get bytesWritten(): number {
    return this.total;
  }

  get closed(): boolean {
    return this.state !== "open";
  }

  async write(data: Uint8Array | string): Promise<number> {
    if (this.state !== "open") throw closedError("writer", this.path);
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    if (this.total + bytes.length > this.maxBytes) {
      throw new InvalidArgumentError(`Content exceeds maximum of ${this.maxBytes} bytes: ${this.path}`, { path: this.path, limit: this.maxBytes });
    }
    this.parts.push(bytes.slice());
    this.total += bytes.length;
    return bytes.length;
  }

  async writeAll(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<number> {
    let written = 0;
    for await (const chunk of chunks) written += await this.write(chunk);
    return written;
  }

  async close(): Promise<WriteResult> {
    if (this.state === "closed" && this.result !== null) return this.result;
    if (this.state === "aborted") throw closedError("writer", this.path);
    const data = new Uint8Array(this.total);
    let at = 0;
    for (const part of this.parts) {
      data.set(part, at);
      at += part.length;
    }
    this.parts = [];
    this.state = "closed";
    this.result = await this.commit(data);
    return this.result;
  }

  async abort(): Promise<void> {
    if (this.state !== "open") return;
    this.parts = [];
    this.state = "aborted";
  }

  /** `await using` commits; to discard after an error call `abort()` first (see `withWriter`). */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.state === "open") await this.close();
  }
}

/** UTF-8 text over a byte reader; lines keep their "\n". */
export class Utf8TextReader implements TextReader {
  readonly encoding = "utf-8" as const;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  private buffer = "";
  private eof = false;
  private lines_ = 0;

  constructor(private readonly bytes: ByteReader) {}

  get path(): string {
    return this.bytes.path;
  }

  get lineNumber(): number {
    return this.lines_;
  }

  get closed(): boolean {
    return this.bytes.closed;
  }

  private decode(chunk: Uint8Array, final: boolean): string {
    try {
      return this.decoder.decode(chunk, { stream: !final });
    } catch {
      throw new InvalidArgumentError(`Cannot read ${this.path} as text: not valid UTF-8; use openRead() instead`, { path: this.path, reason: "binary" });
    }
  }

  private async fill(): Promise<boolean> {
    if (this.bytes.closed) throw closedError("text reader", this.path);
    if (this.eof) return false;
    const chunk = await this.bytes.read(DEFAULT_CHUNK);
    if (chunk.length === 0) {
      this.eof = true;
      this.buffer += this.decode(new Uint8Array(0), true);
      return false;
    }
    this.buffer += this.decode(chunk, false);
    return true;
  }

  async read(): Promise<string> {
    while (await this.fill());
    const text = this.buffer;
    this.buffer = "";
    return text;
  }

  async readline(): Promise<string> {
    for (;;) {
      const newline = this.buffer.indexOf("\n");
      if (newline !== -1) {
        const line = this.buffer.slice(0, newline + 1);
        this.buffer = this.buffer.slice(newline + 1);
        this.lines_++;
        return line;
      }
      if (!(await this.fill())) {
        const rest = this.buffer;
        this.buffer = "";
        if (rest !== "") this.lines_++;
        return rest;
      }
    }
  }

  async *lines(options: { strip?: boolean } = {}): AsyncIterable<string> {
    for (;;) {
      const line = await this.readline();
      if (line === "") return;
      yield options.strip ? line.replace(/\s+$/, "") : line;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return this.lines()[Symbol.asyncIterator]();
  }

  async close(): Promise<void> {
    await this.bytes.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Run `body` with a writer and commit it when `body` succeeds; abort it (leaving the target
 * untouched) when `body` throws. The `with open_write(...)` of the original.
 */
export async function withWriter<T>(writer: ByteWriter, body: (writer: ByteWriter) => Promise<T>): Promise<T> {
  let value: T;
  try {
    value = await body(writer);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.close();
  return value;
}
