/**
 * Blocks of remote objects kept in a folder the user names (`--cache-dir`), so a later
 * process reads them from disk instead of the store.
 *
 * - File names are the SHA-256 of the block's identity (source location without
 *   credentials, object key, validator, block size and number); a file holds a header (magic,
 *   the identity's hash, the payload's length and SHA-256) and the bytes, nothing else. A
 *   file whose header, length or checksum does not match is removed and reported as a miss:
 *   a torn, truncated or edited block is never served.
 * - Written atomically: a temp file (mode 0600, `wx`) renamed over the name, so a crash or a
 *   concurrent process sees the old file, the new one or none. The folder is created 0700.
 * - Size-bounded: least recently used first (a hit refreshes the file's mtime so the next
 *   process sees the recency too); the bound is applied when the folder is opened and as
 *   blocks are added. Each process bounds what it knows; another process's blocks count
 *   from when this one first reads them (or next opens the folder).
 * - A folder that cannot be created, read or written is refused when it is opened, with an
 *   error naming it; failures later (a full disk) count in `stats` and leave reads to the store.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, readdir, rename, stat, unlink, utimes } from "node:fs/promises";
import path from "node:path";
import { NotADirectoryError, PermissionDeniedError } from "../errors.js";
import type { BlockStore } from "./block-store.js";

export const DEFAULT_DISK_CACHE_BYTES = 1024 * 1024 * 1024;

const MAGIC = Buffer.from("WINKBLK1", "latin1");
const HEADER_BYTES = MAGIC.byteLength + 32 + 4 + 32;
const BLOCK_FILE = /^[0-9a-f]{64}\.blk$/;
const TEMP_PREFIX = ".tmp-";
/** Temp files older than this are left by a crashed process (a live writer renames within ms). */
const STALE_TEMP_MS = 10 * 60 * 1000;

export interface DiskBlockCacheOptions {
  /** Most bytes of block files kept (default 1 GiB). */
  readonly maxBytes?: number;
}

export interface DiskBlockCacheStats {
  bytes: number;
  files: number;
  hits: number;
  misses: number;
  writes: number;
  /** Files found damaged (wrong header, length or checksum) and removed. */
  corrupt: number;
  evicted: number;
  writeFailures: number;
}

function sha256(data: string | Uint8Array): Buffer {
  return createHash("sha256").update(data).digest();
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? ((error as { code?: unknown }).code as string | undefined) : undefined;
}

export class DiskBlockCache implements BlockStore {
  readonly maxBytes: number;
  readonly stats: DiskBlockCacheStats = { bytes: 0, files: 0, hits: 0, misses: 0, writes: 0, corrupt: 0, evicted: 0, writeFailures: 0 };
  /** File name → size, least recently used first (Map order). */
  readonly #files = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();

  private constructor(
    readonly directory: string,
    maxBytes: number,
  ) {
    this.maxBytes = maxBytes;
  }

  /**
   * Opens (creating it 0700 if needed) the folder and applies the bound to what it holds.
   * Throws `EACCES`/`ENOTDIR` errors naming the folder when it cannot be used.
   */
  static async open(directory: string, options: DiskBlockCacheOptions = {}): Promise<DiskBlockCache> {
    const maxBytes = options.maxBytes ?? DEFAULT_DISK_CACHE_BYTES;
    const dir = path.resolve(directory);
    const refuse = (why: string, error?: unknown): never => {
      const detail = error === undefined ? "" : ` (${errorCode(error) ?? (error instanceof Error ? error.message : String(error))})`;
      if (errorCode(error) === "ENOTDIR") throw new NotADirectoryError(dir, `Cache directory ${dir} ${why}${detail}`);
      throw new PermissionDeniedError(dir, `Cache directory ${dir} ${why}${detail}`);
    };
    try {
      const created = await mkdir(dir, { recursive: true, mode: 0o700 });
      // mkdir's mode is masked by the umask; the folder holds private objects' bytes.
      if (created !== undefined) await chmod(dir, 0o700);
    } catch (error) {
      // An existing file there is named as such below.
      if (errorCode(error) !== "EEXIST") refuse("cannot be created", error);
    }
    const info = await stat(dir).catch((error: unknown) => refuse("cannot be read", error));
    if (!info.isDirectory()) throw new NotADirectoryError(dir, `Cache directory ${dir} is not a directory`);
    const cache = new DiskBlockCache(dir, maxBytes);
    const probe = path.join(dir, `${TEMP_PREFIX}probe-${randomBytes(8).toString("hex")}`);
    try {
      const handle = await open(probe, "wx", 0o600);
      await handle.close();
      await unlink(probe);
    } catch (error) {
      refuse("is not writable", error);
    }
    const names = await readdir(dir).catch((error: unknown) => refuse("cannot be read", error));
    await cache.#load(names);
    return cache;
  }

  /** Learns the files already there (oldest use first) and applies the bound. */
  async #load(names: readonly string[]): Promise<void> {
    const found: { name: string; size: number; mtimeMs: number }[] = [];
    const now = Date.now();
    for (const name of names) {
      const file = path.join(this.directory, name);
      const info = await stat(file).catch(() => null);
      if (info === null || !info.isFile()) continue;
      if (name.startsWith(TEMP_PREFIX)) {
        if (now - info.mtimeMs > STALE_TEMP_MS) await unlink(file).catch(() => undefined);
        continue;
      }
      if (BLOCK_FILE.test(name)) found.push({ name, size: info.size, mtimeMs: info.mtimeMs });
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const { name, size } of found) this.#remember(name, size);
    await this.#evict();
  }

  static fileName(identity: string): string {
    return `${sha256(identity).toString("hex")}.blk`;
  }

  async get(identity: string): Promise<Uint8Array | null> {
    const name = DiskBlockCache.fileName(identity);
    const file = path.join(this.directory, name);
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch {
      this.#forget(name);
      this.stats.misses++;
      return null;
    }
    const payload = this.#check(data, identity);
    if (payload === null) {
      this.stats.corrupt++;
      this.stats.misses++;
      this.#forget(name);
      await unlink(file).catch(() => undefined);
      return null;
    }
    this.stats.hits++;
    const known = this.#files.has(name);
    this.#remember(name, data.byteLength);
    // Another process's file, new to this one: it counts against the bound from now on.
    if (!known) this.#track(this.#evict());
    const now = new Date();
    this.#track(utimes(file, now, now).catch(() => undefined));
    return payload;
  }

  /** The payload when `data` is a whole, undamaged block file for `identity`; else null. */
  #check(data: Buffer, identity: string): Uint8Array | null {
    if (data.byteLength < HEADER_BYTES || !data.subarray(0, MAGIC.byteLength).equals(MAGIC)) return null;
    let at = MAGIC.byteLength;
    if (!data.subarray(at, at + 32).equals(sha256(identity))) return null;
    at += 32;
    const length = data.readUInt32BE(at);
    at += 4;
    const checksum = data.subarray(at, at + 32);
    at += 32;
    if (data.byteLength - at !== length) return null;
    const payload = data.subarray(at);
    if (!sha256(payload).equals(checksum)) return null;
    return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  }

  put(identity: string, bytes: Uint8Array): void {
    if (HEADER_BYTES + bytes.byteLength > this.maxBytes || bytes.byteLength > 0xffff_ffff) return;
    this.#track(this.#write(identity, bytes));
  }

  async #write(identity: string, bytes: Uint8Array): Promise<void> {
    const name = DiskBlockCache.fileName(identity);
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    sha256(identity).copy(header, MAGIC.byteLength);
    header.writeUInt32BE(bytes.byteLength, MAGIC.byteLength + 32);
    sha256(bytes).copy(header, MAGIC.byteLength + 36);
    const temp = path.join(this.directory, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    try {
      const handle = await open(temp, "wx", 0o600);
      try {
        // No fsync: a block torn by a power cut fails its checksum and is fetched again.
        await handle.writev([header, bytes]);
      } finally {
        await handle.close();
      }
      await rename(temp, path.join(this.directory, name));
    } catch {
      this.stats.writeFailures++;
      await unlink(temp).catch(() => undefined);
      return;
    }
    this.stats.writes++;
    this.#remember(name, HEADER_BYTES + bytes.byteLength);
    await this.#evict();
  }

  #remember(name: string, size: number): void {
    this.#forget(name);
    this.#files.set(name, size);
    this.stats.bytes += size;
    this.stats.files = this.#files.size;
  }

  #forget(name: string): void {
    const size = this.#files.get(name);
    if (size === undefined) return;
    this.#files.delete(name);
    this.stats.bytes -= size;
    this.stats.files = this.#files.size;
  }

  async #evict(): Promise<void> {
    const victims: string[] = [];
    for (const name of this.#files.keys()) {
      if (this.stats.bytes <= this.maxBytes) break;
      victims.push(name);
      this.#forget(name);
    }
    this.stats.evicted += victims.length;
    await Promise.all(victims.map((name) => unlink(path.join(this.directory, name)).catch(() => undefined)));
  }

  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}

/** Opens `directory` as a block cache (see `DiskBlockCache.open`). */
export function openDiskBlockCache(directory: string, options?: DiskBlockCacheOptions): Promise<DiskBlockCache> {
  return DiskBlockCache.open(directory, options);
}
