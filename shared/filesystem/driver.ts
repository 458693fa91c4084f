/**
 * The small interface a backend implements. Everything else of the `Filesystem` protocol
 * (path rules, limits, mount points, line pagination, UTF-8 decoding, glob, grep,
 * streaming, archives) lives once in `DriverFilesystem` above the drivers, so every backend
 * behaves the same (the unstorage idea: small drivers, shared behaviour above them).
 *
 * Contract for every driver method:
 * - `path` is already normalised and confined: relative, POSIX, no `.`/`..`, no empty
 *   segments, "" for the root. The driver still must not let the host resolve it outside
 *   its root (symlinks, races): that part is the driver's own job.
 * - Errors are `FilesystemError`s from `../errors.ts` with the given path in `data.path`.
 * - Symlinks and special files are never followed: they are reported with their kind and
 *   refused (EACCES) when read or written through.
 */
import type { EntryKind, WriteMode } from "./protocol.js";

export interface DriverStat {
  readonly kind: EntryKind;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly birthtimeMs: number | null;
  readonly mode: number | null;
}

export interface DriverEntry {
  readonly name: string;
  readonly kind: EntryKind;
}

/** One node found by `walk`: files with their size, directories (so empty ones survive). */
export interface WalkEntry {
  /** Relative path from the root (not from the walk's start). */
  readonly path: string;
  readonly kind: EntryKind;
  readonly size: number;
  readonly mode: number | null;
  readonly mtimeMs: number | null;
}

export interface DriverWriteOptions {
  readonly mode: WriteMode;
  readonly createParents: boolean;
  readonly fileMode?: number;
}

/** A sink for one file's bytes during a tree replacement (import, restore). */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the complete new state of a filesystem off to the side. Nothing is visible until
 * the driver commits it; a failure anywhere discards it and leaves the old state intact.
 */
export interface TreeTransaction {
  /** Create a directory (parents included). */
  mkdir(path: string, mode?: number): Promise<void>;
  /** Create a file (parents included) and stream its bytes into it. */
  createFile(path: string, mode?: number): Promise<FileSink>;
}

/** What `grepCandidates` is asked: the pattern (inline flags already removed) and its case rule. */
export interface GrepCandidatesQuery {
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export interface FilesystemDriver {
  /** Short backend name used in messages ("memory", "host", "podman"). */
  readonly name: string;
  /** Root as reported by `Filesystem.root`. */
  readonly root: string;

  /** Stat without following symlinks; null when the path does not exist. */
  stat(path: string): Promise<DriverStat | null>;
  /** Whole file, or `length` bytes from `offset`. ENOENT, EISDIR, EACCES (symlink/special). */
  readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array>;
  /** create fails with EEXIST if present; overwrite is atomic; append appends (creating the file). */
  writeFile(path: string, data: Uint8Array, options: DriverWriteOptions): Promise<void>;
  /** Entries of a directory, any order. ENOENT, ENOTDIR. */
  list(path: string): Promise<DriverEntry[]>;
  /** EEXIST (existOk false, or a file is in the way), ENOENT (parents false). */
  mkdir(path: string, options: { parents: boolean; existOk: boolean }): Promise<void>;
  /** Remove a file, symlink (the link itself) or directory. ENOENT, ENOTEMPTY. Never the root. */
  remove(path: string, options: { recursive: boolean }): Promise<void>;
  /** Every node strictly below `path` (depth-first, any order), never descending into symlinks. */
  walk(path: string): AsyncIterable<WalkEntry>;
  /** Replace the whole tree atomically with what `fill` builds (see TreeTransaction). */
  replaceTree(fill: (tx: TreeTransaction) => Promise<void>): Promise<void>;
  /**
   * Optional grep accelerator: the files below `path` (root-relative paths) that may match,
   * a superset of what the shared matcher would find, or null for "search everything". It
   * only narrows which files are read; matching semantics stay those of the shared engine.
   */
  grepCandidates?(path: string, query: GrepCandidatesQuery): Promise<ReadonlySet<string> | null>;
}
