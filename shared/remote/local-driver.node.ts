/**
 * A local folder as a source: the reference driver of the contract, and what `wink-debug
 * ./runs` will read through once the viewer sits on sources.
 *
 * Confined like the host backend (`filesystem/host/io/confined.ts`): every directory is opened
 * one segment at a time through its parent's descriptor with O_NOFOLLOW, files with
 * O_NOFOLLOW|O_NONBLOCK, and the opened descriptor is fstat-checked to be the regular file
 * that was looked up. Symlinks and special files are never followed: listings skip (and
 * count) them, reads refuse them with `E_SOURCE_FORBIDDEN`.
 *
 * The validator is derived from the inode: device, inode, size, mtime and ctime in
 * nanoseconds, so a rewrite, a rename over the file or a touch changes it.
 */
import * as fs from "node:fs";
import { promisify } from "node:util";
import { SourceError, WinkError } from "../errors.js";
import { displayPath } from "../filesystem/paths.js";
import { type DirHandle, closeFd, openRegularForRead, splitParent, withDirectory } from "../filesystem/host/io/confined.js";
import { errnoCode } from "../filesystem/errno.js";
import type { ByteRange, DriverBody, DriverListOptions, ListPage, ObjectInfo, DriverReadOptions, SourceDriver, DriverStatOptions } from "./driver.js";
import { type Folder, type FolderEntry, listByWalking } from "./listing.js";
import { clampRange, unsatisfiable } from "./ranges.js";

const fstatBig = promisify((fd: number, callback: (error: NodeJS.ErrnoException | null, stats: fs.BigIntStats) => void) => fs.fstat(fd, { bigint: true }, callback));
const readFd = promisify(fs.read);

/** Bytes per read(2) while streaming a range. */
const CHUNK_BYTES = 1024 * 1024;

export interface LocalDriverOptions {
  /** The folder whose files are the source's objects (must exist). */
  readonly root: string;
}

function etagOf(stats: fs.BigIntStats): string {
  return `"${[stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].map((n) => n.toString(16)).join("-")}"`;
}

function infoOf(key: string, stats: fs.BigIntStats): ObjectInfo {
  return { key, size: Number(stats.size), etag: etagOf(stats), mtimeMs: Number(stats.mtimeNs / 1_000_000n) };
}

export class LocalDriver implements SourceDriver {
  readonly name = "local";
  readonly capabilities = { recursiveList: true, listEtags: true };
  readonly location: string;

  constructor(private readonly options: LocalDriverOptions) {
    this.location = options.root;
  }

  describe(key: string): string {
    return key === "" ? "the folder's root" : displayPath(key);
  }

  list(prefix: string, options: DriverListOptions): Promise<ListPage> {
    return listByWalking((folder, namePrefix) => this.readFolder(folder, namePrefix), prefix, options);
  }

  /** One folder's names and kinds; files are stat'ed only when they land on a page. */
  private async readFolder(folder: string, namePrefix: string): Promise<Folder | null> {
    const segments = folder === "" ? [] : folder.slice(0, -1).split("/");
    try {
      const dirents = await withDirectory(this.options.root, segments, folder, (dir) => fs.promises.readdir(dir.self, { withFileTypes: true }));
      const entries: FolderEntry[] = dirents
        .filter((dirent) => dirent.name.startsWith(namePrefix))
        .map((dirent) => ({ name: dirent.name, kind: dirent.isFile() ? "file" : dirent.isDirectory() ? "directory" : "other" }));
      return { entries, infos: (names) => this.infos(segments, folder, names) };
    } catch (error) {
      // A missing folder lists as nothing, as an S3 prefix nobody wrote to does; so does a
      // symlinked one, which listings skip.
      if (error instanceof WinkError && error.data.root === undefined) {
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
        if ((error.code === "EACCES" && error.data.reason === "symlink") || error.code === "ELOOP") return null;
      }
      throw this.mapError(error, folder, "list");
    }
  }

  /**
   * lstat of files in one folder (one confined walk to it for the batch); null for a file
   * gone or replaced by a link. Synchronous: a thread-pool round trip costs the main thread
   * more than the ~3 µs lstat of a cached inode, and a page stats up to 1,000 of them.
   */
  private async infos(segments: readonly string[], folder: string, names: readonly string[]): Promise<(ObjectInfo | null)[]> {
    try {
      return await withDirectory(this.options.root, segments, folder, async (dir) => {
        const stats = names.map((name) => lstatBigSync(dir, name));
        return stats.map((entryStats, i) => (entryStats?.isFile() === true ? infoOf(`${folder}${names[i] as string}`, entryStats) : null));
      });
    } catch (error) {
      throw this.mapError(error, folder, "list");
    }
  }

  async stat(key: string, options: DriverStatOptions = {}): Promise<ObjectInfo | null> {
    const { parents, name } = splitParent(key);
    try {
      const stats = await withDirectory(this.options.root, parents, key, (dir) => lstatBig(dir, name));
      if (stats === null) throw this.notFound(key);
      if (stats.isDirectory()) throw this.notFound(key, "is a folder, not an object");
      if (!stats.isFile()) throw this.forbidden(key, stats.isSymbolicLink() ? "symlink" : "special-file");
      const info = infoOf(key, stats);
      return options.ifNoneMatch !== undefined && options.ifNoneMatch === info.etag ? null : info;
    } catch (error) {
      throw this.mapError(error, key, "stat");
    }
  }

  async read(key: string, range: ByteRange, options: DriverReadOptions = {}): Promise<DriverBody> {
    const { parents, name } = splitParent(key);
    let fd: number;
    try {
      ({ fd } = await withDirectory(this.options.root, parents, key, (dir) => openRegularForRead(dir, name, key)));
    } catch (error) {
      throw this.mapError(error, key, "read");
    }
    let open = true;
    const release = (): void => {
      if (!open) return;
      open = false;
      closeFd(fd).catch(() => undefined);
    };
    try {
      const stats = await fstatBig(fd);
      const etag = etagOf(stats);
      const size = Number(stats.size);
      if (options.etag != null && options.etag !== etag) {
        throw new SourceError("E_SOURCE_CHANGED", `${this.describe(key)} changed since it was opened (its validator differs); reopen it`, {
          url: this.describe(key),
          key,
          expected: options.etag,
          actual: etag,
        });
      }
      const clamped = clampRange(range, size);
      if (clamped === null) throw unsatisfiable(this.describe(key), key, range, size);
      const signal = options.signal;
      async function* chunks(): AsyncGenerator<Uint8Array> {
        try {
          let done = 0;
          while (done < clamped!.length && open) {
            signal?.throwIfAborted();
            const want = Math.min(CHUNK_BYTES, clamped!.length - done);
            const buffer = Buffer.allocUnsafe(want);
            const { bytesRead } = await readFd(fd, buffer, 0, want, clamped!.offset + done);
            if (bytesRead === 0) return; // the file shrank: the caller sees a short body
            done += bytesRead;
            yield buffer.subarray(0, bytesRead);
          }
        } finally {
          release();
        }
      }
      return { offset: clamped.offset, length: clamped.length, size, etag, mtimeMs: Number(stats.mtimeNs / 1_000_000n), chunks: chunks(), cancel: release };
    } catch (error) {
      release();
      throw this.mapError(error, key, "read");
    }
  }

  private notFound(key: string, detail = "no such object"): SourceError {
    return new SourceError("E_SOURCE_NOT_FOUND", `Not found in the local folder: ${this.describe(key)} (${detail})`, { url: this.describe(key), key });
  }

  private forbidden(key: string, reason: string): SourceError {
    const what = reason === "symlink" ? "a symbolic link (never followed)" : "not a regular file";
    return new SourceError("E_SOURCE_FORBIDDEN", `Refusing to read ${this.describe(key)}: ${what}`, { url: this.describe(key), key, reason });
  }

  /** Filesystem errors of the confined helpers, as source errors naming the key. */
  private mapError(error: unknown, key: string, action: string): SourceError {
    if (error instanceof SourceError) return error;
    const url = this.describe(key);
    if (error instanceof WinkError) {
      if (error.data.root !== undefined) {
        return new SourceError("E_SOURCE_NOT_FOUND", `The local folder ${this.location} cannot be opened: ${error.message}`, { url: this.location, reason: "root" });
      }
      switch (error.code) {
        case "ENOENT":
        case "ENOTDIR":
          return this.notFound(key);
        case "EISDIR":
          return this.notFound(key, "is a folder, not an object");
        case "EACCES":
        case "ELOOP":
          return this.forbidden(key, typeof error.data.reason === "string" ? error.data.reason : "permission");
      }
    }
    const code = errnoCode(error);
    if (code === "EACCES" || code === "EPERM") return this.forbidden(key, "permission");
    const detail = error instanceof Error ? error.message : String(error);
    return new SourceError("E_SOURCE_FAILED", `Cannot ${action} ${url} in the local folder: ${detail}`, { url, key, errno: code ?? null });
  }
}

function lstatBigSync(dir: DirHandle, name: string): fs.BigIntStats | null {
  try {
    return fs.lstatSync(dir.at(name), { bigint: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

async function lstatBig(dir: DirHandle, name: string): Promise<fs.BigIntStats | null> {
  try {
    return await fs.promises.lstat(dir.at(name), { bigint: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

export function createLocalDriver(options: LocalDriverOptions): LocalDriver {
  return new LocalDriver(options);
}
