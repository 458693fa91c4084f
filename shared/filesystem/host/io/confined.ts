/**
 * Race-free confinement of host file operations to a base directory, on Linux.
 *
 * Node has no openat()/openat2(), so we get the same effect through `/proc/self/fd`: the
 * base is opened once per operation, then every directory below it is opened one segment at
 * a time with O_DIRECTORY|O_NOFOLLOW *relative to the previous directory's descriptor*, by
 * opening `/proc/self/fd/<parent>/<segment>`. The kernel jumps straight to the inode the
 * parent descriptor holds (it does not look the parent up by name again), and O_NOFOLLOW
 * refuses a symlink in the one component it resolves. The final open/lstat/rename/unlink
 * goes through the parent's `/proc/self/fd/<fd>/<name>` the same way. So a directory that
 * is swapped for a symlink between a check and a use can make an operation fail, but can
 * never make it leave the base: there is no window in which a path is resolved by name from
 * the base again.
 *
 * Policy (pinned): symlinks are never followed, whether they point inside the base or out.
 * A symlink in the middle of a path, or as the file to read or write, is refused with EACCES
 * (ELOOP when the link is part of a loop); deleting removes the link itself. Special files
 * (FIFOs, sockets, devices) are refused as "not a regular file" without being opened.
 *
 * Known limits: the base path itself is resolved by name (it is configuration, not input);
 * a directory that another process *moves out of* the base while we hold its descriptor is
 * still used for that one operation (the same holds for openat2 with RESOLVE_BENEATH).
 * Requires a mounted /proc (Linux); `assertProcFdAvailable` checks it.
 */
import * as fs from "node:fs";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import {
  BackendUnavailableError,
  FileNotFoundError,
  IsADirectoryError,
  NotADirectoryError,
  PermissionDeniedError,
  SymlinkLoopError,
  type WinkError,
} from "../../../errors.js";
import type { EntryKind } from "../../protocol.js";
import { displayPath } from "../../paths.js";
import { errnoCode } from "../../errno.js";
import { mapFsError } from "./host-errors.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fs.constants;

/** Flags for opening a directory segment: never a symlink, never anything but a directory. */
export const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
/** Flags for reading a file: no symlink, no blocking on FIFOs, no controlling terminal. */
export const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** Flags for a new temp/staged file: must not exist (O_EXCL never follows a link either). */
export const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY;
/** Flags for appending in place. */
export const APPEND_FLAGS = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;

export const openFd = promisify(fs.open);
export const closeFd = promisify(fs.close);
export const fstatFd = promisify(fs.fstat);
export const fsyncFd = promisify(fs.fsync);
export const fchmodFd = promisify(fs.fchmod);
export const fchownFd = promisify(fs.fchown);
const readFd = promisify(fs.read);
const writeFd = promisify(fs.write);

export type Name = string | Buffer;

const PROC_FD = "/proc/self/fd";
let procChecked = false;

/** Throws EUNAVAILABLE when `/proc/self/fd` cannot be used for confinement (non-Linux, no /proc). */
export function assertProcFdAvailable(): void {
  if (procChecked) return;
  let ok: boolean;
  try {
    ok = process.platform === "linux" && fs.statSync(PROC_FD).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new BackendUnavailableError("The host backend needs Linux with /proc mounted (it confines every path through /proc/self/fd)", {
      platform: process.platform,
    });
  }
  procChecked = true;
}

export function kindOf(stats: fs.Stats): EntryKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

/** Random hidden name for a temp entry next to its target (fixed length, so never too long). */
export function tempName(prefix = ".wink-tmp-"): string {
  return `${prefix}${randomBytes(8).toString("hex")}`;
}

/** An open directory descriptor and the workspace-relative path it stands for. */
export class DirHandle {
  private open = true;
  private readonly prefix: string;

  constructor(
    readonly fd: number,
    /** Relative path of this directory from the base ("" for the base). */
    readonly rel: string,
  ) {
    this.prefix = `${PROC_FD}/${fd}`;
  }

  /** A path naming this very directory, for readdir/fsync-free calls that take a path. */
  get self(): string {
    if (!this.open) throw new Error(`directory handle for ${displayPath(this.rel)} used after close`);
    return this.prefix;
  }

  /** A path naming `name` inside this directory, resolved through the descriptor (never by name). */
  at(name: Name): string | Buffer {
    if (!this.open) throw new Error(`directory handle for ${displayPath(this.rel)} used after close`);
    return typeof name === "string" ? `${this.prefix}/${name}` : Buffer.concat([Buffer.from(`${this.prefix}/`), name]);
  }

  /** Relative path of a child for messages. */
  child(name: Name): string {
    const text = typeof name === "string" ? name : name.toString("utf8");
    return this.rel === "" ? text : `${this.rel}/${text}`;
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await closeFd(this.fd).catch(() => undefined);
  }

  closeSync(): void {
    if (!this.open) return;
    this.open = false;
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed or never valid: nothing to release
    }
  }
}

function baseOpenError(error: unknown, basePath: string): WinkError {
  const code = errnoCode(error);
  if (code === "ENOENT") return new FileNotFoundError("", `Root directory does not exist: ${basePath}`, { root: basePath });
  if (code === "ENOTDIR") return new NotADirectoryError("", `Root is not a directory: ${basePath}`, { root: basePath });
  return mapFsError(error, "", "open the root directory");
}

/** Open the base directory itself (its own path is followed: it is configuration). */
export async function openBase(basePath: string): Promise<DirHandle> {
  try {
    return new DirHandle(await openFd(basePath, O_RDONLY | O_DIRECTORY), "");
  } catch (error) {
    throw baseOpenError(error, basePath);
  }
}

/** `openBase` without a thread-pool round trip. */
export function openBaseSync(basePath: string): DirHandle {
  try {
    return new DirHandle(fs.openSync(basePath, O_RDONLY | O_DIRECTORY), "");
  } catch (error) {
    throw baseOpenError(error, basePath);
  }
}

function absentOrThrow(error: unknown, dir: DirHandle, name: Name): null {
  const code = errnoCode(error);
  if (code === "ENOENT" || code === "ENOTDIR") return null;
  throw mapFsError(error, dir.child(name), "stat");
}

/** lstat of `name` in `dir`; null when it does not exist. */
export async function lstatAt(dir: DirHandle, name: Name): Promise<fs.Stats | null> {
  try {
    return await fs.promises.lstat(dir.at(name));
  } catch (error) {
    return absentOrThrow(error, dir, name);
  }
}

/** `lstatAt` without a thread-pool round trip. */
export function lstatAtSync(dir: DirHandle, name: Name): fs.Stats | null {
  try {
    return fs.lstatSync(dir.at(name));
  } catch (error) {
    return absentOrThrow(error, dir, name);
  }
}

/**
 * The error for a path that runs into a symlink: ELOOP when following it would loop,
 * EACCES otherwise. Following is only ever done by a metadata-only stat, to classify.
 */
export async function symlinkRefusal(dir: DirHandle, name: Name, fullPath: string): Promise<WinkError> {
  return symlinkRefusalSync(dir, name, fullPath);
}

function symlinkRefusalSync(dir: DirHandle, name: Name, fullPath: string): WinkError {
  const component = dir.child(name);
  try {
    fs.statSync(dir.at(name));
  } catch (error) {
    if (errnoCode(error) === "ELOOP") return new SymlinkLoopError(fullPath, `Too many levels of symbolic links: ${displayPath(component)}`);
  }
  const where = component === fullPath ? "" : ` (in ${displayPath(fullPath)})`;
  return new PermissionDeniedError(fullPath, `Refusing to follow symbolic link ${displayPath(component)}${where}: symlinks are never followed`, {
    reason: "symlink",
    component,
  });
}

/** The error for an entry that is neither a regular file nor a directory. */
export function specialFileRefusal(fullPath: string, component: string, action: string): WinkError {
  return new PermissionDeniedError(fullPath, `Refusing to ${action} ${displayPath(component)}: not a regular file`, { reason: "other", component });
}

/** Error for an existing entry of the wrong kind, given its lstat. */
export async function kindRefusal(dir: DirHandle, name: Name, stats: fs.Stats, fullPath: string, action: string): Promise<WinkError> {
  return kindRefusalSync(dir, name, stats, fullPath, action);
}

function kindRefusalSync(dir: DirHandle, name: Name, stats: fs.Stats, fullPath: string, action: string): WinkError {
  const kind = kindOf(stats);
  if (kind === "symlink") return symlinkRefusalSync(dir, name, fullPath);
  if (kind === "directory") return new IsADirectoryError(fullPath);
  if (kind === "file") return new NotADirectoryError(fullPath, `Not a directory: ${displayPath(dir.child(name))}${dir.child(name) === fullPath ? "" : ` (in ${displayPath(fullPath)})`}`);
  return specialFileRefusal(fullPath, dir.child(name), action);
}

/**
 * Open the directory `name` below `dir` without following links. With `createMode`, a
 * missing directory is created first. `fullPath` is the path the caller asked for (messages).
 */
export async function openChildDir(dir: DirHandle, name: Name, fullPath: string, createMode?: number): Promise<DirHandle> {
  const rel = dir.child(name);
  try {
    return new DirHandle(await openFd(dir.at(name), DIR_FLAGS), rel);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" && createMode !== undefined) {
      try {
        await fs.promises.mkdir(dir.at(name), createMode);
      } catch (mkdirError) {
        if (errnoCode(mkdirError) !== "EEXIST") throw mapFsError(mkdirError, rel, "create directory");
      }
      return openChildDir(dir, name, fullPath);
    }
    throw childDirError(error, dir, name, fullPath);
  }
}

/** `openChildDir` without thread-pool round trips (same checks, same errors). */
export function openChildDirSync(dir: DirHandle, name: Name, fullPath: string, createMode?: number): DirHandle {
  const rel = dir.child(name);
  try {
    return new DirHandle(fs.openSync(dir.at(name), DIR_FLAGS), rel);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" && createMode !== undefined) {
      try {
        fs.mkdirSync(dir.at(name), createMode);
      } catch (mkdirError) {
        if (errnoCode(mkdirError) !== "EEXIST") throw mapFsError(mkdirError, rel, "create directory");
      }
      return openChildDirSync(dir, name, fullPath);
    }
    throw childDirError(error, dir, name, fullPath);
  }
}

/** Why `name` in `dir` could not be opened as a directory (classified by an lstat). */
function childDirError(error: unknown, dir: DirHandle, name: Name, fullPath: string): WinkError {
  const rel = dir.child(name);
  const code = errnoCode(error);
  if (code === "ENOENT") return new FileNotFoundError(fullPath, `No such file or directory: ${displayPath(rel)}${rel === fullPath ? "" : ` (in ${displayPath(fullPath)})`}`);
  if (code === "ENOTDIR" || code === "ELOOP") {
    const stats = lstatAtSync(dir, name);
    if (stats === null) return new FileNotFoundError(fullPath);
    if (stats.isDirectory()) return new PermissionDeniedError(fullPath, `Directory changed while being opened: ${displayPath(rel)}`, { reason: "race" });
    return kindRefusalSync(dir, name, stats, fullPath, "enter");
  }
  return mapFsError(error, rel, "open directory");
}

/**
 * Run `fn` on the directory reached by `segments` from `basePath`, one confined hop at a
 * time; every descriptor is closed afterwards. `createMode` creates missing directories.
 */
export async function withDirectory<T>(
  basePath: string,
  segments: readonly string[],
  fullPath: string,
  fn: (dir: DirHandle) => Promise<T>,
  createMode?: number,
): Promise<T> {
  let dir = await openBase(basePath);
  try {
    for (const segment of segments) {
      const next = await openChildDir(dir, segment, fullPath, createMode);
      await dir.close();
      dir = next;
    }
    return await fn(dir);
  } finally {
    await dir.close();
  }
}

/** Split a normalised relative path into its parent's segments and its last name. */
export function splitParent(path: string): { parents: string[]; name: string } {
  const segments = path === "" ? [] : path.split("/");
  const name = segments.pop() ?? "";
  return { parents: segments, name };
}

/**
 * Open `name` in `dir` for reading after checking (lstat) that it is a regular file, then
 * check (fstat) that what we opened is that same regular file. Returns the fd and its size.
 */
export async function openRegularForRead(dir: DirHandle, name: Name, fullPath: string): Promise<{ fd: number; size: number }> {
  const before = await lstatAt(dir, name);
  if (before === null) throw new FileNotFoundError(fullPath);
  if (!before.isFile()) throw await kindRefusal(dir, name, before, fullPath, "read");
  let fd: number;
  try {
    fd = await openFd(dir.at(name), READ_FLAGS);
  } catch (error) {
    if (errnoCode(error) === "ELOOP") throw await symlinkRefusal(dir, name, fullPath);
    throw mapFsError(error, fullPath, "read");
  }
  try {
    const after = await fstatFd(fd);
    if (!after.isFile() || after.ino !== before.ino || after.dev !== before.dev) {
      throw new PermissionDeniedError(fullPath, `File changed while being opened: ${displayPath(fullPath)}`, { reason: "race" });
    }
    return { fd, size: after.size };
  } catch (error) {
    await closeFd(fd).catch(() => undefined);
    throw error;
  }
}

/** Read exactly [offset, offset+length) of an open file, bounded by `size` (never unbounded). */
export async function readRange(fd: number, size: number, offset: number, length: number, fullPath: string): Promise<Uint8Array> {
  const start = Math.min(Math.max(0, offset), size);
  const want = Math.max(0, Math.min(length, size - start));
  const buffer = Buffer.allocUnsafe(want);
  let done = 0;
  try {
    while (done < want) {
      const { bytesRead } = await readFd(fd, buffer, done, want - done, start + done);
      if (bytesRead === 0) break; // the file shrank since fstat
      done += bytesRead;
    }
  } catch (error) {
    throw mapFsError(error, fullPath, "read");
  }
  return new Uint8Array(buffer.buffer, buffer.byteOffset, done);
}

/** Write all of `data` to `fd` (positional when `position` is given). */
export async function writeAll(fd: number, data: Uint8Array, position: number | null): Promise<void> {
  let done = 0;
  while (done < data.byteLength) {
    const { bytesWritten } = await writeFd(fd, data, done, data.byteLength - done, position === null ? null : position + done);
    done += bytesWritten;
  }
}

/** Unlink an entry, ignoring "already gone". */
export async function unlinkQuietly(dir: DirHandle, name: Name): Promise<void> {
  await fs.promises.unlink(dir.at(name)).catch(() => undefined);
}

function dirSyncError(error: unknown, dir: DirHandle): void {
  const code = errnoCode(error);
  if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EBADF") throw mapFsError(error, dir.rel, "sync directory");
}

/** fsync a directory's entries (after a rename or unlink), best effort where unsupported. */
export async function fsyncDir(dir: DirHandle): Promise<void> {
  try {
    await fsyncFd(dir.fd);
  } catch (error) {
    dirSyncError(error, dir);
  }
}

/** `fsyncDir`, blocking. */
export function fsyncDirSync(dir: DirHandle): void {
  try {
    fs.fsyncSync(dir.fd);
  } catch (error) {
    dirSyncError(error, dir);
  }
}

/** `writeAll` for a positional write, blocking (small staged files: no thread-pool round trip per chunk). */
export function writeAllSync(fd: number, data: Uint8Array, position: number): void {
  let done = 0;
  while (done < data.byteLength) done += fs.writeSync(fd, data, done, data.byteLength - done, position + done);
}

/**
 * Remove `name` from `dir`: a file or link is unlinked (a link is never followed), a
 * directory is emptied depth-first through descriptors and removed. Names are read as raw
 * bytes so entries whose names are not valid UTF-8 are removed too.
 */
export async function removeEntry(dir: DirHandle, name: Name, fullPath: string): Promise<void> {
  const stats = await lstatAt(dir, name);
  if (stats === null) return;
  if (!stats.isDirectory()) {
    try {
      await fs.promises.unlink(dir.at(name));
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") throw mapFsError(error, fullPath, "delete");
    }
    return;
  }
  let child: DirHandle;
  try {
    child = await openChildDir(dir, name, fullPath);
  } catch (error) {
    // Swapped for something else since the lstat: remove whatever is there now, once.
    const now = await lstatAt(dir, name);
    if (now === null) return;
    if (now.isDirectory()) throw error;
    await fs.promises.unlink(dir.at(name)).catch((unlinkError: unknown) => {
      if (errnoCode(unlinkError) !== "ENOENT") throw mapFsError(unlinkError, fullPath, "delete");
    });
    return;
  }
  try {
    const names = await fs.promises.readdir(child.self, { encoding: "buffer" });
    for (const entry of names) await removeEntry(child, entry, `${fullPath}/${entry.toString("utf8")}`);
  } catch (error) {
    throw mapFsError(error, fullPath, "delete");
  } finally {
    await child.close();
  }
  try {
    await fs.promises.rmdir(dir.at(name));
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw mapFsError(error, fullPath, "delete");
  }
}

/** `removeEntry`, blocking: the same descriptor walk without a thread-pool round trip per entry. */
export function removeEntrySync(dir: DirHandle, name: Name, fullPath: string): void {
  const stats = lstatAtSync(dir, name);
  if (stats === null) return;
  if (!stats.isDirectory()) {
    unlinkOrGone(dir, name, fullPath);
    return;
  }
  let child: DirHandle;
  try {
    child = openChildDirSync(dir, name, fullPath);
  } catch (error) {
    // Swapped for something else since the lstat: remove whatever is there now, once.
    const now = lstatAtSync(dir, name);
    if (now === null) return;
    if (now.isDirectory()) throw error;
    unlinkOrGone(dir, name, fullPath);
    return;
  }
  try {
    for (const entry of fs.readdirSync(child.self, { encoding: "buffer" })) removeEntrySync(child, entry, `${fullPath}/${entry.toString("utf8")}`);
  } catch (error) {
    throw mapFsError(error, fullPath, "delete");
  } finally {
    child.closeSync();
  }
  try {
    fs.rmdirSync(dir.at(name));
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw mapFsError(error, fullPath, "delete");
  }
}

function unlinkOrGone(dir: DirHandle, name: Name, fullPath: string): void {
  try {
    fs.unlinkSync(dir.at(name));
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw mapFsError(error, fullPath, "delete");
  }
}

export { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY };
