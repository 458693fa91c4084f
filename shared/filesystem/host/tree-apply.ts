/**
 * Crash-safe application of a set of tree changes to a host directory (archive import,
 * snapshot restore): after a crash at any moment, the workspace ends up either exactly as
 * before or exactly as intended — never in between.
 *
 * How:
 * 1. **Stage.** New content is written into a staging directory on the *same filesystem* as
 *    the root (so moving it in is a rename). By default it lives in the state directory
 *    (outside the workspace); when that is another filesystem (or renames across it fail, as
 *    between bind mounts) it is a hidden `.wink-apply-<pid>-<random>` directory in the root,
 *    which the host driver hides from list/walk and refuses to touch.
 * 2. **Validate** every change against the current tree (kinds, parents, no symlinks on the
 *    way). Nothing in the workspace has changed yet, so any failure up to here just discards
 *    the staging: the workspace is untouched.
 * 3. **Commit**: a journal naming every rename is written to the state directory (fsynced
 *    when durable), and linked into place under a name derived from the root. From this
 *    point the change is decided and will be completed.
 * 4. **Apply**, in phases whose every step can be repeated: deletions move the old entry
 *    into the staging `trash/` (the journal is then replaced by one saying this phase is
 *    over: one file, so no state where a marker outlives its journal), then
 *    directories are created, staged entries are renamed into place, modes are set.
 * 5. The journal is removed (the change is complete), then staging and trash are deleted.
 *
 * `recoverTreeChanges(root)` — run by the host driver before its first operation — finds a
 * journal whose process is gone and repeats step 4 (roll forward), and removes stagings that
 * were never committed (roll back: the workspace never saw them).
 *
 * The root directory itself is never replaced (its inode stays, so a bind mount of it keeps
 * working). Every path inside the root is reached through the confined descriptor walk of
 * `confined.ts`: a symlink planted in the workspace never redirects a rename outside it.
 * One apply per root at a time; concurrent writers to the workspace during an apply are not
 * coordinated with (their changes may be moved to the trash or kept).
 *
 * The file operations are synchronous calls on descriptors held for one phase (`DirTree`):
 * a restore of a few files is a few hundred tiny syscalls, and a thread-pool round trip
 * for each (plus re-opening every directory from the root for each path) cost far more
 * than the syscalls themselves. Long phases give the event loop a turn every
 * `YIELD_EVERY` operations. A descriptor held for a phase is the same confinement as one
 * held for one operation: it names the directory inode reached without following links
 * (a directory moved elsewhere mid-phase is the known limit of `confined.ts`, for longer).
 */
import * as fs from "node:fs";
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import {
  BackendUnavailableError,
  FileExistsError,
  FileNotFoundError,
  InvalidArgumentError,
  IsADirectoryError,
  PermissionDeniedError,
  StorageIOError,
  WinkError,
} from "../../errors.js";
import type { FileSink } from "../driver.js";
import { displayPath } from "../paths.js";
import { processAlive } from "../process-alive.js";
import {
  CREATE_FLAGS,
  type DirHandle,
  type Name,
  assertProcFdAvailable,
  fsyncDirSync,
  lstatAtSync,
  openBaseSync,
  openChildDirSync,
  removeEntrySync,
  writeAllSync,
} from "./confined.js";
import { errnoCode, mapFsError } from "./host-errors.js";

/** Root-level names starting with this are the applier's own (staging inside the root). */
export const STAGING_PREFIX = ".wink-apply-";

const JOURNAL_VERSION = 1;
const PERMISSION_BITS = 0o777;
/** Operations between two turns of the event loop in long phases. */
const YIELD_EVERY = 512;
/** Directory descriptors one `DirTree` keeps open at most (then it starts over). */
const MAX_HELD_DIRS = 256;

/** One change to the tree. Paths are normalised, relative to the root, never "". */
export type TreeChange =
  /** Remove a file, symlink (the link itself) or directory tree; a missing path is fine. */
  | { readonly op: "delete"; readonly path: string }
  /** Create a directory if missing (parents too); set its mode when given. */
  | { readonly op: "mkdir"; readonly path: string; readonly mode?: number }
  /** Move the staged entry `source` (relative to the staging tree) to `path`, replacing a file or link there. */
  | { readonly op: "put"; readonly path: string; readonly source: string }
  /** Set permission bits of an existing file or directory. */
  | { readonly op: "chmod"; readonly path: string; readonly mode: number };

/** A change with its content inline, for `applyTreeChanges`. */
export type TreeEdit =
  | { readonly op: "write"; readonly path: string; readonly data: Uint8Array | AsyncIterable<Uint8Array>; readonly mode?: number }
  | { readonly op: "symlink"; readonly path: string; readonly target: string }
  | { readonly op: "delete"; readonly path: string }
  | { readonly op: "mkdir"; readonly path: string; readonly mode?: number }
  | { readonly op: "chmod"; readonly path: string; readonly mode: number };

/** Named points of an apply, for fault-injection tests (`onStep`). */
export type TreeApplyStep = "staged" | "validated" | "committed" | "deleted" | "op" | "applied" | "cleaned";

export interface TreeApplyOptions {
  /** Directory holding journals (and staging when on the root's filesystem). Default `defaultTreeApplyStateDir()`. */
  readonly stateDir?: string;
  /**
   * fsync staged data, the journal and the applied renames (default true). Off: no fsync
   * at all — a killed process is still recovered exactly (the kernel keeps what was
   * written), a power loss is not. Off only for throwaway trees.
   */
  readonly durable?: boolean;
  /** Test hook awaited at each step; throwing from it simulates a crash at that point. */
  readonly onStep?: (step: TreeApplyStep, detail: { readonly index?: number; readonly path?: string }) => void | Promise<void>;
}

export interface TreeApplyResult {
  /** Entries moved out of the workspace (deleted or replaced directories). */
  readonly deleted: number;
  readonly created: number;
  readonly moved: number;
  readonly chmodded: number;
}

export interface TreeRecoveryResult {
  /** An interrupted, committed apply was completed. */
  readonly rolledForward: boolean;
  /** Uncommitted or leftover staging directories removed. */
  readonly removedStagings: number;
}

// ---------------------------------------------------------------- locations

/** `$XDG_STATE_HOME/wink-debug/tree-apply` (or `~/.local/state/…`, or the temp dir). Persistent, so a journal survives a reboot. */
export function defaultTreeApplyStateDir(): string {
  const xdg = process.env.XDG_STATE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "wink-debug", "tree-apply");
  try {
    const home = homedir();
    if (home) return path.join(home, ".local", "state", "wink-debug", "tree-apply");
  } catch {
    // no home directory: fall through
  }
  return path.join(tmpdir(), "wink-debug-tree-apply");
}

interface RootInfo {
  readonly real: string;
  readonly key: string;
  readonly dev: number;
  readonly ino: number;
  readonly stateDir: string;
}

function rootInfo(root: string, options: TreeApplyOptions): RootInfo {
  assertProcFdAvailable();
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new FileNotFoundError("", `Root directory does not exist: ${root}`, { root });
    throw mapFsError(error, "", `resolve the root ${root} to`);
  }
  const stats = fs.statSync(real);
  if (!stats.isDirectory()) throw new InvalidArgumentError(`Root is not a directory: ${root}`, { root });
  const key = createHash("sha256").update(real).digest("hex").slice(0, 24);
  const stateDir = path.resolve(options.stateDir ?? defaultTreeApplyStateDir());
  return { real, key, dev: stats.dev, ino: stats.ino, stateDir };
}

const journalPath = (info: RootInfo): string => path.join(info.stateDir, `${info.key}.journal`);

/** Keys of applies running in this process (a second concurrent apply on a root is refused). */
const activeApplies = new Set<string>();
/** Staging directory names of this process still in use (being filled or applied). */
const liveStagings = new Set<string>();

function busyError(info: RootInfo, pid: number): BackendUnavailableError {
  return new BackendUnavailableError(`Another tree change is being applied to ${info.real} (process ${pid}); try again when it has finished`, {
    root: info.real,
    pid,
  });
}

async function syncFilesystem(target: string): Promise<void> {
  // syncfs(2) through coreutils: one call makes every staged file and rename durable,
  // instead of an fsync per file. Best effort: a missing `sync` only weakens power-loss safety.
  await new Promise<void>((resolve) => {
    execFile("sync", ["-f", "--", target], { timeout: 60_000 }, () => resolve());
  });
}

// ---------------------------------------------------------------- paths inside a base

/** Segments of a relative path (validated: no "", ".", ".." segments, no NUL). */
function segmentsOf(rel: string, what: string): string[] {
  if (typeof rel !== "string" || rel === "" || rel.includes("\0")) throw new InvalidArgumentError(`Invalid ${what} path: ${displayPath(String(rel))}`, { path: String(rel) });
  const segments = rel.split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") throw new InvalidArgumentError(`Invalid ${what} path: ${displayPath(rel)}`, { path: rel });
  }
  return segments;
}

/** A directory reached from a base path through confined segments. */
interface Location {
  readonly basePath: string;
  readonly segments: readonly Name[];
}

/** A segment as the bytes it names (a string segment is UTF-8), so keys never collide. */
function segmentKey(segment: Name): string {
  if (typeof segment !== "string") return segment.toString("latin1");
  return /^[\x00-\x7f]*$/.test(segment) ? segment : Buffer.from(segment, "utf8").toString("latin1");
}

function keyOf(segments: readonly Name[]): string {
  return segments.map(segmentKey).join("/");
}

/**
 * The directories below one location, each opened once (confined, one hop at a time from
 * its parent's descriptor) and held until `close()`. `forget` drops what an operation
 * moved or removed, so a held descriptor always names what is at its path as far as
 * this apply knows.
 */
class DirTree {
  private readonly held = new Map<string, DirHandle>();

  constructor(private readonly location: Location) {}

  /** The directory `extra` below the location; `createMode` creates missing ones. */
  open(extra: readonly Name[], fullPath: string, createMode?: number): DirHandle {
    if (this.held.size >= MAX_HELD_DIRS) this.close();
    let key = "";
    let dir = this.held.get(key);
    if (dir === undefined) {
      dir = openBaseSync(this.location.basePath);
      try {
        for (const segment of this.location.segments) {
          const next = openChildDirSync(dir, segment, fullPath, createMode);
          dir.closeSync();
          dir = next;
        }
      } catch (error) {
        dir.closeSync();
        throw error;
      }
      this.held.set(key, dir);
    }
    for (const segment of extra) {
      key = key === "" ? segmentKey(segment) : `${key}/${segmentKey(segment)}`;
      let next = this.held.get(key);
      if (next === undefined) {
        next = openChildDirSync(dir, segment, fullPath, createMode);
        this.held.set(key, next);
      }
      dir = next;
    }
    return dir;
  }

  /** Drop the descriptors of `segments` and everything below it. */
  forget(segments: readonly Name[]): void {
    const key = keyOf(segments);
    for (const [held, handle] of this.held) {
      if (key === "" || held === key || held.startsWith(`${key}/`)) {
        handle.closeSync();
        this.held.delete(held);
      }
    }
  }

  close(): void {
    for (const handle of this.held.values()) handle.closeSync();
    this.held.clear();
  }
}

/** Run `fn` on one directory of `location`, opened for the call only. */
function atLocation<T>(location: Location, extra: readonly Name[], fullPath: string, fn: (dir: DirHandle) => T, createMode?: number): T {
  const tree = new DirTree(location);
  try {
    return fn(tree.open(extra, fullPath, createMode));
  } finally {
    tree.close();
  }
}

/** Counts operations and gives the event loop a turn every `YIELD_EVERY` of them. */
function breather(): () => Promise<void> {
  let count = 0;
  return async () => {
    if (++count % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  };
}

// ---------------------------------------------------------------- staging

/**
 * A staging area for one apply: build new content in `treeDir` (with the methods below, or
 * with any tool, e.g. `git --work-tree=<treeDir> checkout`), then hand it to
 * `replaceTreeContents` or `applyStagedChanges`. `discard()` drops it.
 */
export class TreeStaging {
  /** Directory of the whole staging area (absolute). */
  readonly dir: string;
  /** Where the new content goes: paths of `put` sources are relative to it. */
  readonly treeDir: string;
  private finished = false;

  /** @internal use `createTreeStaging`. */
  constructor(
    /** The root as given. */
    readonly root: string,
    /** @internal */ readonly info: RootInfo,
    /** @internal */ readonly location: Location,
    /** True when staging had to live inside the root (hidden, reserved name). */
    readonly insideRoot: boolean,
    readonly options: TreeApplyOptions,
  ) {
    this.dir = insideRoot ? path.join(info.real, String(location.segments[0])) : location.basePath;
    this.treeDir = path.join(this.dir, "tree");
    liveStagings.add(path.basename(this.dir));
  }

  /** @internal */
  get tree(): Location {
    return { basePath: this.location.basePath, segments: [...this.location.segments, "tree"] };
  }

  /** @internal */
  get trash(): Location {
    return { basePath: this.location.basePath, segments: [...this.location.segments, "trash"] };
  }

  private checkOpen(): void {
    if (this.finished) throw new StorageIOError(undefined, "Tree staging already committed or discarded");
  }

  private treeDirs: DirTree | null = null;

  /** The staging tree's directories, held while the staging is being filled. */
  private dirs(): DirTree {
    this.treeDirs ??= new DirTree(this.tree);
    return this.treeDirs;
  }

  private releaseDirs(): void {
    this.treeDirs?.close();
    this.treeDirs = null;
  }

  /** Create a directory in the staging tree (parents included); `mode` sets its permission bits. */
  async mkdir(rel: string, mode?: number): Promise<void> {
    this.checkOpen();
    const dir = this.dirs().open(segmentsOf(rel, "staged"), rel, 0o755);
    if (mode === undefined) return;
    try {
      fs.fchmodSync(dir.fd, mode & PERMISSION_BITS);
    } catch (error) {
      throw mapFsError(error, rel, "set the mode of");
    }
  }

  /** Create a file in the staging tree (parents included) and return a sink for its bytes. */
  async createFile(rel: string, mode?: number): Promise<FileSink> {
    this.checkOpen();
    const segments = segmentsOf(rel, "staged");
    const name = segments.pop() as string;
    const dir = this.dirs().open(segments, rel, 0o755);
    let fd: number;
    try {
      fd = fs.openSync(dir.at(name), CREATE_FLAGS, 0o600);
    } catch (error) {
      if (errnoCode(error) === "EEXIST") throw new FileExistsError(rel, `Duplicate entry in the new tree: ${displayPath(rel)}`);
      throw mapFsError(error, rel, "stage");
    }
    const durable = this.options.durable ?? true;
    let position = 0;
    let closed = false;
    const closeQuietly = (): void => {
      try {
        fs.closeSync(fd);
      } catch {
        // nothing left to release
      }
    };
    return {
      write: async (chunk: Uint8Array): Promise<void> => {
        if (closed) throw new StorageIOError(rel, `Write after close: ${displayPath(rel)}`);
        try {
          writeAllSync(fd, chunk, position);
        } catch (error) {
          closed = true;
          closeQuietly();
          throw mapFsError(error, rel, "stage");
        }
        position += chunk.byteLength;
      },
      close: async (): Promise<void> => {
        if (closed) return;
        closed = true;
        try {
          fs.fchmodSync(fd, (mode ?? 0o644) & PERMISSION_BITS);
          if (durable) fs.fsyncSync(fd);
        } catch (error) {
          throw mapFsError(error, rel, "stage");
        } finally {
          closeQuietly();
        }
      },
    };
  }

  /** Stage a whole file. */
  async writeFile(rel: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode?: number): Promise<void> {
    const sink = await this.createFile(rel, mode);
    try {
      if (data instanceof Uint8Array) await sink.write(data);
      else for await (const chunk of data) await sink.write(chunk);
    } finally {
      await sink.close();
    }
  }

  /** Stage a symbolic link (it is moved into place as a link; never followed). */
  async symlink(rel: string, target: string): Promise<void> {
    this.checkOpen();
    const segments = segmentsOf(rel, "staged");
    const name = segments.pop() as string;
    const dir = this.dirs().open(segments, rel, 0o755);
    try {
      fs.symlinkSync(target, dir.at(name));
    } catch (error) {
      throw mapFsError(error, rel, "stage");
    }
  }

  /** Remove the staging area; the workspace is untouched. Idempotent. */
  async discard(): Promise<void> {
    this.finished = true;
    this.releaseDirs();
    try {
      removeStagingArea(this.info, this.location, this.insideRoot);
    } finally {
      liveStagings.delete(path.basename(this.dir));
    }
  }

  /** @internal */
  markFinished(): void {
    this.checkOpen();
    this.finished = true;
    this.releaseDirs();
  }
}

function removeStagingArea(info: RootInfo, location: Location, insideRoot: boolean): void {
  if (insideRoot) {
    atLocation({ basePath: info.real, segments: [] }, [], "", (root) => removeEntrySync(root, location.segments[0] as Name, String(location.segments[0])));
  } else {
    const parent = path.dirname(location.basePath);
    atLocation({ basePath: parent, segments: [] }, [], "", (dir) => removeEntrySync(dir, path.basename(location.basePath), path.basename(location.basePath)));
  }
}

/** Can entries be renamed from `stagingDir` into the root (same mount, not just same device)? */
function renameWorks(info: RootInfo, stagingDir: string): boolean {
  const probe = `${STAGING_PREFIX}${process.pid}-probe-${randomBytes(6).toString("hex")}`;
  const source = path.join(stagingDir, "probe");
  fs.writeFileSync(source, "");
  const root = openBaseSync(info.real);
  try {
    try {
      fs.renameSync(source, root.at(probe));
    } catch (error) {
      unlinkQuietly(source);
      if (errnoCode(error) === "EXDEV") return false;
      throw mapFsError(error, "", "write into");
    }
    unlinkQuietly(root.at(probe));
    return true;
  } finally {
    root.closeSync();
  }
}

function unlinkQuietly(target: string | Buffer): void {
  try {
    fs.unlinkSync(target);
  } catch {
    // already gone
  }
}

/**
 * Start an apply on `root`: recovers an earlier interrupted apply first, then creates a
 * staging area on the root's filesystem.
 */
export async function createTreeStaging(root: string, options: TreeApplyOptions = {}): Promise<TreeStaging> {
  const info = rootInfo(root, options);
  fs.mkdirSync(info.stateDir, { recursive: true, mode: 0o700 });
  await recoverWithInfo(info, options);
  const unique = `${process.pid}-${randomBytes(6).toString("hex")}`;

  const outside = path.join(info.stateDir, `staging-${info.key}-${unique}`);
  fs.mkdirSync(outside, { mode: 0o700 });
  let usable: boolean;
  try {
    usable = fs.statSync(outside).dev === info.dev && renameWorks(info, outside);
  } catch (error) {
    fs.rmSync(outside, { recursive: true, force: true });
    throw error;
  }
  let staging: TreeStaging;
  if (usable) {
    staging = new TreeStaging(root, info, { basePath: outside, segments: [] }, false, options);
  } else {
    fs.rmSync(outside, { recursive: true, force: true });
    const name = `${STAGING_PREFIX}${unique}`;
    atLocation({ basePath: info.real, segments: [] }, [], "", (dir) => {
      try {
        fs.mkdirSync(dir.at(name), 0o700);
      } catch (error) {
        throw mapFsError(error, "", "create a staging directory in");
      }
    });
    staging = new TreeStaging(root, info, { basePath: info.real, segments: [name] }, true, options);
  }
  try {
    atLocation(staging.location, [], "", (dir) => {
      for (const sub of ["tree", "trash"]) fs.mkdirSync(dir.at(sub), 0o700);
    });
  } catch (error) {
    await staging.discard();
    throw mapFsError(error, "", "prepare staging for");
  }
  return staging;
}

// ---------------------------------------------------------------- journal

type JournalOp =
  | { op: "delete"; path: string; raw?: string; trash: string }
  | { op: "mkdir"; path: string; mode?: number }
  | { op: "put"; path: string; raw?: string; source: string; sourceRaw?: string }
  | { op: "chmod"; path: string; mode: number };

interface Journal {
  version: number;
  root: string;
  rootDev: number;
  rootIno: number;
  pid: number;
  createdAt: string;
  staging: { basePath: string; segments: string[]; insideRoot: boolean };
  durable: boolean;
  ops: JournalOp[];
  /** Set once phase 1 (deletions into the trash) is complete: it must not run again after puts began. */
  deletesDone?: boolean;
}

/** Segments of a journal path, using the raw bytes when the name is not valid UTF-8. */
function journalSegments(text: string, raw: string | undefined): Name[] {
  if (raw === undefined) return text.split("/");
  const bytes = Buffer.from(raw, "base64");
  const segments: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x2f) {
      segments.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return segments;
}

/** Write `journal` to a new temp file next to the journal; returns its path. */
function journalTemp(info: RootInfo, journal: Journal): string {
  const temp = `${journalPath(info)}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  const fd = fs.openSync(temp, CREATE_FLAGS, 0o600);
  try {
    writeAllSync(fd, Buffer.from(JSON.stringify(journal)), 0);
    if (journal.durable) fs.fsyncSync(fd);
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  } finally {
    fs.closeSync(fd);
  }
  return temp;
}

/** Commit: the journal appears atomically, or the apply is refused when another holds it. */
function writeJournal(info: RootInfo, journal: Journal): void {
  const target = journalPath(info);
  const temp = journalTemp(info, journal);
  try {
    // link() is the commit: atomic, and it fails if another apply holds the journal.
    fs.linkSync(temp, target);
  } catch (error) {
    if (errnoCode(error) === "EEXIST") {
      let other: Journal | null = null;
      try {
        other = readJournal(info);
      } catch {
        // unreadable: still busy
      }
      throw busyError(info, other?.pid ?? -1);
    }
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
  if (journal.durable) syncDirectory(info.stateDir);
}

/** Replace the committed journal atomically (after a phase is complete). */
function rewriteJournal(info: RootInfo, journal: Journal): void {
  const temp = journalTemp(info, journal);
  try {
    fs.renameSync(temp, journalPath(info));
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
  if (journal.durable) syncDirectory(info.stateDir);
}

function syncDirectory(dirPath: string): void {
  const dir = openBaseSync(dirPath);
  try {
    fsyncDirSync(dir);
  } finally {
    dir.closeSync();
  }
}

function readJournal(info: RootInfo): Journal | null {
  let text: string;
  try {
    text = fs.readFileSync(journalPath(info), "utf8");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw mapFsError(error, "", "read the tree-change journal of");
  }
  const journal = JSON.parse(text) as Journal;
  if (journal.version !== JOURNAL_VERSION || !Array.isArray(journal.ops)) {
    throw new StorageIOError(undefined, `Unreadable tree-change journal ${journalPath(info)}`, { journal: journalPath(info) });
  }
  return journal;
}

// ---------------------------------------------------------------- apply (shared by commit and recovery)

function moveEntry(fromDir: DirHandle, fromName: Name, toDir: DirHandle, toName: Name, fullPath: string): void {
  try {
    fs.renameSync(fromDir.at(fromName), toDir.at(toName));
  } catch (error) {
    throw mapFsError(error, fullPath, "move");
  }
}

const rootLocation = (journal: Journal): Location => ({ basePath: journal.root, segments: [] });
const stagingLocation = (journal: Journal, sub: "tree" | "trash"): Location => ({
  basePath: journal.staging.basePath,
  segments: [...journal.staging.segments, sub],
});

function isMissing(error: unknown): boolean {
  return error instanceof WinkError && (error.code === "ENOENT" || error.code === "ENOTDIR");
}

/** Run the apply phases of a committed journal. Every step can be repeated after a crash. */
async function runJournal(info: RootInfo, committed: Journal, options: TreeApplyOptions): Promise<TreeApplyResult> {
  let journal = committed;
  const step = async (name: TreeApplyStep, detail: { index?: number; path?: string } = {}): Promise<void> => {
    await options.onStep?.(name, detail);
  };
  const breathe = breather();
  const root = rootLocation(journal);
  let deleted = 0;
  let created = 0;
  let moved = 0;
  let chmodded = 0;

  // Phase 1: move deleted entries into the trash, unless a previous run finished this phase.
  if (journal.deletesDone !== true) {
    const trashDirs = new DirTree(stagingLocation(journal, "trash"));
    const rootDirs = new DirTree(root);
    try {
      const trash = trashDirs.open([], "");
      for (const [index, op] of journal.ops.entries()) {
        if (op.op !== "delete") continue;
        if (lstatAtSync(trash, op.trash) !== null) continue;
        const segments = journalSegments(op.path, op.raw);
        const name = segments.pop() as Name;
        try {
          const dir = rootDirs.open(segments, op.path);
          if (lstatAtSync(dir, name) !== null) {
            rootDirs.forget([...segments, name]);
            moveEntry(dir, name, trash, op.trash, op.path);
            deleted++;
          }
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
        await step("op", { index, path: op.path });
        await breathe();
      }
    } finally {
      trashDirs.close();
      rootDirs.close();
    }
    journal = { ...journal, deletesDone: true };
    rewriteJournal(info, journal);
  }
  await step("deleted");

  // Phase 2: directories.
  const rootDirs = new DirTree(root);
  try {
    for (const [index, op] of journal.ops.entries()) {
      if (op.op !== "mkdir") continue;
      const dir = rootDirs.open(op.path.split("/"), op.path, 0o755);
      if (op.mode !== undefined) fs.fchmodSync(dir.fd, op.mode & PERMISSION_BITS);
      created++;
      await step("op", { index, path: op.path });
      await breathe();
    }
  } finally {
    rootDirs.close();
  }

  // Phase 3: staged entries into place.
  const treeDirs = new DirTree(stagingLocation(journal, "tree"));
  const targetDirs = new DirTree(root);
  try {
    for (const [index, op] of journal.ops.entries()) {
      if (op.op !== "put") continue;
      const sourceSegments = journalSegments(op.source, op.sourceRaw);
      const sourceName = sourceSegments.pop() as Name;
      const targetSegments = journalSegments(op.path, op.raw);
      const targetName = targetSegments.pop() as Name;
      let source: DirHandle;
      try {
        source = treeDirs.open(sourceSegments, op.source);
      } catch (error) {
        if (error instanceof WinkError && error.code === "ENOENT") continue;
        throw error;
      }
      if (lstatAtSync(source, sourceName) === null) continue; // moved by an earlier run
      const dir = targetDirs.open(targetSegments, op.path, 0o755);
      targetDirs.forget([...targetSegments, targetName]);
      try {
        fs.renameSync(source.at(sourceName), dir.at(targetName));
      } catch (error) {
        const code = errnoCode(error);
        if (code !== "EISDIR" && code !== "ENOTDIR" && code !== "ENOTEMPTY" && code !== "EEXIST") throw mapFsError(error, op.path, "move into place");
        // Something unexpected is in the way (validated away, so only a concurrent writer):
        // keep it in the trash rather than fail half-way, then retry once.
        atLocation(stagingLocation(journal, "trash"), [], op.path, (trash) => moveEntry(dir, targetName, trash, `in-the-way-${index}`, op.path));
        moveEntry(source, sourceName, dir, targetName, op.path);
      }
      moved++;
      await step("op", { index, path: op.path });
      await breathe();
    }
  } finally {
    treeDirs.close();
    targetDirs.close();
  }

  // Phase 4: modes.
  const modeDirs = new DirTree(root);
  try {
    for (const [index, op] of journal.ops.entries()) {
      if (op.op !== "chmod") continue;
      const segments = op.path.split("/");
      const name = segments.pop() as string;
      const dir = modeDirs.open(segments, op.path);
      const stats = lstatAtSync(dir, name);
      if (stats !== null && !stats.isSymbolicLink()) {
        try {
          fs.chmodSync(dir.at(name), op.mode & PERMISSION_BITS);
        } catch (error) {
          throw mapFsError(error, op.path, "set the mode of");
        }
      }
      chmodded++;
      await step("op", { index, path: op.path });
      await breathe();
    }
  } finally {
    modeDirs.close();
  }

  if (journal.durable) await syncFilesystem(journal.root);
  // The change is complete once the journal is gone; what follows is cleanup.
  fs.unlinkSync(journalPath(info));
  if (journal.durable) syncDirectory(info.stateDir);
  await step("applied");
  const location: Location = { basePath: journal.staging.basePath, segments: journal.staging.segments };
  removeStagingArea(info, location, journal.staging.insideRoot);
  await step("cleaned");
  return { deleted, created, moved, chmodded };
}

// ---------------------------------------------------------------- planning and validation

interface PlannedOp {
  readonly journal: JournalOp;
  /** Segments of the target path (for validation). */
  readonly segments: readonly Name[];
}

type CurrentKind = "file" | "directory" | "symlink" | "other" | null;

/**
 * Check every change against the current tree before anything is committed: targets of
 * mkdir/put must be creatable (no file, symlink or special file on the way that is not being
 * deleted), put sources must exist, puts must not overlap. Throws with the offending path.
 */
async function validatePlan(staging: TreeStaging, planned: readonly PlannedOp[]): Promise<void> {
  const deletedKeys = new Set(planned.filter((p) => p.journal.op === "delete").map((p) => keyOf(p.segments)));
  const isDeleted = (key: string): boolean => {
    for (let end = key.length; end > 0; end = key.lastIndexOf("/", end - 1)) if (deletedKeys.has(key.slice(0, end))) return true;
    return false;
  };
  const createdDirs = new Set<string>();
  const putKeys = new Set<string>();
  for (const p of planned) if (p.journal.op === "put") putKeys.add(keyOf(p.segments));
  for (const p of planned) {
    if (p.journal.op === "mkdir") for (let i = 1; i <= p.segments.length; i++) createdDirs.add(keyOf(p.segments.slice(0, i)));
  }

  const rootLoc: Location = { basePath: staging.info.real, segments: [] };
  const rootDirs = new DirTree(rootLoc);
  const stagedDirs = new DirTree(staging.tree);
  const breathe = breather();
  try {
    const kindCache = new Map<string, CurrentKind>();
    const currentKind = (segments: readonly Name[], fullPath: string): CurrentKind => {
      const key = keyOf(segments);
      if (kindCache.has(key)) return kindCache.get(key) ?? null;
      const name = segments[segments.length - 1] as Name;
      let kind: CurrentKind = null;
      try {
        const stats = lstatAtSync(rootDirs.open(segments.slice(0, -1), fullPath), name);
        if (stats !== null) kind = stats.isFile() ? "file" : stats.isDirectory() ? "directory" : stats.isSymbolicLink() ? "symlink" : "other";
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      kindCache.set(key, kind);
      return kind;
    };

    const probeDirs = new Map<string, { segments: readonly Name[]; full: string }>([["", { segments: [], full: "" }]]);
    for (const p of planned) {
      await breathe();
      const op = p.journal;
      const full = op.path;
      // Every ancestor must be (or become) a directory; never a link or special file.
      let underDeleted = false;
      let deepestDirectory: readonly Name[] = [];
      for (let i = 1; i < p.segments.length; i++) {
        const ancestor = p.segments.slice(0, i);
        const key = keyOf(ancestor);
        if (isDeleted(key)) {
          underDeleted = true;
          break; // recreated as a plain directory
        }
        if (putKeys.has(key)) throw new InvalidArgumentError(`Change below a replaced entry: ${displayPath(full)}`, { path: full });
        const kind = currentKind(ancestor, full);
        if (kind === "directory") deepestDirectory = ancestor;
        if (kind === null) break;
        if (kind === "directory") continue;
        if (op.op === "delete" && kind === "file") break; // nothing below a file: the delete is a no-op
        throw new PermissionDeniedError(full, `Cannot change ${displayPath(full)}: ${displayPath(key)} is ${kind === "other" ? "a special file" : `a ${kind}`}`, { reason: kind });
      }
      probeDirs.set(keyOf(deepestDirectory), { segments: deepestDirectory, full });
      if (op.op === "delete") continue;
      const key = keyOf(p.segments);
      const kind = underDeleted || isDeleted(key) ? null : currentKind(p.segments, full);
      if (op.op === "mkdir" && kind !== null && kind !== "directory") throw new FileExistsError(full, `Cannot create directory ${displayPath(full)}: a ${kind} is in the way`);
      if (op.op === "put" && kind === "directory") throw new IsADirectoryError(full, `Cannot replace directory ${displayPath(full)} without deleting it first`);
      if (op.op === "put" && kind === "other") throw new PermissionDeniedError(full, `Cannot replace special file ${displayPath(full)}`, { reason: "other" });
      if (op.op === "chmod" && kind === null && !createdDirs.has(key) && !putKeys.has(key)) throw new FileNotFoundError(full);
      if (op.op === "put") {
        const sourceSegments = journalSegments(op.source, op.sourceRaw);
        const sourceName = sourceSegments.pop() as Name;
        let staged: fs.Stats | null;
        try {
          staged = lstatAtSync(stagedDirs.open(sourceSegments, op.source), sourceName);
        } catch {
          staged = null;
        }
        if (staged === null) throw new FileNotFoundError(op.source, `Staged entry missing: ${displayPath(op.source)}`);
        if (staged.isDirectory() && kind !== null) throw new FileExistsError(full, `Cannot replace ${displayPath(full)} with a directory without deleting it first`);
      }
    }
    const trashDirs = new DirTree(staging.trash);
    try {
      const trash = trashDirs.open([], "");
      for (const { segments, full } of probeDirs.values()) {
        probeRename(staging.info, rootDirs, trash, segments, full);
        await breathe();
      }
    } finally {
      trashDirs.close();
    }
  } finally {
    rootDirs.close();
    stagedDirs.close();
  }
}

/**
 * Prove that entries can be renamed between the staging area and `segments` (same mount,
 * writable) by moving a probe there and back, so that a read-only or separately mounted
 * directory fails the apply *before* the commit instead of halfway through it.
 */
function probeRename(info: RootInfo, rootDirs: DirTree, trash: DirHandle, segments: readonly Name[], full: string): void {
  const shown = segments.length === 0 ? "the root" : displayPath(keyOf(segments));
  const probe = `${STAGING_PREFIX}${process.pid}-probe-${randomBytes(6).toString("hex")}`;
  const dir = rootDirs.open(segments, full);
  // The probe sits in a workspace directory for a moment: name it in a record first, so a
  // recovery after a crash right then can find and remove it (only the root is scanned).
  const record = probeRecordPath(info, probe);
  fs.writeFileSync(record, JSON.stringify({ probe, segments: segments.map((s) => Buffer.from(s).toString("base64")) }));
  let inWorkspace = false;
  try {
    fs.closeSync(fs.openSync(trash.at("probe"), CREATE_FLAGS, 0o600));
    try {
      fs.renameSync(trash.at("probe"), dir.at(probe));
    } catch (error) {
      if (errnoCode(error) === "EXDEV") {
        throw new PermissionDeniedError(full, `Cannot change ${displayPath(full)} atomically: ${shown} is on another filesystem (mount point) than the staging area`, { reason: "cross-device" });
      }
      throw mapFsError(error, full, `change (in ${shown})`);
    }
    inWorkspace = true;
    fs.renameSync(dir.at(probe), trash.at("probe"));
    inWorkspace = false;
  } finally {
    unlinkQuietly(trash.at("probe"));
    // A probe still in the workspace keeps its record, for the next recovery.
    if (!inWorkspace) unlinkQuietly(record);
  }
}

function probeRecordPath(info: RootInfo, probe: string): string {
  return path.join(info.stateDir, `${info.key}.probe.${probe}`);
}

/** Remove probes that a crashed apply left in workspace directories (see `probeRename`); `names` lists the state directory. */
function removeDeadProbes(info: RootInfo, names: readonly string[], isDead: (probe: string) => boolean): number {
  const prefix = `${info.key}.probe.`;
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const probe = name.slice(prefix.length);
    if (!isDead(probe)) continue;
    const recordPath = path.join(info.stateDir, name);
    try {
      const record = JSON.parse(fs.readFileSync(recordPath, "utf8")) as { probe?: unknown; segments?: unknown };
      if (record.probe === probe && Array.isArray(record.segments)) {
        const segments = record.segments.map((segment) => Buffer.from(String(segment), "base64"));
        atLocation({ basePath: info.real, segments: [] }, segments, probe, (dir) => {
          fs.unlinkSync(dir.at(probe));
          removed++;
        });
      }
    } catch {
      // The probe was already moved back, or its directory is gone: nothing left to remove.
    }
    unlinkQuietly(recordPath);
  }
  return removed;
}

function planChanges(changes: readonly TreeChange[]): PlannedOp[] {
  const planned: PlannedOp[] = [];
  const deletes: string[] = [];
  for (const change of changes) {
    if (change.op === "delete") deletes.push(change.path);
  }
  const deleteSet = new Set(deletes);
  const coveredByAncestor = (p: string): boolean => {
    for (let slash = p.lastIndexOf("/"); slash > 0; slash = p.lastIndexOf("/", slash - 1)) if (deleteSet.has(p.slice(0, slash))) return true;
    return false;
  };
  let trashIndex = 0;
  const seenDeletes = new Set<string>();
  for (const change of changes) {
    const segments = segmentsOf(change.path, "target");
    switch (change.op) {
      case "delete":
        if (coveredByAncestor(change.path) || seenDeletes.has(change.path)) break;
        seenDeletes.add(change.path);
        planned.push({ journal: { op: "delete", path: change.path, trash: `d${trashIndex++}` }, segments });
        break;
      case "mkdir":
        planned.push({ journal: { op: "mkdir", path: change.path, ...(change.mode === undefined ? {} : { mode: change.mode }) }, segments });
        break;
      case "put":
        segmentsOf(change.source, "staged");
        planned.push({ journal: { op: "put", path: change.path, source: change.source }, segments });
        break;
      case "chmod":
        planned.push({ journal: { op: "chmod", path: change.path, mode: change.mode }, segments });
        break;
      default:
        throw new InvalidArgumentError(`Unknown tree change ${JSON.stringify((change as { op?: unknown }).op)}`, {});
    }
  }
  const puts = planned.filter((p) => p.journal.op === "put").map((p) => p.journal.path).sort();
  for (let i = 1; i < puts.length; i++) {
    const previous = puts[i - 1] as string;
    const current = puts[i] as string;
    if (current === previous || current.startsWith(`${previous}/`)) throw new InvalidArgumentError(`Overlapping changes: ${displayPath(previous)} and ${displayPath(current)}`, { path: current });
  }
  return planned;
}

async function commitAndRun(staging: TreeStaging, planned: readonly PlannedOp[], options: TreeApplyOptions): Promise<TreeApplyResult> {
  const info = staging.info;
  if (activeApplies.has(info.key)) {
    await staging.discard();
    throw busyError(info, process.pid);
  }
  activeApplies.add(info.key);
  try {
    let journal: Journal;
    try {
      await options.onStep?.("staged", {});
      await validatePlan(staging, planned);
      await options.onStep?.("validated", {});
      const durable = options.durable ?? true;
      if (durable) await syncFilesystem(staging.dir);
      staging.markFinished();
      journal = {
        version: JOURNAL_VERSION,
        root: info.real,
        rootDev: info.dev,
        rootIno: info.ino,
        pid: process.pid,
        createdAt: new Date().toISOString(),
        staging: { basePath: staging.location.basePath, segments: staging.location.segments.map(String), insideRoot: staging.insideRoot },
        durable,
        ops: planned.map((p) => p.journal),
      };
      writeJournal(info, journal);
    } catch (error) {
      try {
        removeStagingArea(info, staging.location, staging.insideRoot);
      } catch {
        // left for the next recovery
      }
      throw error;
    }
    await options.onStep?.("committed", {});
    return await runJournal(info, journal, options);
  } finally {
    activeApplies.delete(info.key);
    liveStagings.delete(path.basename(staging.dir));
  }
}

// ---------------------------------------------------------------- public entry points

/**
 * Apply `changes` whose `put` sources were staged in `staging.treeDir`. All-or-nothing:
 * validation errors leave the workspace untouched; after the commit the change completes
 * (or is completed by `recoverTreeChanges` after a crash).
 */
export async function applyStagedChanges(staging: TreeStaging, changes: readonly TreeChange[], options: TreeApplyOptions = staging.options): Promise<TreeApplyResult> {
  let planned: PlannedOp[];
  try {
    planned = planChanges(changes);
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return commitAndRun(staging, planned, options);
}

/**
 * Make the root's contents exactly `staging.treeDir`'s: every current top-level entry goes,
 * every staged top-level entry comes in, by rename (the root inode stays).
 */
export async function replaceTreeContents(staging: TreeStaging, options: TreeApplyOptions = staging.options): Promise<TreeApplyResult> {
  const planned: PlannedOp[] = [];
  try {
    const rootLoc: Location = { basePath: staging.info.real, segments: [] };
    const current = atLocation(rootLoc, [], "", (dir) => fs.readdirSync(dir.self, { encoding: "buffer" }));
    let index = 0;
    for (const name of current) {
      if (name.toString("latin1").startsWith(STAGING_PREFIX)) continue;
      planned.push({ journal: { op: "delete", ...encodedPath(name), trash: `d${index++}` }, segments: [name] });
    }
    const incoming = atLocation(staging.tree, [], "", (dir) => fs.readdirSync(dir.self, { encoding: "buffer" }));
    for (const name of incoming) {
      const encoded = encodedPath(name);
      planned.push({
        journal: { op: "put", ...encoded, source: encoded.path, ...(encoded.raw === undefined ? {} : { sourceRaw: encoded.raw }) },
        segments: [name],
      });
    }
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return commitAndRun(staging, planned, options);
}

function encodedPath(name: Buffer): { path: string; raw?: string } {
  const text = name.toString("utf8");
  return Buffer.from(text, "utf8").equals(name) ? { path: text } : { path: text, raw: name.toString("base64") };
}

/**
 * One-shot: stage the content of `edits` and apply them all-or-nothing. Writes replace files
 * (a hard link elsewhere is never written through), deletes remove links not their targets.
 */
export async function applyTreeChanges(root: string, edits: readonly TreeEdit[], options: TreeApplyOptions = {}): Promise<TreeApplyResult> {
  const staging = await createTreeStaging(root, options);
  const changes: TreeChange[] = [];
  try {
    let index = 0;
    for (const edit of edits) {
      switch (edit.op) {
        case "write": {
          const source = `s${index++}`;
          await staging.writeFile(source, edit.data, edit.mode);
          changes.push({ op: "put", path: edit.path, source });
          break;
        }
        case "symlink": {
          const source = `s${index++}`;
          await staging.symlink(source, edit.target);
          changes.push({ op: "put", path: edit.path, source });
          break;
        }
        default:
          changes.push(edit);
      }
    }
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return applyStagedChanges(staging, changes, options);
}

async function recoverWithInfo(info: RootInfo, options: TreeApplyOptions): Promise<TreeRecoveryResult> {
  let rolledForward = false;
  const journal = readJournal(info);
  if (journal !== null) {
    if (activeApplies.has(info.key) || (journal.pid !== process.pid && processAlive(journal.pid))) throw busyError(info, journal.pid);
    if (journal.rootDev !== info.dev || journal.rootIno !== info.ino) {
      throw new StorageIOError(undefined, `The interrupted tree change recorded in ${journalPath(info)} was for another directory at ${info.real}; move the journal away to continue`, {
        journal: journalPath(info),
      });
    }
    await runJournal(info, journal, { ...options, onStep: undefined });
    rolledForward = true;
  }
  // Stagings of processes that are gone were never committed (or were cleaned up late).
  let removedStagings = 0;
  const dead = (name: string, prefix: string): boolean => {
    if (!name.startsWith(prefix)) return false;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    // Ours but no longer in use (an apply of this process failed after its commit), or a dead process's.
    if (pid === process.pid) return !name.includes("-probe-") && !liveStagings.has(name) && !activeApplies.has(info.key);
    return !processAlive(pid);
  };
  let names: string[];
  try {
    names = fs.readdirSync(info.stateDir);
  } catch {
    names = [];
  }
  for (const name of names) {
    if (dead(name, `staging-${info.key}-`)) {
      fs.rmSync(path.join(info.stateDir, name), { recursive: true, force: true });
      removedStagings++;
    } else if (dead(name, `${info.key}.journal.tmp-`)) {
      unlinkQuietly(path.join(info.stateDir, name));
    }
  }
  atLocation({ basePath: info.real, segments: [] }, [], "", (dir) => {
    for (const name of fs.readdirSync(dir.self)) {
      if (dead(name, STAGING_PREFIX)) {
        removeEntrySync(dir, name, name);
        removedStagings++;
      }
    }
  });
  removedStagings += removeDeadProbes(info, names, (probe) => {
    const pid = Number.parseInt(probe.slice(STAGING_PREFIX.length), 10);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
  });
  return { rolledForward, removedStagings };
}

/**
 * Bring `root` back to a consistent state after a crash: complete a committed apply whose
 * process is gone, and remove stagings that were never committed. Cheap when there is
 * nothing to do. Throws EUNAVAILABLE while another live process is applying.
 */
export async function recoverTreeChanges(root: string, options: TreeApplyOptions = {}): Promise<TreeRecoveryResult> {
  const info = rootInfo(root, options);
  return recoverWithInfo(info, options);
}

/** True when a journal for `root` exists (an apply is running or was interrupted). */
export async function hasPendingTreeChanges(root: string, options: TreeApplyOptions = {}): Promise<boolean> {
  const info = rootInfo(root, options);
  return fs.existsSync(journalPath(info));
}
