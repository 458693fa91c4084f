/**
 * `FilesystemDriver` over a host directory, confined to it (see `io/confined.ts` for how and
 * for the pinned symlink policy).
 *
 * Writes: overwrite and create go through a temp file in the same directory (written,
 * fsynced, then renamed — or hard-linked for create, which fails if the target appeared), so
 * a reader never sees half a file, a failed write (ENOSPC, EIO) leaves the original, and a
 * hard link to a file elsewhere is replaced rather than written through. Append writes in
 * place (and truncates back on failure), except on a file with several hard links, which is
 * copied, appended and renamed for the same reason.
 *
 * Tree replacement (archive import) and crash recovery use `tree-apply/`; the first
 * operation of a driver completes or discards an apply that a crash interrupted.
 */
import * as fs from "node:fs";
import path from "node:path";
import {
  DirectoryNotEmptyError,
  FileExistsError,
  FileNotFoundError,
  IsADirectoryError,
  PermissionDeniedError,
  WinkError,
} from "../../errors.js";
import type { DriverEntry, DriverStat, DriverWriteOptions, FilesystemDriver, TreeTransaction, WalkEntry } from "../driver.js";
import { displayPath } from "../paths.js";
import {
  APPEND_FLAGS,
  CREATE_FLAGS,
  type DirHandle,
  assertProcFdAvailable,
  closeFd,
  fchmodFd,
  fchownFd,
  fstatFd,
  fsyncDir,
  fsyncFd,
  kindOf,
  kindRefusal,
  lstatAt,
  openBase,
  openChildDir,
  openFd,
  openRegularForRead,
  readRange,
  removeEntry,
  specialFileRefusal,
  splitParent,
  symlinkRefusal,
  tempName,
  unlinkQuietly,
  withDirectory,
  writeAll,
} from "./io/confined.js";
import { errnoCode } from "../errno.js";
import { mapFsError } from "./io/host-errors.js";
import { type GrepPrefilterQuery, ripgrepCandidates } from "./ripgrep-prefilter.js";
import { ReservedNames, onceUntilDone } from "../driver-support.js";
import { STAGING_PREFIX, type TreeApplyOptions, createTreeStaging, recoverTreeChanges, replaceTreeContents } from "./tree-apply/index.js";

export interface HostDriverOptions {
  /** The workspace root directory (must exist). Reported unchanged as `root`. */
  readonly root: string;
  /** Where crash-recovery journals live (default: see `defaultTreeApplyStateDir`). */
  readonly stateDir?: string;
  /** fsync writes and tree replacements (default true). */
  readonly durable?: boolean;
}

const DEFAULT_FILE_MODE = 0o644;
const PERMISSION_BITS = 0o777;
/** Parallel lstat calls while walking one directory. */
const WALK_STAT_CONCURRENCY = 32;

function toDriverStat(stats: fs.Stats): DriverStat {
  return {
    kind: kindOf(stats),
    size: stats.isFile() ? stats.size : 0,
    mtimeMs: stats.mtimeMs,
    birthtimeMs: stats.birthtimeMs > 0 ? stats.birthtimeMs : null,
    mode: stats.mode & 0o7777,
  };
}

const reserved = new ReservedNames(STAGING_PREFIX);

/** A host directory as a `FilesystemDriver`. */
export class HostDriver implements FilesystemDriver {
  readonly name = "host";
  readonly root: string;
  /** Absolute form of the root used for opening it. */
  readonly rootPath: string;
  private readonly applyOptions: TreeApplyOptions;
  private readonly durable: boolean;
  /** Completes or discards an interrupted tree change once, before the first operation. */
  private readonly ready = onceUntilDone(() => recoverTreeChanges(this.rootPath, this.applyOptions));

  constructor(options: HostDriverOptions) {
    assertProcFdAvailable();
    this.root = options.root;
    this.rootPath = path.resolve(options.root);
    this.durable = options.durable ?? true;
    this.applyOptions = { durable: this.durable, ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }) };
  }

  /** Options for `tree-apply/` calls on this root (state directory, durability). */
  get treeApplyOptions(): TreeApplyOptions {
    return this.applyOptions;
  }


  async stat(path: string): Promise<DriverStat | null> {
    await this.ready();
    if (reserved.has(path)) return null;
    if (path === "") {
      const root = await openBase(this.rootPath);
      try {
        return toDriverStat(await fstatFd(root.fd));
      } finally {
        await root.close();
      }
    }
    const { parents, name } = splitParent(path);
    try {
      return await withDirectory(this.rootPath, parents, path, async (dir) => {
        const stats = await lstatAt(dir, name);
        return stats === null ? null : toDriverStat(stats);
      });
    } catch (error) {
      // Nothing exists below a missing directory or a file; a symlink on the way is refused.
      if (error instanceof WinkError && (error.code === "ENOENT" || error.code === "ENOTDIR")) return null;
      throw error;
    }
  }

  async readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array> {
    await this.ready();
    if (path === "") throw new IsADirectoryError(path, "Is a directory: the root");
    if (reserved.has(path)) throw new FileNotFoundError(path);
    const { parents, name } = splitParent(path);
    return withDirectory(this.rootPath, parents, path, async (dir) => {
      const { fd, size } = await openRegularForRead(dir, name, path);
      try {
        return await readRange(fd, size, range?.offset ?? 0, range?.length ?? size, path);
      } finally {
        await closeFd(fd).catch(() => undefined);
      }
    });
  }

  async writeFile(path: string, data: Uint8Array, options: DriverWriteOptions): Promise<void> {
    await this.ready();
    if (path === "") throw new IsADirectoryError(path, "Cannot write to root");
    reserved.refuse(path, "write");
    const { parents, name } = splitParent(path);
    await withDirectory(
      this.rootPath,
      parents,
      path,
      async (dir) => {
        const existing = await lstatAt(dir, name);
        if (existing !== null) {
          if (!existing.isFile()) throw await kindRefusal(dir, name, existing, path, "write");
          if (options.mode === "create") throw new FileExistsError(path);
        }
        if (options.mode === "append" && existing !== null && existing.nlink === 1) {
          await this.appendInPlace(dir, name, path, data, existing);
          return;
        }
        const chunks: Uint8Array[] = [];
        if (options.mode === "append" && existing !== null) chunks.push(await this.readExisting(dir, name, path));
        chunks.push(data);
        const mode = existing !== null ? existing.mode & PERMISSION_BITS : (options.fileMode ?? DEFAULT_FILE_MODE) & PERMISSION_BITS;
        const temp = await this.writeTemp(dir, chunks, mode, existing, path);
        try {
          if (options.mode === "overwrite" || existing !== null) {
            await fs.promises.rename(dir.at(temp), dir.at(name));
          } else {
            await this.linkExclusive(dir, temp, name, path, data, options, mode);
          }
        } catch (error) {
          await unlinkQuietly(dir, temp);
          const code = errnoCode(error);
          if (code === "EEXIST" && options.mode === "append") {
            // The file appeared since our check: append to it after all.
            const now = await lstatAt(dir, name);
            if (now?.isFile() && now.nlink === 1) return this.appendInPlace(dir, name, path, data, now);
          }
          if (code === "EEXIST") throw new FileExistsError(path);
          throw mapFsError(error, path, "write");
        }
        await unlinkQuietly(dir, temp);
        if (this.durable) await fsyncDir(dir);
      },
      options.createParents ? 0o777 : undefined,
    );
  }

  /** Create-mode commit: hard link the finished temp file (fails if the name appeared). */
  private async linkExclusive(dir: DirHandle, temp: string, name: string, path: string, data: Uint8Array, options: DriverWriteOptions, mode: number): Promise<void> {
    try {
      await fs.promises.link(dir.at(temp), dir.at(name));
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EMLINK") throw error;
      // A filesystem without hard links: exclusive create in place (not atomic, still exclusive).
      const fd = await openFd(dir.at(name), CREATE_FLAGS, mode);
      try {
        await writeAll(fd, data, 0);
        if (this.durable) await fsyncFd(fd);
      } catch (writeError) {
        await closeFd(fd).catch(() => undefined);
        await unlinkQuietly(dir, name);
        throw mapFsError(writeError, path, options.mode);
      }
      await closeFd(fd);
    }
  }

  private async readExisting(dir: DirHandle, name: string, path: string): Promise<Uint8Array> {
    const { fd, size } = await openRegularForRead(dir, name, path);
    try {
      return await readRange(fd, size, 0, size, path);
    } finally {
      await closeFd(fd).catch(() => undefined);
    }
  }

  private async writeTemp(dir: DirHandle, chunks: readonly Uint8Array[], mode: number, existing: fs.Stats | null, path: string): Promise<string> {
    const temp = tempName();
    let fd: number;
    try {
      fd = await openFd(dir.at(temp), CREATE_FLAGS, 0o600);
    } catch (error) {
      throw mapFsError(error, path, "write");
    }
    try {
      let position = 0;
      for (const chunk of chunks) {
        await writeAll(fd, chunk, position);
        position += chunk.byteLength;
      }
      await fchmodFd(fd, mode);
      if (existing !== null && process.geteuid?.() === 0 && (existing.uid !== 0 || existing.gid !== 0)) {
        // Keep the owner of a file we replace (a root-run server editing a user's workspace).
        await fchownFd(fd, existing.uid, existing.gid);
      }
      if (this.durable) await fsyncFd(fd);
      await closeFd(fd);
    } catch (error) {
      await closeFd(fd).catch(() => undefined);
      await unlinkQuietly(dir, temp);
      throw mapFsError(error, path, "write");
    }
    return temp;
  }

  private async appendInPlace(dir: DirHandle, name: string, path: string, data: Uint8Array, before: fs.Stats): Promise<void> {
    let fd: number;
    try {
      fd = await openFd(dir.at(name), APPEND_FLAGS);
    } catch (error) {
      const code = errnoCode(error);
      if (code === "ELOOP") throw await symlinkRefusal(dir, name, path);
      if (code === "ENXIO") throw specialFileRefusal(path, path, "write");
      throw mapFsError(error, path, "append to");
    }
    try {
      const stats = await fstatFd(fd);
      if (!stats.isFile() || stats.ino !== before.ino || stats.nlink !== 1) {
        throw new PermissionDeniedError(path, `File changed while being opened: ${displayPath(path)}`, { reason: "race" });
      }
      try {
        await writeAll(fd, data, null);
        if (this.durable) await fsyncFd(fd);
      } catch (error) {
        // Leave the file as it was: cut off whatever part of the append landed.
        await new Promise<void>((resolve) => fs.ftruncate(fd, stats.size, () => resolve()));
        throw mapFsError(error, path, "append to");
      }
    } finally {
      await closeFd(fd).catch(() => undefined);
    }
  }

  async list(path: string): Promise<DriverEntry[]> {
    await this.ready();
    if (reserved.has(path)) throw new FileNotFoundError(path);
    const segments = path === "" ? [] : path.split("/");
    return withDirectory(this.rootPath, segments, path, async (dir) => {
      let dirents: fs.Dirent[];
      try {
        dirents = await fs.promises.readdir(dir.self, { withFileTypes: true });
      } catch (error) {
        throw mapFsError(error, path, "list");
      }
      const entries: DriverEntry[] = [];
      for (const dirent of dirents) {
        if (path === "" && reserved.has(dirent.name)) continue;
        entries.push({ name: dirent.name, kind: dirent.isFile() ? "file" : dirent.isDirectory() ? "directory" : dirent.isSymbolicLink() ? "symlink" : "other" });
      }
      return entries;
    });
  }

  async mkdir(path: string, options: { parents: boolean; existOk: boolean }): Promise<void> {
    await this.ready();
    if (path === "") {
      if (options.existOk) return;
      throw new FileExistsError(path, "File exists: the root");
    }
    reserved.refuse(path, "create");
    const { parents, name } = splitParent(path);
    await withDirectory(
      this.rootPath,
      parents,
      path,
      async (dir) => {
        try {
          await fs.promises.mkdir(dir.at(name), 0o777);
        } catch (error) {
          if (errnoCode(error) !== "EEXIST") throw mapFsError(error, path, "create directory");
          const stats = await lstatAt(dir, name);
          if (stats?.isDirectory() && options.existOk) return;
          throw new FileExistsError(path);
        }
      },
      options.parents ? 0o777 : undefined,
    );
  }

  async remove(path: string, options: { recursive: boolean }): Promise<void> {
    await this.ready();
    if (path === "") throw new PermissionDeniedError(path, "Cannot delete root", { reason: "root" });
    reserved.refuse(path, "delete");
    const { parents, name } = splitParent(path);
    await withDirectory(this.rootPath, parents, path, async (dir) => {
      const stats = await lstatAt(dir, name);
      if (stats === null) throw new FileNotFoundError(path);
      if (!stats.isDirectory()) {
        try {
          await fs.promises.unlink(dir.at(name));
        } catch (error) {
          throw mapFsError(error, path, "delete");
        }
        return;
      }
      if (options.recursive) {
        await removeEntry(dir, name, path);
        return;
      }
      try {
        await fs.promises.rmdir(dir.at(name));
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOTEMPTY" || code === "EEXIST") throw new DirectoryNotEmptyError(path, `Directory not empty: ${displayPath(path)} (pass recursive: true)`);
        throw mapFsError(error, path, "delete");
      }
    });
  }

  async *walk(path: string): AsyncIterable<WalkEntry> {
    await this.ready();
    if (reserved.has(path)) throw new FileNotFoundError(path);
    const segments = path === "" ? [] : path.split("/");
    let start = await openBase(this.rootPath);
    try {
      for (const segment of segments) {
        const next = await openChildDir(start, segment, path);
        await start.close();
        start = next;
      }
    } catch (error) {
      await start.close();
      throw error;
    }
    try {
      yield* this.walkDirectory(start, path);
    } finally {
      await start.close();
    }
  }

  /** Depth-first below an open directory; subdirectories are entered by descriptor, never through links. */
  private async *walkDirectory(dir: DirHandle, rel: string): AsyncGenerator<WalkEntry> {
    let names: string[];
    try {
      names = await fs.promises.readdir(dir.self);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return; // removed while we walked
      throw mapFsError(error, rel, "list");
    }
    if (rel === "") names = names.filter((name) => !reserved.has(name));
    for (let i = 0; i < names.length; i += WALK_STAT_CONCURRENCY) {
      const batch = names.slice(i, i + WALK_STAT_CONCURRENCY);
      const stats = await Promise.all(batch.map((name) => lstatAt(dir, name)));
      for (const [j, name] of batch.entries()) {
        const entryStats = stats[j];
        if (entryStats === null || entryStats === undefined) continue; // vanished
        const childPath = rel === "" ? name : `${rel}/${name}`;
        const stat = toDriverStat(entryStats);
        yield { path: childPath, kind: stat.kind, size: stat.size, mode: stat.mode, mtimeMs: stat.mtimeMs };
        if (stat.kind !== "directory") continue;
        let child: DirHandle;
        try {
          child = await openChildDir(dir, name, childPath);
        } catch (error) {
          // Replaced by a link, file or nothing since the lstat: not ours to descend into.
          if (error instanceof WinkError && (error.code === "ENOENT" || error.code === "ENOTDIR" || error.code === "EACCES" || error.code === "ELOOP")) continue;
          throw error;
        }
        try {
          yield* this.walkDirectory(child, childPath);
        } finally {
          await child.close();
        }
      }
    }
  }

  /**
   * Grep acceleration hook (proposed as an optional `FilesystemDriver` method): the files
   * below `path` that may contain the pattern, or null when every file must be searched.
   * A superset of the files the shared JS grep would match (see ripgrep-prefilter.ts).
   */
  async grepCandidates(path: string, query: GrepPrefilterQuery): Promise<ReadonlySet<string> | null> {
    await this.ready();
    if (reserved.has(path)) return null;
    return ripgrepCandidates(this.rootPath, path, query);
  }

  async replaceTree(fill: (tx: TreeTransaction) => Promise<void>): Promise<void> {
    await this.ready();
    const staging = await createTreeStaging(this.rootPath, this.applyOptions);
    try {
      await fill({
        mkdir: (rel, mode) => staging.mkdir(rel, mode),
        createFile: (rel, mode) => staging.createFile(rel, mode),
      });
    } catch (error) {
      await staging.discard().catch(() => undefined);
      throw error;
    }
    await replaceTreeContents(staging, this.applyOptions);
  }
}
