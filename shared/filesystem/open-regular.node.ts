/**
 * Opening a file that someone else may be changing under us (a served session file or
 * archive, an undo-store body) so that what we read is a regular file, the one we looked
 * at, inside the directory we serve:
 *
 * 1. `lstat` the path: a symlink, FIFO, socket or device is refused without being opened.
 * 2. `open` with O_NOFOLLOW (a symlink swapped in since is refused: ELOOP) and O_NONBLOCK (a
 *    FIFO swapped in opens at once instead of blocking a thread-pool thread until a writer
 *    comes — four such opens stall every file operation of the process).
 * 3. `fstat` the descriptor: it must be a regular file with the device and inode the `lstat`
 *    saw. The check is on what was opened, so no later swap can change the answer.
 * 4. With `root`, where `/proc/self/fd` exists (Linux): the kernel's name for the opened
 *    file must lie under `root`, which also catches a parent directory swapped for a link.
 *
 * Everything read afterwards is read through the returned handle, never by name again.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readlinkSync, statSync, type Stats } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { FileNotFoundError, InvalidArgumentError, PermissionDeniedError } from "../errors.js";
import { displayPath } from "./paths.js";
import { errnoCode } from "./errno.js";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** What an open(2) of `path` failing with `error` means to the caller: not there, a link refused, or the error itself. */
function openFailure(path: string, error: unknown): unknown {
  const code = errnoCode(error);
  if (code === "ENOENT" || code === "ENOTDIR") return new FileNotFoundError(path);
  if (code === "ELOOP") return refuse(path, "Refusing to read a symbolic link", "symlink");
  return error;
}

/** Reading a file we did not create: no final symlink, no blocking on a FIFO, no controlling terminal. */
export const SAFE_READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** The same for a path the user named (configuration): a final symlink is followed. */
const FOLLOW_READ_FLAGS = O_RDONLY | O_NONBLOCK | O_NOCTTY;

export interface OpenRegularOptions {
  /** Follow a final symlink: the caller named this file itself (default false). Parents are always followed. */
  readonly follow?: boolean;
  /** The file must lie under this directory (a real path, as `realpath` gives it); checked through `/proc/self/fd` where it exists. */
  readonly root?: string;
}

export interface OpenedRegularFile {
  readonly handle: FileHandle;
  /** `fstat` of the opened descriptor. */
  readonly stats: Stats;
}

function refuse(path: string, message: string, reason: string): PermissionDeniedError {
  return new PermissionDeniedError(path, `${message}: ${displayPath(path)}`, { reason });
}

function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

let procFd: boolean | null = null;

/** Whether `/proc/self/fd` names opened descriptors (Linux with /proc mounted). */
async function hasProcFd(): Promise<boolean> {
  if (procFd === null) procFd = process.platform === "linux" && (await stat("/proc/self/fd").then((stats) => stats.isDirectory(), () => false));
  return procFd;
}

/** True when `opened` (a path as bytes) lies under `root`. */
function isUnder(opened: Buffer, root: string): boolean {
  const prefix = Buffer.from(root.endsWith("/") ? root : `${root}/`);
  return opened.length > prefix.length && opened.subarray(0, prefix.length).equals(prefix);
}

/**
 * Open `path` for reading as described in the module comment. Throws ENOENT when it does not
 * exist and EACCES (`data.reason`: `symlink`, `not-regular`, `changed`, `outside-root`) when
 * it is not a regular file we may read.
 */
export async function openRegularFile(path: string, options: OpenRegularOptions = {}): Promise<OpenedRegularFile> {
  const follow = options.follow === true;
  // The checks around the open are made on the calling thread: each is one metadata call the
  // kernel answers from its caches in microseconds, where a thread-pool round trip cost ~10x
  // that of the main thread (an eval of 2,000 runs opened 2,805 files: 1.3 s of `lstat`s).
  let before: Stats | null;
  try {
    before = follow ? null : lstatSync(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") throw new FileNotFoundError(path);
    throw error;
  }
  if (before !== null && !before.isFile()) throw refuse(path, `Refusing to read ${kindOf(before)}`, before.isSymbolicLink() ? "symlink" : "not-regular");
  let handle: FileHandle;
  try {
    handle = await open(path, follow ? FOLLOW_READ_FLAGS : SAFE_READ_FLAGS);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    const stats = fstatSync(handle.fd);
    if (!stats.isFile()) throw refuse(path, `Refusing to read ${kindOf(stats)}`, "not-regular");
    if (before !== null && (stats.dev !== before.dev || stats.ino !== before.ino)) throw refuse(path, "File was replaced while being opened", "changed");
    if (options.root !== undefined && (await hasProcFd())) {
      const opened = readlinkSync(`/proc/self/fd/${handle.fd}`, { encoding: "buffer" });
      if (!isUnder(opened, options.root)) throw refuse(path, `Opened file lies outside ${displayPath(options.root)}`, "outside-root");
    }
    return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The default opener of library readers given a path by their caller (a session file, an
 * archive): the named file, a final symlink followed (the caller chose it), never blocking on
 * a FIFO, regular files only. Servers reading a folder others write to pass a stricter one.
 */
export function openNamedFile(path: string): Promise<OpenedRegularFile> {
  return openRegularFile(path, { follow: true });
}

/**
 * The whole content of a regular file opened as `openRegularFile` does: exactly the size its
 * descriptor had when opened (a file growing meanwhile cannot make the read unbounded).
 * Throws EINVAL (`data.reason` "too-large") when that size is above `maxBytes`.
 */
export async function readRegularFile(path: string, options: OpenRegularOptions & { readonly maxBytes: number }): Promise<{ bytes: Buffer; stats: Stats }> {
  const { handle, stats } = await openRegularFile(path, options);
  try {
    if (stats.size > options.maxBytes) {
      throw new InvalidArgumentError(`File of ${stats.size} bytes is larger than ${options.maxBytes}: ${displayPath(path)}`, { path, reason: "too-large", limit: options.maxBytes });
    }
    const bytes = Buffer.allocUnsafe(stats.size);
    let done = 0;
    while (done < stats.size) {
      const { bytesRead } = await handle.read(bytes, done, stats.size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return { bytes: done === stats.size ? bytes : bytes.subarray(0, done), stats };
  } finally {
    await handle.close();
  }
}

/** {@link hasProcFd} on the calling thread (the answer is the same, and asked once). */
function hasProcFdSync(): boolean {
  if (procFd === null) {
    try {
      procFd = process.platform === "linux" && statSync("/proc/self/fd").isDirectory();
    } catch {
      procFd = false;
    }
  }
  return procFd;
}

/**
 * A small file's whole content read on the calling thread, opened and checked exactly as
 * {@link openRegularFile} does (the same refusals), or null when its `lstat` says it is larger
 * than `maxBytes` (read it through a handle then). For the many small files of an eval: a
 * thread-pool open, read and close cost ~150 µs of CPU a file where these calls cost ~25 µs,
 * and a page-cached read of a few hundred KiB holds the thread for microseconds. `extra`
 * bytes past the opened size are asked too, so that a caller sees a file that grew
 * (`bytes.length > stats.size`); a file cut meanwhile gives fewer. `length`: the first bytes
 * only (a sniff of its head). `buffer`: read into it when it is large enough (the bytes are
 * then a view of it, the caller's to copy before it is reused).
 */
export function readSmallRegularFileSync(
  path: string,
  options: OpenRegularOptions & { readonly maxBytes: number; readonly extra?: number; readonly length?: number; readonly buffer?: Buffer },
): { bytes: Buffer; stats: Stats } | null {
  const follow = options.follow === true;
  let before: Stats;
  try {
    before = follow ? statSync(path) : lstatSync(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") throw new FileNotFoundError(path);
    throw error;
  }
  if (!follow && !before.isFile()) throw refuse(path, `Refusing to read ${kindOf(before)}`, before.isSymbolicLink() ? "symlink" : "not-regular");
  if (before.size > options.maxBytes) return null;
  let fd: number;
  try {
    fd = openSync(path, follow ? FOLLOW_READ_FLAGS : SAFE_READ_FLAGS);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(path, `Refusing to read ${kindOf(stats)}`, "not-regular");
    if (!follow && (stats.dev !== before.dev || stats.ino !== before.ino)) throw refuse(path, "File was replaced while being opened", "changed");
    if (options.root !== undefined && hasProcFdSync()) {
      const opened = readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" });
      if (!isUnder(opened, options.root)) throw refuse(path, `Opened file lies outside ${displayPath(options.root)}`, "outside-root");
    }
    const want = options.length ?? stats.size + (options.extra ?? 0);
    const bytes = options.buffer !== undefined && options.buffer.length >= want ? options.buffer : Buffer.allocUnsafe(want);
    let done = 0;
    while (done < want) {
      const read = readSync(fd, bytes, done, want - done, done);
      if (read === 0) break;
      done += read;
    }
    return { bytes: done === want ? bytes : bytes.subarray(0, done), stats };
  } finally {
    closeSync(fd);
  }
}
