/**
 * `Source`: what the viewer reads through, over any driver. Shared behaviour lives here,
 * once: key and range checks, a time budget per request (until the answer, then between
 * chunks of the body), bounded retries with jittered backoff for throttling and dropped
 * connections, counting every body against what the store announced (a short body is
 * `E_SOURCE_TRUNCATED`, never silently short data), pinning a version by its validator
 * (`E_SOURCE_CHANGED` rather than bytes of two versions), and the random-access readers with
 * their shared block cache.
 */
import { SourceError, WinkError } from "../errors.js";
import type { ByteRange, DriverBody, ListPage, ObjectInfo, SourceDriver } from "./driver.js";
import type { BlockStore } from "./block-store.js";
import type { ReadGate } from "./read-gate.js";
import { checkKey, checkPrefix } from "./keys.js";
import { RangeCache } from "./range-cache.js";
import { RandomAccessReader, type ReaderOptions } from "./random-access-reader.js";
import { checkRange, describeRange } from "./ranges.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelay, sleep } from "./retry.js";

export interface SourceOptions {
  /** Budget per request: until the store answers, then between two chunks of its body (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * The slowest transfer a read may be (default 16 KiB/s): a read must end within
   * `timeoutMs` plus its length at this rate, however steadily the store drips its bytes
   * (the budget between chunks alone never ends a body sent one byte a second).
   */
  readonly minBytesPerSecond?: number;
  readonly retry?: RetryPolicy;
  /** The block cache readers share (default: a new 64 MiB cache for this source). */
  readonly cache?: RangeCache;
  /**
   * Blocks kept between processes (a `DiskBlockCache`, the CLI's `--cache-dir`): readers look
   * there before asking the store, and `open` with `tail` revalidates a stored tail with
   * `If-None-Match` instead of reading it again. None by default: nothing is written.
   */
  readonly disk?: BlockStore;
  /** Largest single `read` (default 256 MiB); stream larger ranges. */
  readonly maxReadBytes?: number;
  /** Jitter source (tests pin it). */
  readonly random?: () => number;
  /**
   * Bounds the bytes `read` holds at once (a `ByteGate`): a read waits for its turn before
   * it asks the store, and holds its range until it has returned it. None by default.
   */
  readonly gate?: ReadGate;
}

export interface SourceListOptions {
  readonly delimiter?: "/";
  readonly cursor?: string;
  /** Objects plus prefixes per page (default 1,000, S3's maximum). */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface SourceReadOptions extends CallOptions {
  /** The version the caller holds (from `stat`, a listing or an earlier read). */
  readonly etag?: string | null;
}

/** Bytes of one range and the version they belong to. */
export interface RangeRead {
  readonly bytes: Uint8Array;
  readonly offset: number;
  /** Size of the whole object. */
  readonly size: number;
  readonly etag: string | null;
  readonly mtimeMs: number | null;
}

/** A ranged body being streamed: the version at once, the bytes as they come (counted, resumed when cut). */
export type RangeStream = DriverBody;

/** What this source asked of its store, for benchmarks and tests. */
export interface SourceStats {
  requests: number;
  bytesReceived: number;
  retries: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MIN_BYTES_PER_SECOND = 16 * 1024;
const DEFAULT_LIST_LIMIT = 1000;
const DEFAULT_MAX_READ_BYTES = 256 * 1024 * 1024;

class TimeoutMarker extends Error {}
class DeadlineMarker extends Error {}

/**
 * One attempt's abort controller: the caller's signal, a re-armable time budget, and once
 * the body's length is known a total deadline for it (its clock stops, like the budget's,
 * while the consumer holds a chunk).
 */
class Attempt {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  /** Store time left to the deadline, and since when it runs (null: stopped or none). */
  private deadlineLeftMs: number | null = null;
  private deadlineSince: number | null = null;
  private finished = false;
  private readonly unlink: () => void;

  constructor(
    private readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    const onAbort = (): void => this.controller.abort(caller?.reason);
    if (caller?.aborted) onAbort();
    caller?.addEventListener("abort", onAbort, { once: true });
    this.unlink = () => caller?.removeEventListener("abort", onAbort);
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.controller.signal.reason instanceof TimeoutMarker;
  }

  get pastDeadline(): boolean {
    return this.controller.signal.reason instanceof DeadlineMarker;
  }

  /** Starts the total deadline: the body must be in within `ms` of store time. */
  limit(ms: number): void {
    this.deadlineLeftMs = ms;
    this.runDeadline();
  }

  private runDeadline(): void {
    clearTimeout(this.deadlineTimer);
    if (this.finished || this.deadlineLeftMs === null) return;
    this.deadlineSince = Date.now();
    this.deadlineTimer = setTimeout(() => this.controller.abort(new DeadlineMarker()), Math.max(0, this.deadlineLeftMs));
  }

  private stopDeadline(): void {
    clearTimeout(this.deadlineTimer);
    if (this.deadlineLeftMs !== null && this.deadlineSince !== null) this.deadlineLeftMs -= Date.now() - this.deadlineSince;
    this.deadlineSince = null;
  }

  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  /** Restart the budget (called on every chunk of a body). */
  arm(): void {
    clearTimeout(this.timer);
    if (this.finished) return;
    this.timer = setTimeout(() => this.controller.abort(new TimeoutMarker()), this.timeoutMs);
    if (this.deadlineSince === null) this.runDeadline();
  }

  pause(): void {
    clearTimeout(this.timer);
    this.stopDeadline();
  }

  done(): void {
    this.finished = true;
    clearTimeout(this.timer);
    clearTimeout(this.deadlineTimer);
    this.unlink();
  }
}

export class Source {
  readonly stats: SourceStats = { requests: 0, bytesReceived: 0, retries: 0 };
  readonly cache: RangeCache;
  readonly disk: BlockStore | null;
  private readonly timeoutMs: number;
  private readonly minBytesPerSecond: number;
  private readonly retry: RetryPolicy;
  private readonly maxReadBytes: number;
  private readonly random: () => number;
  private readonly gate: ReadGate | null;

  constructor(
    readonly driver: SourceDriver,
    options: SourceOptions = {},
  ) {
    this.cache = options.cache ?? new RangeCache();
    this.disk = options.disk ?? null;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.minBytesPerSecond = options.minBytesPerSecond ?? DEFAULT_MIN_BYTES_PER_SECOND;
    if (!(this.timeoutMs > 0) || !(this.minBytesPerSecond > 0)) {
      throw new SourceError("E_SOURCE_INVALID", `The time budget and the slowest rate must be positive (got ${this.timeoutMs} ms, ${this.minBytesPerSecond} B/s)`, { reason: "timeout" });
    }
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    this.random = options.random ?? Math.random;
    this.gate = options.gate ?? null;
  }

  /** The root as shown to people (no credentials). */
  get location(): string {
    return this.driver.location;
  }

  describe(key: string): string {
    return this.driver.describe(key);
  }

  /** One page of the objects (and, with a delimiter, folders) whose keys start with `prefix`. */
  list(prefix: string, options: SourceListOptions = {}): Promise<ListPage> {
    checkPrefix(prefix);
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new SourceError("E_SOURCE_INVALID", `Invalid listing page size ${limit}`, { reason: "limit" });
    return this.withRetries(this.describe(prefix), undefined, options.signal, (attempt) =>
      this.driver.list(prefix, {
        limit,
        signal: attempt.signal,
        ...(options.delimiter === undefined ? {} : { delimiter: options.delimiter }),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      }),
    );
  }

  /** Every page of a listing, one after another. */
  async *listPages(prefix: string, options: Omit<SourceListOptions, "cursor"> = {}): AsyncGenerator<ListPage> {
    let cursor: string | undefined;
    do {
      const page = await this.list(prefix, { ...options, ...(cursor === undefined ? {} : { cursor }) });
      yield page;
      cursor = page.cursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Size, validator and mtime of one object; `E_SOURCE_NOT_FOUND` when it is missing. */
  async stat(key: string, options: CallOptions = {}): Promise<ObjectInfo> {
    checkKey(key);
    const info = await this.withRetries(this.describe(key), key, options.signal, (attempt) => this.driver.stat(key, { signal: attempt.signal }));
    if (info === null) throw new SourceError("E_SOURCE_FAILED", `${this.describe(key)}: the store answered "not modified" to a plain stat`, { url: this.describe(key), key });
    return info;
  }

  /**
   * Asks the store whether `info` is still current (If-None-Match / If-Modified-Since):
   * null when it is, else the object's new info.
   */
  async revalidate(info: ObjectInfo, options: CallOptions = {}): Promise<ObjectInfo | null> {
    checkKey(info.key);
    return this.withRetries(this.describe(info.key), info.key, options.signal, (attempt) =>
      this.driver.stat(info.key, { signal: attempt.signal, ...(info.etag === null ? {} : { ifNoneMatch: info.etag }) }),
    );
  }

  /** The bytes of `range`, all of them or an error: short bodies are retried, then `E_SOURCE_TRUNCATED`. */
  async read(key: string, range: ByteRange, options: SourceReadOptions = {}): Promise<RangeRead> {
    checkKey(key);
    checkRange(range);
    const url = this.describe(key);
    // Waiting for the gate is not the store's time: the budget starts once the read may go.
    const release = this.gate === null ? null : await this.gate.acquire("suffix" in range ? range.suffix : range.length, options.signal);
    try {
      return await this.readHeld(key, range, options, url);
    } finally {
      release?.();
    }
  }

  private readHeld(key: string, range: ByteRange, options: SourceReadOptions, url: string): Promise<RangeRead> {
    return this.withRetries(url, key, options.signal, async (attempt) => {
      const body = await this.driver.read(key, range, { signal: attempt.signal, ...(options.etag === undefined ? {} : { etag: options.etag }) });
      this.checkVersion(body, options.etag, url, key);
      attempt.limit(this.deadlineFor(body.length));
      if (body.length > this.maxReadBytes) {
        body.cancel();
        throw new SourceError("E_SOURCE_LIMIT", `Refusing to read ${body.length} bytes of ${url} at once (limit ${this.maxReadBytes}); stream it`, { url, key, limit: this.maxReadBytes });
      }
      const bytes = new Uint8Array(body.length);
      let received = 0;
      for await (const chunk of this.counted(body, attempt, url, key, range)) {
        bytes.set(chunk, received);
        received += chunk.byteLength;
      }
      return { bytes, offset: body.offset, size: body.size, etag: body.etag, mtimeMs: body.mtimeMs };
    });
  }

  /**
   * Streams `range` without holding it: for scans (a line index) and large members. The
   * version is pinned by the first answer; a connection cut mid-body resumes where it
   * stopped (with If-Range, so never with another version's bytes), within the retry budget.
   */
  async stream(key: string, range: ByteRange, options: SourceReadOptions = {}): Promise<RangeStream> {
    checkKey(key);
    checkRange(range);
    const url = this.describe(key);
    const first = await this.openBody(key, range, options.etag, options.signal);
    try {
      this.checkVersion(first.body, options.etag, url, key);
    } catch (error) {
      first.attempt.done();
      throw error;
    }
    const state = { current: first };
    const { body } = first;
    return {
      offset: body.offset,
      length: body.length,
      size: body.size,
      etag: body.etag,
      mtimeMs: body.mtimeMs,
      chunks: this.resumingChunks(state, key, url, range, options.signal),
      cancel: () => {
        state.current.body.cancel();
        state.current.attempt.done();
      },
    };
  }

  /** The chunks of a stream; a cut resumes after the last byte received, pinned to the first answer's version. */
  private async *resumingChunks(state: { current: { body: DriverBody; attempt: Attempt } }, key: string, url: string, range: ByteRange, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
    const { body } = state.current;
    let received = 0;
    let resumes = 0;
    let complete = false;
    try {
      for (;;) {
        try {
          const rest = received === 0 ? range : { offset: body.offset + received, length: body.length - received };
          for await (const chunk of this.counted(state.current.body, state.current.attempt, url, key, rest)) {
            received += chunk.byteLength;
            yield chunk;
          }
          complete = true;
          return;
        } catch (error) {
          const canResume = error instanceof SourceError && error.code === "E_SOURCE_TRUNCATED" && body.etag !== null && resumes + 1 < this.retry.attempts;
          if (!canResume) throw error;
          state.current.attempt.done();
          resumes++;
          this.stats.retries++;
          state.current = await this.openBody(key, { offset: body.offset + received, length: body.length - received }, body.etag, signal);
        }
      }
    } finally {
      state.current.attempt.done();
      if (!complete) state.current.body.cancel();
    }
  }

  /**
   * A random-access reader over one version of `key` (see `RandomAccessReader`). With
   * `tail`, the first request reads the object's last `tail` bytes (a ZIP reader's end
   * record and often its whole central directory) instead of a separate stat.
   */
  async open(key: string, options: ReaderOptions & CallOptions & { readonly tail?: number } = {}): Promise<RandomAccessReader> {
    if (options.tail !== undefined) {
      const stored = this.disk === null ? null : await this.storedTail(key, options.tail, options);
      if (stored !== null) return new RandomAccessReader(this, stored.info, options, stored.pinned);
      const tail = await this.read(key, { suffix: options.tail }, options);
      const info = { key, size: tail.size, etag: tail.etag, mtimeMs: tail.mtimeMs };
      if (this.disk !== null && tail.etag !== null) this.disk.put(this.tailIdentity(key, options.tail), encodeTail(info, tail.offset, tail.bytes));
      return new RandomAccessReader(this, info, options, { offset: tail.offset, bytes: tail.bytes });
    }
    return new RandomAccessReader(this, await this.stat(key, options), options, null);
  }

  /** A tail the disk cache holds, if the store says (304 to `If-None-Match`) that its version is still current. */
  private async storedTail(key: string, tail: number, options: CallOptions): Promise<{ info: ObjectInfo; pinned: { offset: number; bytes: Uint8Array } } | null> {
    const record = decodeTail(key, await (this.disk as BlockStore).get(this.tailIdentity(key, tail)));
    if (record === null) return null;
    // A store that ignores If-None-Match answers with the object's info: the same ETag and size is the same version.
    const current = await this.revalidate(record.info, options);
    if (current !== null && (current.etag !== record.info.etag || current.size !== record.info.size)) return null;
    return record;
  }

  private tailIdentity(key: string, tail: number): string {
    return `tail\u0000${this.location}\u0000${key}\u0000${tail}`;
  }

  async close(): Promise<void> {
    await this.disk?.flush();
    await this.driver.close?.();
  }

  private checkVersion(body: DriverBody, expected: string | null | undefined, url: string, key: string): void {
    if (expected == null || body.etag === expected) return;
    body.cancel();
    this.cache.forget(this.location, key);
    throw new SourceError("E_SOURCE_CHANGED", `${url} changed since it was opened (ETag ${body.etag ?? "none"}, expected ${expected}); reopen it`, {
      url,
      key,
      expected,
      actual: body.etag,
    });
  }

  /** Opens a body within the retry budget; its attempt (time budget) stays armed for the body. */
  private async openBody(key: string, range: ByteRange, etag: string | null | undefined, signal: AbortSignal | undefined): Promise<{ body: DriverBody; attempt: Attempt }> {
    let opened: Attempt | null = null;
    const body = await this.withRetries(
      this.describe(key),
      key,
      signal,
      async (attempt) => {
        const answer = await this.driver.read(key, range, { signal: attempt.signal, ...(etag === undefined ? {} : { etag }) });
        attempt.limit(this.deadlineFor(answer.length));
        opened = attempt;
        return answer;
      },
      true,
    );
    return { body, attempt: opened as unknown as Attempt };
  }

  /** How long a body of `length` bytes may take: the budget, plus its length at the slowest rate allowed. */
  private deadlineFor(length: number): number {
    return this.timeoutMs + Math.ceil((length * 1000) / this.minBytesPerSecond);
  }

  /** A body's chunks, counted: the time budget restarts per chunk; a short or cut body is `E_SOURCE_TRUNCATED`. */
  private async *counted(body: DriverBody, attempt: Attempt, url: string, key: string, range: ByteRange): AsyncGenerator<Uint8Array> {
    let received = 0;
    try {
      for await (const chunk of body.chunks) {
        attempt.arm();
        if (received + chunk.byteLength > body.length) {
          throw new SourceError("E_SOURCE_FAILED", `${url} sent more than the ${body.length} bytes it announced for ${describeRange(range)}`, { url, key });
        }
        received += chunk.byteLength;
        this.stats.bytesReceived += chunk.byteLength;
        // The budget is the store's, not the consumer's: it does not run while we yield.
        attempt.pause();
        yield chunk;
        attempt.arm();
      }
    } catch (error) {
      body.cancel();
      if (error instanceof SourceError) throw error;
      if (attempt.callerAborted) throw attempt.signal.reason;
      if (attempt.pastDeadline) {
        // Not retried: a store this slow for this object is likely as slow again; the
        // caller (a view, the run list) says so instead of waiting on it.
        throw new SourceError("E_SOURCE_TIMEOUT", `${url} sent only ${received} of ${body.length} bytes in ${this.deadlineFor(body.length)} ms (slower than ${this.minBytesPerSecond} B/s)`, {
          url,
          key,
          received,
          expected: body.length,
          reason: "too-slow",
          retryable: false,
        });
      }
      if (attempt.timedOut) {
        throw new SourceError("E_SOURCE_TIMEOUT", `${url} stopped sending for ${this.timeoutMs} ms after ${received} of ${body.length} bytes`, { url, key, received, expected: body.length });
      }
      throw this.truncated(url, key, received, body.length, error);
    }
    if (received < body.length) throw this.truncated(url, key, received, body.length, null);
  }

  private truncated(url: string, key: string, received: number, expected: number, cause: unknown): SourceError {
    const how = cause === null ? "the body ended" : "the connection was cut";
    return new SourceError("E_SOURCE_TRUNCATED", `${url}: ${how} after ${received} of ${expected} bytes`, { url, key, received, expected, retryable: true });
  }

  /**
   * Runs `request` with a time budget, retrying retryable failures with backoff. With
   * `keepOpen`, the successful attempt's budget is left armed for the body that follows.
   */
  private async withRetries<T>(url: string, key: string | undefined, signal: AbortSignal | undefined, request: (attempt: Attempt) => Promise<T>, keepOpen = false): Promise<T> {
    for (let number = 1; ; number++) {
      signal?.throwIfAborted();
      const attempt = new Attempt(this.timeoutMs, signal);
      let succeeded = false;
      try {
        this.stats.requests++;
        const result = await request(attempt);
        succeeded = true;
        return result;
      } catch (caught) {
        const error = this.classify(caught, attempt, url, key);
        if (error.code === "E_SOURCE_CHANGED" && key !== undefined) this.cache.forget(this.location, key);
        const delay = error.retryable ? retryDelay(this.retry, number, typeof error.data.retryAfterMs === "number" ? error.data.retryAfterMs : null, this.random) : null;
        if (delay === null) throw this.final(error, number);
        this.stats.retries++;
        await sleep(delay, signal);
      } finally {
        if (!(succeeded && keepOpen)) attempt.done();
      }
    }
  }

  /** Any failure of an attempt as a source error (the caller's own abort passes through). */
  private classify(error: unknown, attempt: Attempt, url: string, key: string | undefined): SourceError {
    if (attempt.callerAborted) throw attempt.signal.reason;
    if (attempt.timedOut) {
      return new SourceError("E_SOURCE_TIMEOUT", `No answer from the store for ${url} within ${this.timeoutMs} ms`, { url, ...(key === undefined ? {} : { key }), timeoutMs: this.timeoutMs });
    }
    if (error instanceof SourceError) return error;
    const detail = error instanceof WinkError || error instanceof Error ? error.message : String(error);
    return new SourceError("E_SOURCE_FAILED", `Reading ${url} failed: ${detail}`, { url, ...(key === undefined ? {} : { key }) });
  }

  /** The error a caller sees: after retries, it says how many attempts were made. */
  private final(error: SourceError, attempts: number): SourceError {
    if (attempts === 1) return error;
    return new SourceError(error.code as ConstructorParameters<typeof SourceError>[0], `${error.message} (gave up after ${attempts} attempts)`, { ...error.data, attempts });
  }
}

/** A stored tail: its version (ETag, size, mtime) as JSON after its length, then the bytes. */
function encodeTail(info: ObjectInfo, offset: number, bytes: Uint8Array): Uint8Array {
  const header = new TextEncoder().encode(JSON.stringify({ etag: info.etag, size: info.size, mtimeMs: info.mtimeMs, offset }));
  const out = new Uint8Array(4 + header.byteLength + bytes.byteLength);
  new DataView(out.buffer).setUint32(0, header.byteLength);
  out.set(header, 4);
  out.set(bytes, 4 + header.byteLength);
  return out;
}

function decodeTail(key: string, stored: Uint8Array | null): { info: ObjectInfo; pinned: { offset: number; bytes: Uint8Array } } | null {
  if (stored === null || stored.byteLength < 4) return null;
  const length = new DataView(stored.buffer, stored.byteOffset, stored.byteLength).getUint32(0);
  if (4 + length > stored.byteLength) return null;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(stored.subarray(4, 4 + length)));
  } catch {
    return null;
  }
  const { etag, size, mtimeMs, offset } = (header ?? {}) as Record<string, unknown>;
  const bytes = stored.subarray(4 + length);
  if (typeof etag !== "string" || !Number.isSafeInteger(size) || !Number.isSafeInteger(offset) || (mtimeMs !== null && typeof mtimeMs !== "number")) return null;
  if ((offset as number) + bytes.byteLength !== size) return null;
  return { info: { key, etag, size: size as number, mtimeMs: mtimeMs as number | null }, pinned: { offset: offset as number, bytes } };
}

export function createSource(driver: SourceDriver, options?: SourceOptions): Source {
  return new Source(driver, options);
}
