/**
 * Where the served session files, debug bundles and workspace archives are read from: a
 * local folder (`LocalFiles`, below) or a remote store (`RemoteFiles`: an S3 bucket or an
 * HTTP server, through `shared/remote`). The directory, the archive cache and the watcher
 * above it work the same on both; only listing, reading a session file and telling whether
 * an archive is there differ.
 */
import type { Dirent, Stats } from "node:fs";
import { lstatSync, readdirSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import type { OpenedRegularFile } from "../../shared/filesystem/index.js";
import { openRegularFile, readSmallRegularFileSync } from "../../shared/filesystem/index.js";
import type { CompactSessionIndex, LineLocation, SessionLineError, WholeSessionFile } from "../../shared/session/index.js";
import { readLineBytes, readSessionWhole, scanSessionFile, scanSessionLines } from "../../shared/session/index.js";
import { UNDO_SNAPSHOTS_DIR, UNDO_STATE_DIR_NAME } from "../../shared/undo/index.js";
import type { SkippedFolder } from "../../shared/remote/index.js";
import { BUNDLE_SNIFF_BYTES, looksLikeDebugBundle } from "../../shared/debug-bundle/index.js";
import { isBundleCandidate } from "./debug-bundles.js";

/** One session file or bundle candidate found by listing. */
export interface FoundFile {
  /** A local file's absolute path; for a remote object, its URL (an identity: never opened as a path). */
  readonly absolutePath: string;
  /** `session`: a `.jsonl`/`.json` session file; `bundle`: a `.zip` that may be a WINK debug bundle. */
  readonly kind: "session" | "bundle";
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** The store's validator (an ETag) when the listing has one; null locally (size and mtime tell a change). */
  readonly version: string | null;
}

export interface ListOptions {
  readonly recursive: boolean;
  /** List `.zip` bundle candidates too. */
  readonly bundles: boolean;
  /** Told after each page of a remote listing (local folders are listed at once). */
  readonly onProgress?: (progress: ListingProgress) => void;
}

export interface ListingProgress {
  readonly pages: number;
  /** Objects seen so far (all of them, not only session files). */
  readonly objects: number;
  readonly done: boolean;
  /** Folders of a remote store left out of the listing (one redirecting to another host), with why. */
  readonly skippedFolders: readonly SkippedFolder[];
}

/** A workspace archive next to a session file, as far as the store says. */
export type ArchiveStatus = "missing" | "not-regular" | "file";

export interface ServedFiles {
  /** `local`: a folder; `s3`, `http`: a remote store. */
  readonly kind: "local" | "s3" | "http";
  readonly remote: boolean;
  /** The root: the real path of a local folder, or a remote store's URL (never with credentials). */
  readonly root: string;
  /**
   * True when every file may be indexed in the background (a local folder); false for a
   * remote store, whose files are indexed when shown (indexing reads a whole object).
   */
  readonly indexEverything: boolean;
  /** The identity of the file at `relative`: what caches are keyed by and messages show. */
  idOf(relative: string): string;
  /** Session files and bundle candidates by relative path (`/` separators). */
  list(options: ListOptions): Promise<Map<string, FoundFile>>;
  /**
   * What `list` would find at the relative path `relative` (a file, or a folder and what is
   * under it), without listing the rest; nothing when the listing would not go there. Absent:
   * only whole listings (a remote store).
   */
  listAt?(relative: string, options: ListOptions): Promise<Map<string, FoundFile>>;
  scanSession(relative: string, found: FoundFile): Promise<CompactSessionIndex>;
  /**
   * `scanSession` in one read of the whole file, its bytes kept for the lines read next (see
   * `readSessionWhole`); null when the file is larger than `maxBytes`. Absent: a remote
   * object is streamed, its lines then read by range.
   */
  readSession?(relative: string, found: FoundFile, maxBytes: number): Promise<WholeSessionFile | null>;
  /** One line's bytes (without its `\n`), or null when the file changed since `index` was built. */
  readLine(relative: string, index: CompactSessionIndex, location: LineLocation): Promise<Uint8Array | null>;
  /**
   * `limit` line errors of the file from the `from`-th (0-based), read again from the file:
   * an index keeps only its first ones. Null when the file changed since `index` was built.
   * Absent: only the kept ones can be listed (a remote object would be streamed whole again).
   */
  lineErrors?(relative: string, index: CompactSessionIndex, from: number, limit: number): Promise<SessionLineError[] | null>;
  /** True when the bundle candidate starts like a debug bundle (false when it cannot be read). */
  sniffBundle(relative: string, found: FoundFile): Promise<boolean>;
  archiveStatus(relative: string): Promise<ArchiveStatus>;
  close(): Promise<void>;
}

export const SESSION_FILE = /\.jsonl?$/i;
/** Deepest subdirectory listed with `--recursive`. */
export const MAX_DEPTH = 32;

/** The longest the listing holds the event loop at a time (`LocalServedFiles`' walk). */
const WALK_SLICE_MS = 20;
/** Directories never descended into (beside those whose name starts with "."). */
export const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

/** Whether a recursive listing goes into the folder `name` (at `relative`, `depth` folders below the root): the live-reload watcher watches the same folders. */
export function listedFolder(name: string, relative: string, depth: number): boolean {
  return depth < MAX_DEPTH && !name.startsWith(".") && !SKIPPED_DIRECTORIES.has(name) && !inUndoStore(relative);
}

/**
 * True for a path in (or naming) an undo store's snapshot tree, `…/undo/snapshots/…`: its
 * `manifest.json` files are undo manifests, not sessions, so a recursive listing skips them
 * (the undo stores are read beside their session, see undo-stores.ts).
 */
export function inUndoStore(relative: string): boolean {
  const parts = relative.split("/");
  for (let i = 0; i + 1 < parts.length; i++) {
    if (parts[i] === UNDO_STATE_DIR_NAME && parts[i + 1] === UNDO_SNAPSHOTS_DIR) return true;
  }
  return false;
}

/** What kind of served file `name` names, or null. */
export function kindOf(name: string, bundles: boolean): FoundFile["kind"] | null {
  return SESSION_FILE.test(name) ? "session" : bundles && isBundleCandidate(name) ? "bundle" : null;
}

/**
 * A local folder. Only regular files found by walking it (symlinks never followed) are
 * opened, and callers name files by their relative path in the listing, so nothing outside
 * the folder can be read through it. The folder may change under us, so every open is
 * checked on the descriptor (`openRegularFile`: no symlink, no FIFO wait, the inode its
 * lstat saw, inside the root), and a line is read only from the file its index was built
 * from (same device and inode).
 */
export class LocalFiles implements ServedFiles {
  readonly kind = "local";
  readonly remote = false;
  readonly indexEverything = true;
  /** Opens a file of this folder, checked on its descriptor (see above). */
  readonly openFile: (path: string) => Promise<OpenedRegularFile>;
  /** Reads a small file of this folder whole on the calling thread, checked as `openFile` opens it (null when larger than `maxBytes`). */
  readonly readSmallFile: (path: string, maxBytes: number, extra: number, buffer?: Buffer) => { bytes: Buffer; stats: Stats } | null;

  /** `root` is a real path (resolved through symlinks once, by the caller). */
  constructor(readonly root: string) {
    this.openFile = (file) => openRegularFile(file, { root });
    this.readSmallFile = (file, maxBytes, extra, buffer) => readSmallRegularFileSync(file, { root, maxBytes, extra, ...(buffer === undefined ? {} : { buffer }) });
  }

  idOf(relative: string): string {
    return path.join(this.root, ...relative.split("/"));
  }

  async list(options: ListOptions): Promise<Map<string, FoundFile>> {
    const found = new Map<string, FoundFile>();
    await this.#walk(this.root, "", 0, found, options);
    options.onProgress?.({ pages: 1, objects: found.size, done: true, skippedFolders: [] });
    return found;
  }

  async listAt(relative: string, options: ListOptions): Promise<Map<string, FoundFile>> {
    const found = new Map<string, FoundFile>();
    const parts = relative.split("/");
    // The folders above it, as the walk would judge them.
    for (let depth = 0; depth + 1 < parts.length; depth += 1) {
      if (!options.recursive || !listedFolder(parts[depth] as string, parts.slice(0, depth + 1).join("/"), depth)) return found;
    }
    const absolute = this.idOf(relative);
    const name = parts[parts.length - 1] as string;
    const stats = await lstat(absolute).catch(() => null);
    if (stats === null) return found;
    if (stats.isDirectory()) {
      if (options.recursive && listedFolder(name, relative, parts.length - 1)) await this.#walk(absolute, relative, parts.length, found, options);
      return found;
    }
    const kind = stats.isFile() ? kindOf(name, options.bundles) : null;
    if (kind !== null) found.set(relative, { absolutePath: absolute, kind, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, version: null });
    return found;
  }

  scanSession(_relative: string, found: FoundFile): Promise<CompactSessionIndex> {
    return scanSessionLines(found.absolutePath, { openFile: this.openFile });
  }

  readSession(_relative: string, found: FoundFile, maxBytes: number): Promise<WholeSessionFile | null> {
    return readSessionWhole(found.absolutePath, maxBytes, { openFile: this.openFile, readSmallFile: this.readSmallFile });
  }

  readLine(_relative: string, index: CompactSessionIndex, location: LineLocation): Promise<Uint8Array | null> {
    return readLineBytes(index.path, location, { openFile: this.openFile, identity: index });
  }

  async lineErrors(_relative: string, index: CompactSessionIndex, from: number, limit: number): Promise<SessionLineError[] | null> {
    const again = await scanSessionFile(index.path, { openFile: this.openFile, errorsFrom: from, keptErrors: limit, keepEntries: false });
    const same = again.dev === index.dev && again.ino === index.ino && again.sizeBytes === index.sizeBytes && again.mtimeMs === index.mtimeMs;
    return same ? again.errors : null;
  }

  sniffBundle(_relative: string, found: FoundFile): Promise<boolean> {
    // On the calling thread (see readSmallRegularFileSync): the listing sniffs every `.zip`.
    try {
      const head = readSmallRegularFileSync(found.absolutePath, { root: this.root, maxBytes: Number.POSITIVE_INFINITY, length: BUNDLE_SNIFF_BYTES });
      return Promise.resolve(head !== null && looksLikeDebugBundle(head.bytes));
    } catch {
      return Promise.resolve(false);
    }
  }

  async archiveStatus(relative: string): Promise<ArchiveStatus> {
    const stats = await lstat(this.idOf(relative)).catch(() => null);
    // Regular files only: a symlink could lead outside the served directory.
    return stats === null ? "missing" : stats.isFile() ? "file" : "not-regular";
  }

  async close(): Promise<void> {}

  /**
   * The folder's tree, depth first. Its readdirs and lstats are made on this thread, in slices
   * of {@link WALK_SLICE_MS} between which the event loop runs: each awaited on the thread
   * pool, an EvalLoop folder of 10,000 runs (a folder each) took 1.0–1.4 s, nearly all of it
   * round trips, before the server could listen; made here, ~0.1 s.
   */
  async #walk(absolute: string, relative: string, depth: number, found: Map<string, FoundFile>, options: ListOptions, slice = { started: performance.now() }): Promise<void> {
    if (performance.now() - slice.started > WALK_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice.started = performance.now();
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch {
      return; // an unreadable subdirectory hides only itself
    }
    for (const entry of entries) {
      const childAbsolute = path.join(absolute, entry.name);
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (options.recursive && listedFolder(entry.name, childRelative, depth)) {
          await this.#walk(childAbsolute, childRelative, depth + 1, found, options, slice);
        }
        continue;
      }
      // Regular files only: a symlink could point outside the served directory.
      if (!entry.isFile()) continue;
      const kind = kindOf(entry.name, options.bundles);
      if (kind === null) continue;
      let stats;
      try {
        stats = lstatSync(childAbsolute);
      } catch {
        continue; // vanished or unreadable between readdir and lstat: skipped, like WINK's listing
      }
      if (stats.isFile()) found.set(childRelative, { absolutePath: childAbsolute, kind, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, version: null });
    }
  }
}
