/**
 * A bounded in-memory cache of object blocks, shared by every reader of one or more sources.
 *
 * Entries are keyed by source, object key, validator and block number, so a changed object
 * (new ETag) can never be served from the old version's blocks: they simply stop being
 * asked for and age out. Bytes are counted exactly and capped; least recently used blocks
 * go first. Nothing is ever written to disk.
 */

export interface RangeCacheOptions {
  /** Most bytes held (default 64 MiB; 0 disables caching). */
  readonly maxBytes?: number;
}

export const DEFAULT_RANGE_CACHE_BYTES = 64 * 1024 * 1024;

export class RangeCache {
  readonly maxBytes: number;
  private readonly blocks = new Map<string, Uint8Array>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(options: RangeCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_RANGE_CACHE_BYTES;
  }

  static entryKey(source: string, key: string, etag: string, block: number): string {
    return `${RangeCache.objectPrefix(source, key)}${etag}\u0000${block}`;
  }

  /** What the entry keys of every version and block of one object start with. */
  static objectPrefix(source: string, key: string): string {
    return `${source}\u0000${key}\u0000`;
  }

  get(entry: string): Uint8Array | undefined {
    const bytes = this.blocks.get(entry);
    if (bytes === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Map iteration order is insertion order: re-inserting marks the block most recently used.
    this.blocks.delete(entry);
    this.blocks.set(entry, bytes);
    return bytes;
  }

  /** Whether `entry` is held (without counting a hit or refreshing it). */
  has(entry: string): boolean {
    return this.blocks.has(entry);
  }

  set(entry: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.maxBytes) return;
    const previous = this.blocks.get(entry);
    if (previous !== undefined) {
      this.bytes -= previous.byteLength;
      this.blocks.delete(entry);
    }
    this.blocks.set(entry, bytes);
    this.bytes += bytes.byteLength;
    for (const [oldest, old] of this.blocks) {
      if (this.bytes <= this.maxBytes) break;
      this.blocks.delete(oldest);
      this.bytes -= old.byteLength;
    }
  }

  /** Drops every block of `key` in `source` (all versions): after a change was seen. */
  forget(source: string, key: string): void {
    const prefix = RangeCache.objectPrefix(source, key);
    for (const [entry, bytes] of this.blocks) {
      if (!entry.startsWith(prefix)) continue;
      this.blocks.delete(entry);
      this.bytes -= bytes.byteLength;
    }
  }

  clear(): void {
    this.blocks.clear();
    this.bytes = 0;
  }

  get stats(): { readonly bytes: number; readonly blocks: number; readonly hits: number; readonly misses: number } {
    return { bytes: this.bytes, blocks: this.blocks.size, hits: this.hits, misses: this.misses };
  }
}
