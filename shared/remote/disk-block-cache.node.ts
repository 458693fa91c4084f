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
 * - The folder's content is trusted only as far as its owner: like ssh with its keys, a folder
 *   not owned by this user, or that its group or others may write, is refused when opened, and
 *   so is one below a folder others could rename it out of (see `checkOwnership`). Block files
 *   are opened without following links and without blocking (`O_NOFOLLOW | O_NONBLOCK`) and
 *   read only when `fstat` says they are regular files whose size is what their header says:
 *   a symlink (to a FIFO, to `/dev/zero`), a FIFO or a device there is a miss, removed.
 */
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, type FileHandle, lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { NotADirectoryError, PermissionDeniedError } from "../errors.js";
import { errnoCode } from "../filesystem/errno.js";
import type { BlockStore } from "./block-store.js";

export const DEFAULT_DISK_CACHE_BYTES = 1024 * 1024 * 1024;

const MAGIC = Buffer.from("WINKBLK1", "latin1");
const HEADER_BYTES = MAGIC.byteLength + 32 + 4 + 32;
const BLOCK_FILE = /^[0-9a-f]{64}\.blk$/;
const TEMP_PREFIX = ".tmp-";
/** How block files are opened: never through a link, never waiting on a FIFO or device. */
const OPEN_BLOCK = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
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
      const detail = error === undefined ? "" : ` (${errnoCode(error) ?? (error instanceof Error ? error.message : String(error))})`;
      if (errnoCode(error) === "ENOTDIR") throw new NotADirectoryError(dir, `Cache directory ${dir} ${why}${detail}`);
      throw new PermissionDeniedError(dir, `Cache directory ${dir} ${why}${detail}`);
    };
    try {
      const created = await mkdir(dir, { recursive: true, mode: 0o700 });
      // mkdir's mode is masked by the umask; the folder holds private objects' bytes.
      if (created !== undefined) await chmod(dir, 0o700);
    } catch (error) {
      // An existing file there is named as such below.
      if (errnoCode(error) !== "EEXIST") refuse("cannot be created", error);
    }
    const info = await stat(dir).catch((error: unknown) => refuse("cannot be read", error));
    if (!info.isDirectory()) throw new NotADirectoryError(dir, `Cache directory ${dir} is not a directory`);
    await checkOwnership(dir);
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
      // lstat: a link is not counted as the size of what it points to (a read drops it).
      const info = await lstat(file).catch(() => null);
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
    let handle: FileHandle;
    try {
      handle = await open(file, OPEN_BLOCK);
    } catch (error) {
      this.#forget(name);
      this.stats.misses++;
      // A symlink (ELOOP) is not a block: removed (the link, never what it points to) so the block is stored again.
      if (errnoCode(error) === "ELOOP") await this.#drop(name, file);
      return null;
    }
    let data: Buffer | null;
    try {
      data = await readBlockFile(handle);
    } catch {
      data = null;
    }
    const payload = data === null ? null : this.#check(data, identity);
    if (data === null || payload === null) {
      await handle.close().catch(() => undefined);
      this.stats.misses++;
      await this.#drop(name, file);
      return null;
    }
    this.stats.hits++;
    const known = this.#files.has(name);
    this.#remember(name, data.byteLength);
    // Another process's file, new to this one: it counts against the bound from now on.
    if (!known) this.#track(this.#evict());
    // Through the handle: the file checked, not whatever the name points to by now.
    const now = new Date();
    this.#track(
      handle
        .utimes(now, now)
        .catch(() => undefined)
        .finally(() => handle.close().catch(() => undefined)),
    );
    return payload;
  }

  /** Counts and removes a file that is not a whole block (damaged, or not a regular file at all). */
  async #drop(name: string, file: string): Promise<void> {
    this.stats.corrupt++;
    this.#forget(name);
    await unlink(file).catch(() => undefined);
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

/**
 * The whole block file behind `handle` when it is a regular file whose size is what its
 * header says (at most the 4 GiB a header can state); null otherwise, having read no more
 * than the header. A FIFO, a device or a file still being written past its stated size is
 * never read until it ends.
 */
async function readBlockFile(handle: FileHandle): Promise<Buffer | null> {
  const info = await handle.stat();
  if (!info.isFile() || info.size < HEADER_BYTES) return null;
  const header = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0);
  if (bytesRead !== HEADER_BYTES) return null;
  const length = header.readUInt32BE(MAGIC.byteLength + 32);
  if (info.size !== HEADER_BYTES + length) return null;
  const data = Buffer.allocUnsafe(info.size);
  header.copy(data, 0);
  let at = HEADER_BYTES;
  while (at < data.byteLength) {
    const read = await handle.read(data, at, data.byteLength - at, at);
    if (read.bytesRead === 0) return null;
    at += read.bytesRead;
  }
  return data;
}

/** Mode bits that let someone other than the owner write. */
const OTHERS_WRITE = 0o022;
/** The sticky bit (`fs.constants` has no `S_ISVTX`). */
const STICKY = 0o1000;

/**
 * Refuses a cache folder whose content someone else could have written, as ssh refuses a key
 * file: the folder itself must be this user's and writable by nobody else; each folder above
 * it (of its real path) must be this user's or root's and, unless sticky (as `/tmp` is: others
 * may not rename what they do not own there), writable by nobody else. No-op where the
 * platform has no uids (Windows).
 */
async function checkOwnership(dir: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const real = await realpath(dir);
  const named = real === dir ? dir : `${dir} (${real})`;
  const info = await stat(real);
  if (info.uid !== uid) {
    throw new PermissionDeniedError(dir, `Cache directory ${named} is owned by uid ${info.uid}, not by this user (uid ${uid}): blocks another user could write are not trusted. Use a folder of your own (e.g. a new one under your home: --cache-dir ~/.cache/wink-debug) or chown it to yourself`, { owner: info.uid });
  }
  if ((info.mode & OTHERS_WRITE) !== 0) {
    const mode = (info.mode & 0o7777).toString(8).padStart(4, "0");
    throw new PermissionDeniedError(dir, `Cache directory ${named} is writable by its group or others (mode ${mode}): blocks they could write are not trusted. Fix it with: chmod 700 ${real}`, { mode });
  }
  for (let parent = path.dirname(real), child = real; parent !== child; child = parent, parent = path.dirname(parent)) {
    const above = await stat(parent);
    const sticky = (above.mode & STICKY) !== 0;
    if (above.uid !== uid && above.uid !== 0) {
      throw new PermissionDeniedError(dir, `Cache directory ${named} is inside ${parent}, owned by uid ${above.uid} (neither this user, uid ${uid}, nor root), who could replace it. Use a folder of your own (e.g. --cache-dir ~/.cache/wink-debug)`, { parent, owner: above.uid });
    }
    if ((above.mode & OTHERS_WRITE) !== 0 && !sticky) {
      const mode = (above.mode & 0o7777).toString(8).padStart(4, "0");
      throw new PermissionDeniedError(dir, `Cache directory ${named} is inside ${parent}, writable by its group or others (mode ${mode}), who could replace it. Fix it with: chmod go-w ${parent} (or use a folder of your own)`, { parent, mode });
    }
  }
}

/** Opens `directory` as a block cache (see `DiskBlockCache.open`). */
export function openDiskBlockCache(directory: string, options?: DiskBlockCacheOptions): Promise<DiskBlockCache> {
  return DiskBlockCache.open(directory, options);
}
