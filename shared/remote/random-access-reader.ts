/**
 * Random access to one version of one object: `read(offset, length)` the way a ZIP reader
 * uses a file descriptor (end record, central directory, then members), over ranged requests.
 *
 * - Reads are cut into fixed blocks kept in the source's shared `RangeCache`, keyed by the
 *   version's validator; missing neighbouring blocks are fetched in one request, and
 *   concurrent reads of the same blocks share one request (coalescing).
 * - Sequential reads (each starting where the last ended) grow a read-ahead window, so
 *   streaming a member costs a few larger requests rather than many small ones.
 * - Every request carries the version's validator: if the object changes, reads fail with
 *   `E_SOURCE_CHANGED` and the caller reopens; bytes of two versions are never combined.
 * - With a disk cache (`SourceOptions.disk`), blocks missing from memory are looked for there
 *   (same version only) before the store is asked, and blocks fetched are stored there.
 * - Reads larger than `maxCachedReadBytes` go straight to the store and are not cached, so
 *   one large member cannot flush everything else.
 */
import { SourceError } from "../errors.js";
import type { BlockStore } from "./block-store.js";
import type { ByteRange, ObjectInfo } from "./driver.js";
import { RangeCache } from "./range-cache.js";

export interface ReaderOptions {
  /** Cache block size (default 64 KiB). */
  readonly blockBytes?: number;
  /** Largest read-ahead window for sequential reads (default 1 MiB). */
  readonly maxReadAheadBytes?: number;
  /** Larger reads bypass the cache (default 8 MiB). */
  readonly maxCachedReadBytes?: number;
}

/**
 * What a reader asks of the source that opened it (`Source` in source.ts): its cache, its
 * disk cache and its ranged reads. Named here so that the reader does not import the module
 * that opens readers.
 */
export interface ReaderSource {
  readonly location: string;
  readonly cache: RangeCache;
  readonly disk: BlockStore | null;
  describe(key: string): string;
  read(key: string, range: ByteRange, options: { readonly etag?: string | null }): Promise<{ readonly bytes: Uint8Array; readonly size: number }>;
}

const DEFAULT_BLOCK_BYTES = 64 * 1024;
const DEFAULT_MAX_READ_AHEAD_BYTES = 1024 * 1024;
const DEFAULT_MAX_CACHED_READ_BYTES = 8 * 1024 * 1024;

let uncachedVersions = 0;

export class RandomAccessReader {
  readonly key: string;
  readonly size: number;
  readonly etag: string | null;
  readonly mtimeMs: number | null;
  private readonly blockBytes: number;
  private readonly maxReadAheadBlocks: number;
  private readonly maxCachedReadBytes: number;
  /** Cache identity of this version; without a validator, private to this reader. */
  private readonly version: string;
  private readonly inflight = new Map<number, Promise<Uint8Array>>();
  private lastEnd = -1;
  private readAheadBlocks = 0;

  constructor(
    private readonly source: ReaderSource,
    info: ObjectInfo,
    options: ReaderOptions,
    /** Bytes already read (the tail `open` fetched), served without a request. */
    private readonly pinned: { readonly offset: number; readonly bytes: Uint8Array } | null,
  ) {
    this.key = info.key;
    this.size = info.size;
    this.etag = info.etag;
    this.mtimeMs = info.mtimeMs;
    this.blockBytes = options.blockBytes ?? DEFAULT_BLOCK_BYTES;
    this.maxReadAheadBlocks = Math.floor((options.maxReadAheadBytes ?? DEFAULT_MAX_READ_AHEAD_BYTES) / this.blockBytes);
    this.maxCachedReadBytes = options.maxCachedReadBytes ?? DEFAULT_MAX_CACHED_READ_BYTES;
    this.version = info.etag ?? `(no validator ${++uncachedVersions})`;
  }

  /** Exactly `length` bytes at `offset` of this version (the range must lie inside the object). */
  async read(offset: number, length: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > this.size) {
      throw new SourceError("E_SOURCE_INVALID", `Cannot read ${length} bytes at offset ${offset} of ${this.source.describe(this.key)} (${this.size} bytes)`, {
        url: this.source.describe(this.key),
        key: this.key,
        reason: "range-outside-object",
      });
    }
    if (length === 0) return new Uint8Array(0);
    const pinned = this.pinned;
    if (pinned !== null && offset >= pinned.offset && offset + length <= pinned.offset + pinned.bytes.byteLength) {
      return pinned.bytes.subarray(offset - pinned.offset, offset - pinned.offset + length);
    }
    const sequential = offset === this.lastEnd;
    this.lastEnd = offset + length;
    this.readAheadBlocks = sequential ? Math.min(this.maxReadAheadBlocks, Math.max(1, this.readAheadBlocks * 2)) : 0;
    if (length > this.maxCachedReadBytes) return this.fetch(offset, length);

    const first = Math.floor(offset / this.blockBytes);
    const last = Math.floor((offset + length - 1) / this.blockBytes);
    const lastBlock = Math.floor((this.size - 1) / this.blockBytes);
    // Read ahead only when the read itself misses: fetching just the next block on every
    // sequential read would turn the window into one small request per call.
    const misses = this.anyMissing(first, last);
    const blocks = this.blocks(first, misses ? Math.min(lastBlock, last + this.readAheadBlocks) : last);
    const out = new Uint8Array(length);
    for (let block = first; block <= last; block++) {
      const bytes = await (blocks.get(block) as Promise<Uint8Array>);
      const blockStart = block * this.blockBytes;
      const from = Math.max(offset, blockStart);
      const to = Math.min(offset + length, blockStart + bytes.byteLength);
      out.set(bytes.subarray(from - blockStart, to - blockStart), from - offset);
    }
    return out;
  }

  private anyMissing(first: number, last: number): boolean {
    for (let block = first; block <= last; block++) {
      if (this.inflight.has(block)) continue;
      if (!this.source.cache.has(RangeCache.entryKey(this.source.location, this.key, this.version, block))) return true;
    }
    return false;
  }

  /** Promises for blocks first..last: cached, already being fetched, or fetched now in runs of neighbours. */
  private blocks(first: number, last: number): Map<number, Promise<Uint8Array>> {
    const result = new Map<number, Promise<Uint8Array>>();
    let runStart = -1;
    const flush = (end: number): void => {
      if (runStart === -1) return;
      const run = this.fetchRun(runStart, end);
      for (const [block, promise] of run) result.set(block, promise);
      runStart = -1;
    };
    for (let block = first; block <= last; block++) {
      const cached = this.source.cache.get(RangeCache.entryKey(this.source.location, this.key, this.version, block));
      const pending = cached === undefined ? this.inflight.get(block) : Promise.resolve(cached);
      if (pending === undefined) {
        if (runStart === -1) runStart = block;
        continue;
      }
      flush(block - 1);
      result.set(block, pending);
    }
    flush(last);
    return result;
  }

  /** One request for blocks first..last (fewer with a disk cache); each block is cached and shared while in flight. */
  private fetchRun(first: number, last: number): Map<number, Promise<Uint8Array>> {
    const disk = this.etag === null ? null : this.source.disk;
    const run = disk === null ? this.readRun(first, last) : this.readRunThroughDisk(first, last, disk);
    const promises = new Map<number, Promise<Uint8Array>>();
    for (let block = first; block <= last; block++) {
      const promise = run.then((blocks) => {
        const bytes = blocks.get(block) as Uint8Array;
        this.source.cache.set(RangeCache.entryKey(this.source.location, this.key, this.version, block), bytes);
        return bytes;
      });
      const settle = (): void => {
        if (this.inflight.get(block) === promise) this.inflight.delete(block);
      };
      promise.then(settle, settle);
      this.inflight.set(block, promise);
      promises.set(block, promise);
    }
    return promises;
  }

  /** Blocks first..last in one request to the store. */
  private async readRun(first: number, last: number): Promise<Map<number, Uint8Array>> {
    const offset = first * this.blockBytes;
    const bytes = await this.fetch(offset, Math.min(this.size, (last + 1) * this.blockBytes) - offset);
    const blocks = new Map<number, Uint8Array>();
    // One block that owns its whole buffer is cached as it came: a copy would only be garbage more.
    if (first === last && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return blocks.set(first, bytes);
    for (let block = first; block <= last; block++) {
      const start = (block - first) * this.blockBytes;
      blocks.set(block, bytes.slice(start, Math.min(bytes.byteLength, start + this.blockBytes)));
    }
    return blocks;
  }

  /** Blocks first..last from the disk cache where it has them, the rest from the store (one request per gap), then stored. */
  private async readRunThroughDisk(first: number, last: number, disk: BlockStore): Promise<Map<number, Uint8Array>> {
    const blocks = new Map<number, Uint8Array>();
    const stored = await Promise.all(Array.from({ length: last - first + 1 }, (_, index) => disk.get(this.diskIdentity(first + index))));
    const gaps: Promise<Map<number, Uint8Array>>[] = [];
    let gapStart = -1;
    for (let block = first; block <= last + 1; block++) {
      const bytes = block <= last ? stored[block - first] : undefined;
      if (bytes === null) {
        if (gapStart === -1) gapStart = block;
        continue;
      }
      if (gapStart !== -1) gaps.push(this.readRun(gapStart, block - 1));
      gapStart = -1;
      if (bytes !== undefined) blocks.set(block, bytes);
    }
    for (const fetched of await Promise.all(gaps)) {
      for (const [block, bytes] of fetched) {
        blocks.set(block, bytes);
        disk.put(this.diskIdentity(block), bytes);
      }
    }
    return blocks;
  }

  /** A block's identity in the disk cache: this version's entry key and the block size (readers may differ in it). */
  private diskIdentity(block: number): string {
    return `${RangeCache.entryKey(this.source.location, this.key, this.version, block)}\u0000${this.blockBytes}`;
  }

  /** A read of this version straight from the store. */
  private async fetch(offset: number, length: number): Promise<Uint8Array> {
    const result = await this.source.read(this.key, { offset, length }, { etag: this.etag });
    if (result.size !== this.size) {
      // Only reachable without a validator: the size is all that shows the change.
      this.source.cache.forget(this.source.location, this.key);
      throw new SourceError("E_SOURCE_CHANGED", `${this.source.describe(this.key)} changed since it was opened (${result.size} bytes, was ${this.size}); reopen it`, {
        url: this.source.describe(this.key),
        key: this.key,
        expectedSize: this.size,
        actualSize: result.size,
      });
    }
    return result.bytes;
  }
}
