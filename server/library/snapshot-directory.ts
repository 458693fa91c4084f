/**
 * The served directory: its session files, each indexed lazily (line offsets and envelope
 * summaries, no items) and parsed line by line on demand through a memory-bounded cache.
 *
 * WINK debug bundles (`*.zip` whose entries live under `debug_bundle/`) are listed beside
 * session files: a bundle is a session file of two lines, its session before the run (line
 * 1) and after it (line 2), read through the bundle reader instead of from disk.
 *
 * Only regular files found by walking the directory (symlinks never followed) are ever
 * opened, and callers name files by their relative path in this listing. The directory may
 * change under us (an agent writing its own snapshots folder can swap a file for a symlink
 * or a FIFO between two requests), so every open is checked on the descriptor
 * (`openRegularFile`: no symlink, no FIFO wait, the inode its lstat saw, inside the root),
 * and a line is only read from the file its index was built from (same device and inode).
 */
import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import type { SessionFileIndex, SessionSnapshot } from "../../shared/session/index.js";
import { readLineBytes, readSnapshotAt, scanSessionFile } from "../../shared/session/index.js";
import { SessionLoadError } from "../../shared/errors.js";
import type { OpenedRegularFile } from "../../shared/filesystem/open-regular.node.js";
import { openRegularFile } from "../../shared/filesystem/open-regular.node.js";
import type { DebugBundles } from "./debug-bundles.js";
import { isBundleCandidate, sniffDebugBundle } from "./debug-bundles.js";
import { COLLECT_AFTER_BYTES, collectGarbageSoon } from "./memory-pressure.js";
import type { MemoryBudget } from "./weighted-cache.js";
import { WeightedCache } from "./weighted-cache.js";

/** One session file of the directory. */
export interface SessionFileRecord {
  /** Relative to the root, with `/` separators. */
  readonly path: string;
  readonly absolutePath: string;
  readonly name: string;
  /** `session`: a `.jsonl`/`.json` session file; `bundle`: a WINK debug bundle (`.zip`). */
  readonly kind: "session" | "bundle";
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  index: SessionFileIndex | null;
  /** Why the file could not be read at all, or null. */
  error: string | null;
}

export interface SnapshotDirectoryOptions {
  /** Include session files in subdirectories (default false). */
  recursive?: boolean;
  /** The server's memory budget, shared with its other caches: parsed lines are counted in it (default: one of 64 MiB for the lines alone). */
  memory?: MemoryBudget;
  /** Reads debug bundles; without it `.zip` files are not listed. */
  bundles?: DebugBundles;
}

interface FoundFile {
  absolutePath: string;
  kind: "session" | "bundle";
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

export interface DirectoryChanges {
  readonly added: string[];
  readonly changed: string[];
  readonly removed: string[];
}

const SESSION_FILE = /\.jsonl?$/i;
// Measured: a parsed line of tool calls or files retains about its own size in the heap
// (1.0× for a 12.6 MB line, 0.6–1.2× for the fixtures' lines); counted with a margin.
const PARSED_LINE_HEAP_FACTOR = 1.5;
const MAX_DEPTH = 32;
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

export class SnapshotDirectory {
  readonly root: string;
  readonly recursive: boolean;
  readonly #files = new Map<string, SessionFileRecord>();
  readonly #indexing = new Map<string, Promise<SessionFileIndex>>();
  readonly #lines: WeightedCache<string, SessionSnapshot>;
  readonly #parsing = new Map<string, Promise<SessionSnapshot>>();
  readonly #bundles: DebugBundles | null;
  /** What sniffing each `.zip` found, while its size and mtime stay the same. */
  readonly #sniffed = new Map<string, { size: number; mtimeMs: number; bundle: boolean }>();
  /** Opens a file of this directory, checked on its descriptor (see the module comment). */
  readonly openFile: (path: string) => Promise<OpenedRegularFile>;

  private constructor(root: string, options: SnapshotDirectoryOptions) {
    this.root = root;
    this.openFile = (file) => openRegularFile(file, { root });
    this.recursive = options.recursive ?? false;
    this.#bundles = options.bundles ?? null;
    this.#lines = new WeightedCache(options.memory ?? 64 * 1024 * 1024);
  }

  /** Opens a directory (resolved through symlinks once, here) and lists its session files. */
  static async open(root: string, options: SnapshotDirectoryOptions = {}): Promise<SnapshotDirectory> {
    const directory = new SnapshotDirectory(root, options);
    await directory.refresh();
    return directory;
  }

  /** Every session file, by relative path. */
  files(): SessionFileRecord[] {
    return [...this.#files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Files newest first by `max(ctime, mtime)` (WINK's `/api/snapshots` order). */
  newestFirst(): SessionFileRecord[] {
    return this.files().sort((a, b) => Math.max(b.ctimeMs, b.mtimeMs) - Math.max(a.ctimeMs, a.mtimeMs) || (a.path < b.path ? -1 : 1));
  }

  get(relativePath: string): SessionFileRecord | undefined {
    return this.#files.get(relativePath);
  }

  /** Walks the directory again; changed files lose their index (they are indexed again on use). */
  async refresh(): Promise<DirectoryChanges> {
    const found = new Map<string, FoundFile>();
    await this.#walk(this.root, "", 0, found);
    await this.#keepBundles(found);
    const changes: DirectoryChanges = { added: [], changed: [], removed: [] };
    for (const [relative, stats] of found) {
      const record = this.#files.get(relative);
      if (record === undefined) {
        this.#files.set(relative, { path: relative, name: path.posix.basename(relative), index: null, error: null, ...stats });
        changes.added.push(relative);
      } else if (record.size !== stats.size || record.mtimeMs !== stats.mtimeMs) {
        if (record.kind === "bundle") this.#bundles?.forget(record.absolutePath);
        Object.assign(record, { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, index: null, error: null });
        this.#forget(relative);
        changes.changed.push(relative);
      }
    }
    for (const relative of [...this.#files.keys()]) {
      if (found.has(relative)) continue;
      this.#files.delete(relative);
      this.#forget(relative);
      changes.removed.push(relative);
    }
    return changes;
  }

  /** Re-reads one file's index now (POST /api/reload); the old index stays when reading fails. */
  async reindex(record: SessionFileRecord): Promise<SessionFileIndex> {
    if (record.kind === "bundle") this.#bundles?.forget(record.absolutePath);
    const index = await this.#scan(record);
    this.#forget(record.path);
    Object.assign(record, { index, error: null, size: index.sizeBytes, mtimeMs: index.mtimeMs });
    return index;
  }

  /** The file's index, reading it first if needed (concurrent callers share one read). */
  async ensureIndexed(record: SessionFileRecord): Promise<SessionFileIndex> {
    if (record.index !== null) return record.index;
    const running = this.#indexing.get(record.path);
    if (running !== undefined) return running;
    const task = this.#scan(record)
      .then((index) => {
        if (index.sizeBytes >= COLLECT_AFTER_BYTES) collectGarbageSoon();
        if (this.#files.get(record.path) === record) {
          record.index = index;
          record.error = null;
        }
        return index;
      })
      .catch((error: unknown) => {
        record.error = error instanceof Error ? error.message : String(error);
        throw error;
      })
      .finally(() => this.#indexing.delete(record.path));
    this.#indexing.set(record.path, task);
    return task;
  }

  /** Indexes every file not indexed yet, one at a time (so memory holds one file's line at most). */
  async indexAll(onProgress?: (done: number, total: number, file: SessionFileRecord) => void): Promise<void> {
    const pending = this.files().filter((record) => record.index === null && record.error === null);
    let done = 0;
    for (const record of pending) {
      await this.ensureIndexed(record).catch(() => undefined);
      done += 1;
      onProgress?.(done, pending.length, record);
    }
  }

  /** True while some file has no index and no error yet. */
  isIndexing(): boolean {
    return [...this.#files.values()].some((record) => record.index === null && record.error === null);
  }

  /** One line parsed in full (cached). Throws SessionLoadError when the line does not load. */
  async readSnapshot(record: SessionFileRecord, lineNumber: number): Promise<SessionSnapshot> {
    const key = `${record.path}\n${lineNumber}`;
    const cached = this.#lines.get(key);
    if (cached !== undefined) return cached;
    // Requests for the same line (the app asks for a timeline and a slice at once) share one parse.
    const running = this.#parsing.get(key);
    if (running !== undefined) return running;
    const task = this.#parse(record, lineNumber, key).finally(() => this.#parsing.delete(key));
    this.#parsing.set(key, task);
    return task;
  }

  /** One line as parsed and kept already (no read, no parse), or undefined. */
  cachedSnapshot(record: SessionFileRecord, lineNumber: number): SessionSnapshot | undefined {
    return this.#lines.get(`${record.path}\n${lineNumber}`);
  }

  /** A session file's index from disk, or a bundle's from its session members. */
  async #scan(record: SessionFileRecord): Promise<SessionFileIndex> {
    if (record.kind === "session") return scanSessionFile(record.absolutePath, { openFile: this.openFile });
    if (this.#bundles === null) throw new SessionLoadError(`Cannot read debug bundle ${record.path}`, { path: record.path });
    const session = await this.#bundles.session(record.absolutePath, record.path);
    // A bundle's lines are never read from this file by offset (they come from its archive,
    // opened and rechecked by the archive cache), so the index has no inode to hold them to.
    return { path: record.absolutePath, sizeBytes: record.size, mtimeMs: record.mtimeMs, dev: 0, ino: 0, lineCount: session.lineCount, entries: [...session.entries], errors: [...session.errors] };
  }

  async #parse(record: SessionFileRecord, lineNumber: number, key: string): Promise<SessionSnapshot> {
    // A bundle keeps its (two) parsed lines itself.
    if (record.kind === "bundle" && this.#bundles !== null) return this.#bundles.snapshot(record.absolutePath, record.path, lineNumber);
    for (let attempt = 0; attempt < 2; attempt++) {
      const index = await this.ensureIndexed(record);
      const location = index.entries.find((entry) => entry.lineNumber === lineNumber);
      if (location === undefined) throw new SessionLoadError(`Unknown line_number: ${lineNumber}`, { path: record.path, lineNumber });
      // Drop older lines first: parsing a big line while the cache is full would hold both.
      this.#lines.makeRoom(location.byteLength * PARSED_LINE_HEAP_FACTOR);
      const result = await readSnapshotAt(record.absolutePath, location, { openFile: this.openFile, identity: index });
      if (location.byteLength >= COLLECT_AFTER_BYTES) collectGarbageSoon();
      if (result.ok) {
        this.#lines.set(key, result.snapshot, location.byteLength * PARSED_LINE_HEAP_FACTOR);
        return result.snapshot;
      }
      if (result.error.kind !== "stale") {
        throw new SessionLoadError(`Line ${lineNumber} of ${record.path} does not load: ${result.error.reason}`, { path: record.path, lineNumber });
      }
      // The file changed under us: index it again and retry once.
      record.index = null;
      this.#forget(record.path);
    }
    throw new SessionLoadError(`${record.path} keeps changing; try again`, { path: record.path });
  }

  /**
   * The bytes of one line as they are in the file its index was read from (no parse: for
   * work done elsewhere, such as `/api/raw` of a huge line in a worker). Re-indexes once when
   * the file changed.
   */
  async readLine(record: SessionFileRecord, lineNumber: number): Promise<Buffer> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const index = await this.ensureIndexed(record);
      const location = index.entries.find((entry) => entry.lineNumber === lineNumber);
      if (location === undefined) throw new SessionLoadError(`Unknown line_number: ${lineNumber}`, { path: record.path, lineNumber });
      const bytes = await readLineBytes(record.absolutePath, location, { openFile: this.openFile, identity: index });
      if (bytes !== null) return bytes;
      record.index = null;
      this.#forget(record.path);
    }
    throw new SessionLoadError(`${record.path} keeps changing; try again`, { path: record.path });
  }

  #forget(relative: string): void {
    this.#lines.deleteWhere((key) => key.startsWith(`${relative}\n`));
  }

  /** Drops the `.zip` files of `found` that are not debug bundles (sniffing each new or changed one). */
  async #keepBundles(found: Map<string, FoundFile>): Promise<void> {
    for (const [relative, file] of found) {
      if (file.kind !== "bundle") continue;
      const known = this.#sniffed.get(relative);
      let bundle = known?.bundle;
      if (known === undefined || known.size !== file.size || known.mtimeMs !== file.mtimeMs) {
        bundle = await sniffDebugBundle(file.absolutePath, this.openFile);
        this.#sniffed.set(relative, { size: file.size, mtimeMs: file.mtimeMs, bundle });
      }
      if (!bundle) found.delete(relative);
    }
    for (const relative of this.#sniffed.keys()) if (!found.has(relative)) this.#sniffed.delete(relative);
  }

  async #walk(absolute: string, relative: string, depth: number, found: Map<string, FoundFile>): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch {
      return; // an unreadable subdirectory hides only itself
    }
    for (const entry of entries) {
      const childAbsolute = path.join(absolute, entry.name);
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (this.recursive && depth < MAX_DEPTH && !entry.name.startsWith(".") && !SKIPPED_DIRECTORIES.has(entry.name)) {
          await this.#walk(childAbsolute, childRelative, depth + 1, found);
        }
        continue;
      }
      // Regular files only: a symlink could point outside the served directory.
      if (!entry.isFile()) continue;
      const kind = SESSION_FILE.test(entry.name) ? "session" : this.#bundles !== null && isBundleCandidate(entry.name) ? "bundle" : null;
      if (kind === null) continue;
      try {
        const stats = await lstat(childAbsolute);
        if (stats.isFile()) found.set(childRelative, { absolutePath: childAbsolute, kind, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs });
      } catch {
        // vanished or unreadable between readdir and lstat: skipped, like WINK's listing
      }
    }
  }
}
