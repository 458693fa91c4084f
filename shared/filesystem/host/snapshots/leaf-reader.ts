/**
 * Reading workspace files for a snapshot without being tricked into reading outside the
 * root: the last component is opened with O_NOFOLLOW, and on Linux the opened descriptor's
 * real path (`/proc/self/fd/N`) must still be under the root, so a parent directory
 * swapped for a symlink mid-walk is caught. Content is hashed as a git blob on the way.
 */
import { createHash, type Hash } from "node:crypto";
import { Buffer } from "node:buffer";
import { closeSync, existsSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from "node:fs";

import { joinBytePath, toBytePath, toDisplayPath, toFsPath } from "./byte-paths.js";
import { leafStatOf, regularFileStat, SAFE_READ_FLAGS, type LeafKind, type LeafStat } from "./workspace-scan.js";
import { errnoCode } from "../../errno.js";

/** Files up to this size are kept in memory after hashing instead of being read twice. */
export const INLINE_CONTENT_LIMIT = 4 * 1024 * 1024;
const CHUNK = 1024 * 1024;

/** The workspace changed under the reader (a file replaced, a directory swapped for a link). */
export class LeafChangedError extends Error {
  constructor(
    readonly relativePath: string,
    reason: string,
  ) {
    super(`${toDisplayPath(relativePath)} changed while it was read (${reason})`);
    this.name = "LeafChangedError";
  }
}

export interface HashedLeaf {
  readonly oid: string;
  /** Stat of what was actually read. */
  readonly stat: LeafStat;
  /** The content when it is at most INLINE_CONTENT_LIMIT bytes, else null (stream it with `streamLeaf`). */
  readonly data: Buffer | null;
}

export function gitBlobHasher(size: number): Hash {
  return createHash("sha1").update(`blob ${size}\0`);
}

/** Whether opened descriptors can be checked (and reopened) through /proc/self/fd. */
export const PROC_FD_WORKS = existsSync("/proc/self/fd");

/** Reads leaves below one root. */
export class LeafReader {
  private readonly rootBytes: string;
  private readonly realRootBytes: string;

  constructor(rootBytes: string) {
    this.rootBytes = rootBytes;
    this.realRootBytes = toBytePath(realpathSync(toFsPath(rootBytes), { encoding: "buffer" }).toString("latin1"));
  }

  /** Hash a file or symlink as git would store it. Throws ENOENT-coded errors when it vanished. */
  hash(relative: string, kind: LeafKind): HashedLeaf {
    const absolute = joinBytePath(this.rootBytes, relative);
    if (kind === "symlink") {
      const stats = lstatSync(toFsPath(absolute));
      if (!stats.isSymbolicLink()) throw new LeafChangedError(relative, "no longer a symlink");
      const target = readlinkSync(toFsPath(absolute), { encoding: "buffer" });
      const oid = gitBlobHasher(target.length).update(target).digest("hex");
      return { oid, stat: leafStatOf(stats, "symlink"), data: target };
    }
    const fd = this.openVerified(relative);
    try {
      const stat = regularFileStat(fd);
      if (stat === null) throw new LeafChangedError(relative, "no longer a regular file");
      const hasher = gitBlobHasher(stat.size);
      if (stat.size <= INLINE_CONTENT_LIMIT) {
        const data = readExactly(fd, stat.size, relative);
        return { oid: hasher.update(data).digest("hex"), stat, data };
      }
      const buffer = Buffer.allocUnsafe(CHUNK);
      let done = 0;
      while (done < stat.size) {
        const n = readSync(fd, buffer, 0, Math.min(CHUNK, stat.size - done), done);
        if (n === 0) throw new LeafChangedError(relative, "file shrank");
        hasher.update(buffer.subarray(0, n));
        done += n;
      }
      return { oid: hasher.digest("hex"), stat, data: null };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Feed a large file to `sink` chunk by chunk, checking it still has the size and blob id
   * that `hash` saw (git needs the exact length up front).
   */
  async stream(relative: string, expected: HashedLeaf, sink: (chunk: Buffer) => Promise<void>): Promise<void> {
    const fd = this.openVerified(relative);
    try {
      const hasher = gitBlobHasher(expected.stat.size);
      let done = 0;
      while (done < expected.stat.size) {
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK, expected.stat.size - done));
        const n = readSync(fd, buffer, 0, buffer.length, done);
        if (n === 0) throw new LeafChangedError(relative, "file shrank");
        const chunk = buffer.subarray(0, n);
        hasher.update(chunk);
        await sink(chunk);
        done += n;
      }
      if (hasher.digest("hex") !== expected.oid) throw new LeafChangedError(relative, "content changed");
    } finally {
      closeSync(fd);
    }
  }

  /** Absolute byte path of a leaf. */
  absolute(relative: string): string {
    return joinBytePath(this.rootBytes, relative);
  }

  /** Open a file read-only: no final symlink followed, and (on Linux) proven to still be under the root. */
  openVerified(relative: string): number {
    const absolute = joinBytePath(this.rootBytes, relative);
    let fd: number;
    try {
      fd = openSync(toFsPath(absolute), SAFE_READ_FLAGS);
    } catch (error) {
      if (errnoCode(error) === "ELOOP") throw new LeafChangedError(relative, "replaced by a symlink");
      throw error;
    }
    if (PROC_FD_WORKS) {
      let real: string;
      try {
        real = readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" }).toString("latin1");
      } catch (error) {
        closeSync(fd);
        throw error;
      }
      const expected = joinBytePath(this.realRootBytes, relative);
      if (real !== expected) {
        closeSync(fd);
        throw new LeafChangedError(relative, "a parent directory was replaced by a link");
      }
    }
    return fd;
  }
}

function readExactly(fd: number, size: number, relative: string): Buffer {
  const data = Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const n = readSync(fd, data, done, size - done, done);
    if (n === 0) throw new LeafChangedError(relative, "file shrank");
    done += n;
  }
  return data;
}
