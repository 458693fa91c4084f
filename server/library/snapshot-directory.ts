/**
 * The served directory: its session files, each indexed lazily (line offsets and envelope
 * summaries, no items) and parsed line by line on demand through a memory-bounded cache.
 *
 * WINK debug bundles (`*.zip` whose entries live under `debug_bundle/`) are listed beside
 * session files: a bundle is a session file of two lines, its session before the run (line
 * 1) and after it (line 2), read through the bundle reader instead of from disk.
 *
 * The files come from a local folder or a remote store (`ServedFiles`). Callers name files
 * by their relative path in the listing, so nothing outside the served root can be read
 * through it. A local folder may change under us (an agent writing its own snapshots folder
 * can swap a file for a symlink or a FIFO between two requests), so its opens are checked
 * on the descriptor (`LocalFiles`); a line is only read from the version of the file its
 * index was built from (same device and inode locally, same ETag remotely).
 */
import { eachAtMost } from "./at-most.js";
import path from "node:path";
import type { CompactSessionIndex, SessionLineError, SessionSnapshot, SnapshotLineResult } from "../../shared/session/index.js";
import { SessionLines, snapshotFromLineBytes } from "../../shared/session/index.js";
import { SessionLoadError, SourceError } from "../../shared/errors.js";
import { isOtherJsonDocument } from "../../shared/viewer/index.js";
import type { DebugBundles } from "./debug-bundles.js";
import { COLLECT_AFTER_BYTES, collectGarbageSoon } from "./memory-pressure.js";
import type { FoundFile, ListingProgress, ServedFiles } from "./served-files.js";
import { MemoryBudget, WeightedCache } from "./weighted-cache.js";

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
  /** The store's validator (a remote object's ETag), or null. */
  version: string | null;
  index: CompactSessionIndex | null;
  /** Why the file could not be read at all, or null. */
  error: string | null;
}

export interface SnapshotDirectoryOptions {
  /** Include session files in subdirectories (default false). */
  recursive?: boolean;
  /** The server's memory budget, shared with its other caches: parsed lines and indexes are counted in it (default: one of 64 MiB for the directory alone). */
  memory?: MemoryBudget;
  /** Reads debug bundles; without it `.zip` files are not listed. */
  bundles?: DebugBundles;
}

export interface DirectoryChanges {
  readonly added: string[];
  readonly changed: string[];
  readonly removed: string[];
}

// Measured: a parsed line of tool calls or files retains about its own size in the heap
// (1.0× for a 12.6 MB line, 0.6–1.2× for the fixtures' lines); counted with a margin.
const PARSED_LINE_HEAP_FACTOR = 1.5;
/** Remote objects indexed at once in the background: each holds at most one long line while read. */
const BACKGROUND_INDEXERS = 4;
/** What an index is counted for beside its lines: the record, the object, each kept line error. */
const INDEX_BYTES = 1024;
const LINE_ERROR_BYTES = 256;
/** Files whose index is held (never let go for the budget): the last ones requests were about. */
const OPEN_FILES = 4;

/** The bytes a file's index is counted for in the memory budget. */
export function indexWeight(index: CompactSessionIndex): number {
  return INDEX_BYTES + index.lines.byteSize + index.errors.length * LINE_ERROR_BYTES;
}

/** The listing by path and (once asked for) newest first, as of one generation. */
interface SortedListing {
  readonly at: number;
  readonly byPath: readonly SessionFileRecord[];
  newestFirst: readonly SessionFileRecord[] | null;
}

export class SnapshotDirectory {
  readonly store: ServedFiles;
  readonly recursive: boolean;
  readonly #files = new Map<string, SessionFileRecord>();
  readonly #indexing = new Map<string, Promise<CompactSessionIndex>>();
  /** When each index under way began (what says an object is slow). */
  readonly #indexingSince = new Map<string, number>();
  /** Files whose last index failed because the store was too slow (listed as slow; opening one tries again). */
  readonly #timedOut = new WeakSet<SessionFileRecord>();
  readonly #lines: WeightedCache<string, SessionSnapshot>;
  /**
   * Every file's index, in the same budget as the parsed lines: past it, the least recently
   * used index of a file that is not open is let go (`#dropped`) and read again when asked for.
   */
  readonly #indexes: WeightedCache<string, CompactSessionIndex>;
  /** Files whose index was let go to stay within the budget: read again on use, never in the background. */
  readonly #dropped = new Set<string>();
  /**
   * `.json` files found, once read, to hold no session line (a `truth.json`, an `index.json`):
   * listed, but no run. Kept when the budget lets the index go; forgotten when the file changes.
   */
  readonly #notSessions = new Set<string>();
  /** The files open in the last views (`hold`), least recent first, each with what lets its index's hold go. */
  readonly #open = new Map<SessionFileRecord, () => void>();
  /** Set while an index moves between the cache and the hold: its removal from the cache drops nothing. */
  #moving = false;
  readonly #memory: MemoryBudget;
  readonly #parsing = new Map<string, Promise<SessionSnapshot>>();
  /** Transcodes of a line from its bytes under way (/api/raw), and their answers still being sent, by line: a parse waits for them. */
  readonly #transcoding = new Map<string, Promise<void>>();
  readonly #bundles: DebugBundles | null;
  /** What sniffing each `.zip` found, while its size and mtime stay the same. */
  readonly #sniffed = new Map<string, { size: number; mtimeMs: number; bundle: boolean }>();
  /** How far the last listing got (a remote listing comes in pages). */
  #listing: ListingProgress = { pages: 0, objects: 0, done: false, skippedFolders: [] };
  /** Files being indexed in the background (`indexSome`), or null. */
  #background: Promise<void> | null = null;
  readonly #queued = new Set<SessionFileRecord>();
  #closed = false;
  #generation = 0;
  /**
   * The listing in both orders, as of the generation they were sorted at: the run index asks
   * for the newest-first order after every run it reads (its progress), and sorting 10,000
   * records each time was seconds of a cold index.
   */
  #sorted: SortedListing | null = null;

  private constructor(files: ServedFiles, options: SnapshotDirectoryOptions) {
    this.store = files;
    this.recursive = options.recursive ?? false;
    this.#bundles = options.bundles ?? null;
    const memory = options.memory ?? new MemoryBudget(64 * 1024 * 1024);
    this.#memory = memory;
    this.#lines = new WeightedCache(memory);
    this.#indexes = new WeightedCache(memory, (relative, index) => this.#dropIndex(relative, index));
  }

  /** Lists the session files of a local folder or a remote store. */
  static async open(files: ServedFiles, options: SnapshotDirectoryOptions & { onListing?: (progress: ListingProgress) => void } = {}): Promise<SnapshotDirectory> {
    const directory = new SnapshotDirectory(files, options);
    await directory.refresh(options.onListing);
    return directory;
  }

  /** Stops background indexing (the server is closing): what runs finishes its file, nothing more starts. */
  close(): void {
    this.#closed = true;
    this.#queued.clear();
  }

  /** The root: a local folder's real path, or a remote store's URL (without credentials). */
  get root(): string {
    return this.store.root;
  }

  /**
   * Goes up whenever a file is added, removed, or its listed size or time changes: what is
   * computed from the listing (the run index's eval answer) is kept until it does.
   */
  get generation(): number {
    return this.#generation;
  }

  /** How far the current (or last) listing got. */
  get listing(): ListingProgress {
    return this.#listing;
  }

  /** Every session file, by relative path. */
  files(): SessionFileRecord[] {
    return [...this.#sortedNow().byPath];
  }

  /** The listing's orders for the current generation (a file added, removed, or its size or time changed starts a new one). */
  #sortedNow(): SortedListing {
    if (this.#sorted?.at !== this.#generation) {
      const byPath = [...this.#files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      this.#sorted = { at: this.#generation, byPath, newestFirst: null };
    }
    return this.#sorted;
  }

  /**
   * How many of the files are runs: all but the `.json` files read and found to be some other
   * JSON document (the run list's `not_session`). A file not yet read counts as a run.
   */
  runCount(): number {
    return this.#files.size - this.#notSessions.size;
  }

  /** Whether the file was read and found to be some other JSON document (not counted by `runCount`). */
  notSession(record: SessionFileRecord): boolean {
    return this.#notSessions.has(record.path);
  }

  /** Files newest first by `listedTimeMs` (WINK's `/api/snapshots` order, bundles by the time in their names). */
  newestFirst(): SessionFileRecord[] {
    const sorted = this.#sortedNow();
    if (sorted.newestFirst === null) {
      // Each file's time once, not in every comparison (a bundle's is read from its name).
      const timed = sorted.byPath.map((record) => ({ record, time: listedTimeMs(record) }));
      timed.sort((a, b) => b.time - a.time || (a.record.path < b.record.path ? -1 : 1));
      sorted.newestFirst = timed.map(({ record }) => record);
    }
    return [...sorted.newestFirst];
  }

  get(relativePath: string): SessionFileRecord | undefined {
    return this.#files.get(relativePath);
  }

  /** Lists the files again; changed files lose their index (they are indexed again on use). */
  async refresh(onListing?: (progress: ListingProgress) => void): Promise<DirectoryChanges> {
    const found = await this.store.list({
      recursive: this.recursive,
      bundles: this.#bundles !== null,
      onProgress: (progress) => {
        this.#listing = progress;
        onListing?.(progress);
      },
    });
    await this.#keepBundles(found);
    return this.#take(found, () => true);
  }

  /**
   * Lists again only what is at `paths` (files, or folders and what is under them: what a
   * watcher's events named), as `refresh` would find it there; null when the store lists only
   * whole (then `refresh`). A run written into a folder of 10,000 is seen without listing them all.
   */
  async refreshPaths(paths: readonly string[]): Promise<DirectoryChanges | null> {
    const { store } = this;
    if (store.listAt === undefined) return null;
    const options = { recursive: this.recursive, bundles: this.#bundles !== null };
    const found = new Map<string, FoundFile>();
    for (const relative of new Set(paths)) for (const [file, stats] of await store.listAt(relative, options)) found.set(file, stats);
    await this.#keepBundles(found, false);
    const under = [...new Set(paths)];
    const changes = this.#take(found, (relative) => under.some((named) => relative === named || relative.startsWith(`${named}/`)));
    for (const relative of changes.removed) this.#sniffed.delete(relative);
    return changes;
  }

  /** Takes what a listing found; `listed` says which files it covered (those of them not found are gone). */
  #take(found: Map<string, FoundFile>, listed: (relative: string) => boolean): DirectoryChanges {
    const changes: DirectoryChanges = { added: [], changed: [], removed: [] };
    for (const [relative, stats] of found) {
      const record = this.#files.get(relative);
      if (record === undefined) {
        this.#files.set(relative, { path: relative, name: path.posix.basename(relative), index: null, error: null, ...stats });
        changes.added.push(relative);
      } else if (record.size !== stats.size || record.mtimeMs !== stats.mtimeMs || (stats.version !== null && record.version !== stats.version)) {
        if (record.kind === "bundle") this.#bundles?.forget(record.absolutePath);
        Object.assign(record, { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, version: stats.version, index: null, error: null });
        this.#forget(relative);
        changes.changed.push(relative);
      }
    }
    for (const relative of [...this.#files.keys()]) {
      if (found.has(relative) || !listed(relative)) continue;
      this.#files.delete(relative);
      this.#forget(relative);
      changes.removed.push(relative);
    }
    if (changes.added.length + changes.changed.length + changes.removed.length > 0) this.#generation += 1;
    return changes;
  }

  /** Drops one file's index (it changed): it is indexed again on next use. */
  forgetIndex(record: SessionFileRecord): void {
    if (record.kind === "bundle") this.#bundles?.forget(record.absolutePath);
    record.index = null;
    record.error = null;
    this.#forget(record.path);
  }

  /** Re-reads one file's index now (POST /api/reload); the old index stays when reading fails. */
  async reindex(record: SessionFileRecord): Promise<CompactSessionIndex> {
    if (record.kind === "bundle") this.#bundles?.forget(record.absolutePath);
    const index = await this.#scan(record);
    this.#forget(record.path);
    if (record.size !== index.sizeBytes || record.mtimeMs !== index.mtimeMs) this.#generation += 1;
    Object.assign(record, { error: null, size: index.sizeBytes, mtimeMs: index.mtimeMs });
    this.keepIndex(record, index);
    return index;
  }

  /** Makes `index` the file's index (one read before, served again), counted in the budget. */
  keepIndex(record: SessionFileRecord, index: CompactSessionIndex): void {
    record.index = index;
    if (record.kind === "session" && isOtherJsonDocument(record.name, index.lines.length)) this.#notSessions.add(record.path);
    this.#dropped.delete(record.path);
    const release = this.#open.get(record);
    if (release !== undefined) {
      release();
      this.#open.set(record, this.#memory.hold(indexWeight(index)));
    } else {
      this.#indexes.set(record.path, index, indexWeight(index));
    }
  }

  /**
   * A file a view is about (a request named it): its index (now, or once it is read) is held
   * in the budget and never let go while it is among the last `OPEN_FILES` files asked for (a
   * viewer and a second tab or client on another file); the one open longest ago goes back
   * among the others, the least recently used of which are let go when the budget is short.
   */
  hold(record: SessionFileRecord): void {
    const known = this.#open.get(record);
    if (known !== undefined) {
      // Most recent last.
      this.#open.delete(record);
      this.#open.set(record, known);
      return;
    }
    let release = () => undefined as void;
    if (record.index !== null) {
      this.#moving = true;
      try {
        this.#indexes.delete(record.path);
      } finally {
        this.#moving = false;
      }
      release = this.#memory.hold(indexWeight(record.index));
    }
    this.#open.set(record, release);
    if (this.#open.size <= OPEN_FILES) return;
    const [oldest, letGo] = this.#open.entries().next().value as [SessionFileRecord, () => void];
    this.#open.delete(oldest);
    letGo();
    if (oldest.index !== null && this.#files.get(oldest.path) === oldest) this.#indexes.set(oldest.path, oldest.index, indexWeight(oldest.index));
  }

  /** Bytes the files' indexes are counted for in the budget (the open file's held, the others' cached). */
  get indexBytes(): number {
    let held = 0;
    for (const record of this.#open.keys()) held += record.index === null ? 0 : indexWeight(record.index);
    return this.#indexes.weight + held;
  }

  /** Whether the file's index was let go to stay within the budget (it is read again when asked for). */
  dropped(record: SessionFileRecord): boolean {
    return record.index === null && this.#dropped.has(record.path);
  }

  /** Whether the file waits for its index: never read, not failed, not let go for the budget. */
  awaitsIndex(record: SessionFileRecord): boolean {
    return record.index === null && record.error === null && !this.#dropped.has(record.path);
  }

  /** The file's index, reading it first if needed (concurrent callers share one read). */
  async ensureIndexed(record: SessionFileRecord): Promise<CompactSessionIndex> {
    if (record.index !== null) return record.index;
    const running = this.#indexing.get(record.path);
    if (running !== undefined) return running;
    return this.#indexWith(record, this.#scan(record));
  }

  /**
   * A session file's index and its lines, from one read of the whole file (when it is at
   * most `maxBytes` and the store can): for a reader that parses lines of it at once (a
   * run's digest parses each session's latest line), where indexing the file and then
   * reading those lines again read them twice. The index is kept as `ensureIndexed` keeps
   * it; a line is parsed from the bytes read (not cached: the reader takes what it needs).
   * Null when the file has an index already, or one is being read, or this read cannot be
   * made: then `ensureIndexed` and `readSnapshot`.
   */
  async readWhole(record: SessionFileRecord, maxBytes: number): Promise<{ index: CompactSessionIndex; snapshot: (lineNumber: number) => SessionSnapshot } | null> {
    const store = this.store;
    if (record.kind !== "session" || record.index !== null || this.#indexing.has(record.path) || store.readSession === undefined || record.size > maxBytes) return null;
    let bytes: Buffer | null = null;
    let parsed: ReadonlyMap<number, SessionSnapshot> = new Map();
    const read = store.readSession(record.path, record, maxBytes).then((whole) => {
      if (whole === null) return this.#scan(record);
      bytes = whole.bytes;
      parsed = whole.parsed;
      return whole.index;
    });
    const index = await this.#indexWith(record, read);
    const whole = bytes as Buffer | null;
    if (whole === null) return null;
    return {
      index,
      snapshot: (lineNumber) => {
        // Parsed while it was indexed (a one-line file): the same snapshot as the parse below.
        const known = parsed.get(lineNumber);
        if (known !== undefined) return known;
        const location = index.lines.ofLine(lineNumber);
        if (location === undefined) throw new SessionLoadError(`Unknown line_number: ${lineNumber}`, { path: record.path, lineNumber });
        // The same parse and the same refusal as `readSnapshot`'s.
        const result = snapshotFromLineBytes(whole.subarray(location.byteOffset, location.byteOffset + location.byteLength), lineNumber);
        if (!result.ok) throw new SessionLoadError(`Line ${lineNumber} of ${record.path} does not load: ${result.error.reason}`, { path: record.path, lineNumber });
        return result.snapshot;
      },
    };
  }

  /** Makes `scanning` the file's index under way (concurrent callers share it), kept once read. */
  #indexWith(record: SessionFileRecord, scanning: Promise<CompactSessionIndex>): Promise<CompactSessionIndex> {
    const task = scanning
      .then((index) => {
        // A remote object's long lines are gathered whole while it is indexed; a local file's
        // are scanned through one reused window and leave nothing big behind (a full
        // collection here cost a cold start ~20 ms before its first answer).
        if (this.store.remote && index.sizeBytes >= COLLECT_AFTER_BYTES) collectGarbageSoon();
        if (this.#files.get(record.path) === record) {
          record.error = null;
          this.keepIndex(record, index);
        }
        return index;
      })
      .catch((error: unknown) => {
        record.error = error instanceof Error ? error.message : String(error);
        if (error instanceof SourceError && error.code === "E_SOURCE_TIMEOUT") this.#timedOut.add(record);
        else this.#timedOut.delete(record);
        throw error;
      })
      .finally(() => {
        this.#indexing.delete(record.path);
        this.#indexingSince.delete(record.path);
      });
    this.#indexing.set(record.path, task);
    this.#indexingSince.set(record.path, Date.now());
    return task;
  }

  /** Whether the file's last index failed because the store did not send it in time. */
  timedOut(record: SessionFileRecord): boolean {
    return record.index === null && record.error !== null && this.#timedOut.has(record);
  }

  /** How long the file's index has been read for (ms), or null when none is under way. */
  indexingFor(record: SessionFileRecord): number | null {
    const since = this.#indexingSince.get(record.path);
    return since === undefined ? null : Date.now() - since;
  }

  /**
   * Indexes every file not indexed yet, one at a time (so memory holds one file's line at
   * most). Not for a remote store, where indexing reads whole objects: `indexSome` indexes
   * what is shown.
   */
  async indexAll(onProgress?: (done: number, total: number, file: SessionFileRecord) => void): Promise<void> {
    if (!this.store.indexEverything) return;
    await this.#indexEach(this.files(), onProgress);
  }

  /** Indexes the files at `paths` (relative) not indexed yet, one at a time, as `indexAll` does. */
  async indexFiles(paths: readonly string[]): Promise<void> {
    if (!this.store.indexEverything) return;
    await this.#indexEach(paths.flatMap((relative) => this.#files.get(relative) ?? []));
  }

  async #indexEach(records: readonly SessionFileRecord[], onProgress?: (done: number, total: number, file: SessionFileRecord) => void): Promise<void> {
    const pending = records.filter((record) => this.awaitsIndex(record));
    let done = 0;
    for (const record of pending) {
      if (this.#closed) return;
      await this.ensureIndexed(record).catch(() => undefined);
      done += 1;
      onProgress?.(done, pending.length, record);
    }
  }

  /**
   * Indexes `records` (those not indexed yet) in the background, a few at a time so one
   * object whose store never answers holds one of them only, after those asked for
   * before; resolves when the queue is empty.
   */
  indexSome(records: readonly SessionFileRecord[]): Promise<void> {
    for (const record of records) if (this.awaitsIndex(record)) this.#queued.add(record);
    // Taken from the queue as each indexer is free: what is queued meanwhile is taken too.
    const queue = this.#queued;
    const taking = (function* (directory: SnapshotDirectory): Generator<SessionFileRecord> {
      for (let next = queue.values().next(); !next.done && !directory.#closed; next = queue.values().next()) {
        queue.delete(next.value);
        yield next.value;
      }
    })(this);
    this.#background ??= eachAtMost(taking, BACKGROUND_INDEXERS, async (record) => {
      if (this.#files.get(record.path) === record) await this.ensureIndexed(record).catch(() => undefined);
    }).finally(() => (this.#background = null));
    return this.#background;
  }

  /**
   * True while files wait for their index: any unindexed file of a local folder (all of
   * them are indexed in the background), the queue of `indexSome` for a remote store.
   */
  isIndexing(): boolean {
    if (!this.store.indexEverything) return this.#background !== null;
    return [...this.#files.values()].some((record) => this.awaitsIndex(record));
  }

  /** One line parsed in full (cached). Throws SessionLoadError when the line does not load. */
  async readSnapshot(record: SessionFileRecord, lineNumber: number): Promise<SessionSnapshot> {
    const key = `${record.path}\n${lineNumber}`;
    const cached = this.#lines.get(key);
    if (cached !== undefined) return cached;
    // Requests for the same line (the app asks for a timeline and a slice at once) share one parse.
    const running = this.#parsing.get(key);
    if (running !== undefined) return running;
    // A big line being transcoded for /api/raw is parsed after it: both at once held its bytes
    // twice beside the parse's text and tree.
    const transcoding = this.#transcoding.get(key);
    const parse = transcoding === undefined ? this.#parse(record, lineNumber, key) : transcoding.then(() => this.#parse(record, lineNumber, key));
    const task = parse.finally(() => this.#parsing.delete(key));
    this.#parsing.set(key, task);
    return task;
  }

  /**
   * `limit` line errors of a file from the `from`-th: from its index while they are among
   * the kept ones, else read again from the file (re-indexed once when it changed).
   */
  async lineErrors(record: SessionFileRecord, from: number, limit: number): Promise<{ index: CompactSessionIndex; errors: SessionLineError[] }> {
    for (let attempt = 0; ; attempt++) {
      const index = await this.ensureIndexed(record);
      const kept = index.errors.length >= index.errorCount;
      if (kept || from + limit <= index.errors.length || this.store.lineErrors === undefined || from >= index.errorCount) return { index, errors: index.errors.slice(from, from + limit) };
      const errors = await this.store.lineErrors(record.path, index, from, limit);
      if (errors !== null) return { index, errors };
      if (attempt > 0) throw new SessionLoadError(`${record.path} keeps changing while its line errors are read`, { path: record.path });
      if (record.index === index) {
        record.index = null;
        this.#forget(record.path);
      }
    }
  }

  /**
   * Runs `work`, a transcode of one line from its bytes (off the event loop), so that a
   * parse of the same line asked for meanwhile starts once it is done.
   */
  async transcodingLine<T>(record: SessionFileRecord, lineNumber: number, work: () => Promise<T>): Promise<T> {
    const key = `${record.path}\n${lineNumber}`;
    const task = work();
    const settled = task.then(() => undefined, () => undefined);
    this.#transcoding.set(key, settled);
    try {
      return await task;
    } finally {
      if (this.#transcoding.get(key) === settled) this.#transcoding.delete(key);
    }
  }

  /**
   * Parses of one line asked for before `until` settles (an /api/raw answer of it still being
   * sent) start once it has, or after `maxWaitMs` at most: a client reading that answer slowly
   * holds its unsent chunks, and a parse beside them held the line close to four times over
   * (the parse's text and tree beside the answer), where one after the other holds the larger
   * of the two. The cap keeps a client that never reads from holding the line's parses.
   */
  holdParses(record: SessionFileRecord, lineNumber: number, until: Promise<unknown>, maxWaitMs = 10_000): void {
    const key = `${record.path}\n${lineNumber}`;
    const previous = this.#transcoding.get(key);
    let timer: NodeJS.Timeout | undefined;
    const capped = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
      timer.unref();
      until.then(() => resolve(), () => resolve());
    }).finally(() => clearTimeout(timer));
    const held = previous === undefined ? capped : Promise.all([previous, capped]).then(() => undefined);
    this.#transcoding.set(key, held);
    void held.then(() => {
      if (this.#transcoding.get(key) === held) this.#transcoding.delete(key);
    });
  }

  /** The parse of one line under way (another request started it), or undefined. */
  parseUnderWay(record: SessionFileRecord, lineNumber: number): Promise<SessionSnapshot> | undefined {
    return this.#parsing.get(`${record.path}\n${lineNumber}`);
  }

  /** One line as parsed and kept already (no read, no parse), or undefined. */
  cachedSnapshot(record: SessionFileRecord, lineNumber: number): SessionSnapshot | undefined {
    return this.#lines.get(`${record.path}\n${lineNumber}`);
  }

  /** A session file's index from disk, or a bundle's from its session members. */
  async #scan(record: SessionFileRecord): Promise<CompactSessionIndex> {
    if (record.kind === "session") return this.store.scanSession(record.path, record);
    if (this.#bundles === null) throw new SessionLoadError(`Cannot read debug bundle ${record.path}`, { path: record.path });
    const session = await this.#bundles.session(record.absolutePath, record.path);
    // A bundle's lines are never read from this file by offset (they come from its archive,
    // opened and rechecked by the archive cache), so the index has no inode to hold them to.
    return { path: record.absolutePath, sizeBytes: record.size, mtimeMs: record.mtimeMs, dev: 0, ino: 0, lineCount: session.lineCount, lines: SessionLines.from(session.entries), errors: [...session.errors], errorCount: session.errors.length };
  }

  async #parse(record: SessionFileRecord, lineNumber: number, key: string): Promise<SessionSnapshot> {
    // A bundle keeps its (two) parsed lines itself.
    if (record.kind === "bundle" && this.#bundles !== null) return this.#bundles.snapshot(record.absolutePath, record.path, lineNumber);
    for (let attempt = 0; attempt < 2; attempt++) {
      const index = await this.ensureIndexed(record);
      const location = index.lines.ofLine(lineNumber);
      if (location === undefined) throw new SessionLoadError(`Unknown line_number: ${lineNumber}`, { path: record.path, lineNumber });
      // Drop older lines first: parsing a big line while the cache is full would hold both.
      this.#lines.makeRoom(location.byteLength * PARSED_LINE_HEAP_FACTOR);
      const bytes = await this.store.readLine(record.path, index, location);
      const result: SnapshotLineResult = bytes === null ? { ok: false, error: { lineNumber, kind: "stale", reason: "The file changed since it was indexed; scan it again" } } : snapshotFromLineBytes(bytes, lineNumber);
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
  async readLine(record: SessionFileRecord, lineNumber: number): Promise<Uint8Array> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const index = await this.ensureIndexed(record);
      const location = index.lines.ofLine(lineNumber);
      if (location === undefined) throw new SessionLoadError(`Unknown line_number: ${lineNumber}`, { path: record.path, lineNumber });
      const bytes = await this.store.readLine(record.path, index, location);
      if (bytes !== null) return bytes;
      record.index = null;
      this.#forget(record.path);
    }
    throw new SessionLoadError(`${record.path} keeps changing; try again`, { path: record.path });
  }

  /** Forgets what was read of a file (it changed or is gone): its parsed lines, its index's place in the budget. */
  #forget(relative: string): void {
    this.#lines.deleteWhere((key) => key.startsWith(`${relative}\n`));
    this.#indexes.delete(relative);
    this.#dropped.delete(relative);
    this.#notSessions.delete(relative);
    for (const [record, release] of this.#open) {
      if (record.path !== relative) continue;
      release();
      this.#open.set(record, () => undefined);
    }
  }

  /** An index the budget let go: the file reads it again when asked for (unless it was replaced since). */
  #dropIndex(relative: string, index: CompactSessionIndex): void {
    if (this.#moving) return;
    const record = this.#files.get(relative);
    if (record === undefined || record.index !== index) return;
    record.index = null;
    this.#dropped.add(relative);
  }

  /**
   * Drops the `.zip` files of `found` that are not debug bundles (sniffing each new or changed
   * one, {@link BUNDLE_SNIFFERS} at a time: one after another, the 3,940 bundles of a 10,000-run
   * eval took ~0.6 s of thread-pool round trips before the server could listen).
   */
  async #keepBundles(found: Map<string, FoundFile>, whole = true): Promise<void> {
    const unknown: [string, FoundFile][] = [];
    for (const [relative, file] of found) {
      if (file.kind !== "bundle") continue;
      const known = this.#sniffed.get(relative);
      if (known === undefined || known.size !== file.size || known.mtimeMs !== file.mtimeMs) unknown.push([relative, file]);
      else if (!known.bundle) found.delete(relative);
    }
    await eachAtMost(unknown, BUNDLE_SNIFFERS, async ([relative, file]) => {
      const bundle = await this.store.sniffBundle(relative, file);
      this.#sniffed.set(relative, { size: file.size, mtimeMs: file.mtimeMs, bundle });
      if (!bundle) found.delete(relative);
    });
    if (whole) for (const relative of this.#sniffed.keys()) if (!found.has(relative)) this.#sniffed.delete(relative);
  }
}

/** `.zip` files sniffed at once when listed (an open and a read of the head each, locally, or a range request to a store). */
const BUNDLE_SNIFFERS = 8;

/** WINK names a bundle `{id}_{YYYYmmdd_HHMMSS}.zip` (UTC). */
const BUNDLE_TIMESTAMP = /_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})\.zip$/;

/**
 * When a file's run happened, for ordering: a bundle's own timestamp from its name (copying or
 * unpacking bundles gives them new file dates, which put them in the order of the copy), else
 * the newer of its ctime and mtime.
 */
export function listedTimeMs(record: Pick<SessionFileRecord, "name" | "ctimeMs" | "mtimeMs">): number {
  const stamp = BUNDLE_TIMESTAMP.exec(record.name);
  if (stamp !== null) {
    const [, year, month, day, hour, minute, second] = stamp.map(Number);
    const ms = Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second);
    if (Number.isFinite(ms)) return ms;
  }
  return Math.max(record.ctimeMs, record.mtimeMs);
}
