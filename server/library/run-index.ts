/**
 * The run index of the served target (issue 30, item 1): a digest of every run, kept per
 * version of its file (size, mtime, and ETag for a remote object), built in the background a
 * few runs at a time, answered from as it grows (`/api/failures` says how far it got), kept up
 * to date by the change notices live reload hears (`update()`), and persisted (`store`) so
 * that a second start reads no run it read before. A pre-built index (a Parquet file at the
 * target's root) prefills it with `seed()`. One run is digested by `readRunDigests`, the one
 * way runs are read for the eval.
 */
import type { RunDigestView } from "../../shared/viewer/index.js";
import { RUN_READERS, readRunDigests } from "./run-digests.js";
import type { RunIndexEntry, RunIndexStore } from "./run-index-store.js";
import type { SessionFileRecord } from "./snapshot-directory.js";
import type { ViewerState } from "./viewer-state.js";

export type { RunIndexEntry } from "./run-index-store.js";

/** How far the index got over the runs it covers. */
export interface RunIndexProgress {
  /** Runs whose digest is of their current file. */
  readonly indexed: number;
  readonly total: number;
  readonly complete: boolean;
}

/** A save at most this often while runs are being read (a kill mid-way keeps most of the work). */
export const SAVE_EVERY_MS = 2000;

/** Progress is told at most this often while runs are read. */
const REPORT_EVERY_MS = 100;

export interface RunIndexOptions {
  /** Where the index is kept between processes; none: it lives in memory only (`--no-cache`). */
  readonly store?: RunIndexStore | null;
  /** Runs read at once (default {@link RUN_READERS}). */
  readonly concurrency?: number;
  /** The runs the index covers (the CLI's `--since`, a target naming one file); default every file listed. */
  readonly covers?: (record: SessionFileRecord) => boolean;
  /** Told as runs are read (at most every 100 ms), and once when there is nothing left to read. */
  readonly onProgress?: (progress: RunIndexProgress) => void;
  /**
   * A pre-built index (the target's `index.parquet`, library/index-seed.ts), asked once at the
   * start after the persisted one is loaded and before any run is read: the runs it still
   * describes are not read at all.
   */
  readonly prebuilt?: () => Promise<readonly RunIndexEntry[]>;
  /** Drop each run's index once it is digested (`RunDigestOptions.forgetIndexes`; default true, as a command does; the server keeps them). */
  readonly forgetIndexes?: boolean;
  /** The longest a read run waits to be saved (default {@link SAVE_EVERY_MS}). */
  readonly saveEveryMs?: number;
}

/** The digests of the runs covered (newest first; runs not read yet left out) and how far they go. Shared between callers: not to be changed. */
export interface RunIndexView {
  readonly digests: readonly RunDigestView[];
  readonly progress: RunIndexProgress;
}

type Version = Pick<RunIndexEntry, "size" | "mtimeMs" | "version">;

/** The entry still describes the record's file. A seeded entry that did not record the size (or ETag) is judged by what it has. */
function describes(entry: Version, record: SessionFileRecord): boolean {
  return entry.mtimeMs === record.mtimeMs && (entry.size === null || entry.size === record.size) && (entry.version === null || record.version === null || entry.version === record.version);
}

export class RunIndex {
  readonly #entries = new Map<string, RunIndexEntry>();
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #reading = new Set<string>();
  #workers = 0;
  readonly #running = new Set<Promise<void>>();
  #waiters: (() => void)[] = [];
  /** Loaded (what was persisted is in): only then are runs queued, or a warm start would read them again. */
  #started = false;
  #starting: Promise<void> | null = null;
  #announceStarted: () => void = () => undefined;
  readonly #whenStarted = new Promise<void>((resolve) => (this.#announceStarted = resolve));
  #closed = false;
  #read = 0;
  #dirty = false;
  #saveTimer: NodeJS.Timeout | null = null;
  #saving: Promise<void> = Promise.resolve();
  #reportedAt = 0;
  #reportedRead = -1;
  /** Goes up whenever an entry is taken, read, or dropped (with the listing's, {@link generation}). */
  #changes = 0;
  /** The last `view()`, and the generation it was computed at. */
  #view: { readonly at: string; readonly value: RunIndexView } | null = null;
  /** The generation the last `update()` without named changes saw: the next one like it has nothing to do. */
  #updatedAt: string | null = null;

  constructor(
    private readonly state: ViewerState,
    private readonly options: RunIndexOptions = {},
  ) {}

  /**
   * Changes whenever what `view()` answers may: an entry taken, read or dropped, or the
   * listing changed. What is computed from the view (the eval's answer, a group's
   * occurrences) can be kept until it does.
   */
  get generation(): string {
    return `${this.state.directory.generation}:${this.#changes}`;
  }

  /** Runs read (digested) by this index since it was made: none on a warm start. */
  get runsRead(): number {
    return this.#read;
  }

  /** Resolves once `start()` has loaded the index (whoever called it: the server at start, or the eval's first answer). */
  whenStarted(): Promise<void> {
    return this.#whenStarted;
  }

  /** Loads the persisted index (when there is one), then starts reading what it lacks. Resolves once loaded, not once complete. */
  start(): Promise<void> {
    this.#starting ??= (async () => {
      const saved = (await this.options.store?.load()) ?? null;
      // What the file holds already: not a reason to write it again.
      if (saved !== null) this.#take(saved);
      const prebuilt = (await this.options.prebuilt?.().catch(() => null)) ?? null;
      // Kept with the next save, as seed() does: a start after this one has them from the cache.
      if (prebuilt !== null && this.#take(prebuilt) > 0) this.#dirty = true;
      this.#started = true;
      this.#announceStarted();
      this.update();
    })();
    return this.#starting;
  }

  /**
   * Prefills the index (a persisted or pre-built one): an entry is taken for a run listed now
   * whose file it still describes, unless the index has a current digest of that run already.
   */
  seed(entries: readonly RunIndexEntry[]): void {
    // Kept with the next save, so that a start after this one has them from the cache.
    if (this.#take(entries) > 0) this.#dirty = true;
    if (this.#started) this.update();
  }

  /** Takes the entries that still describe a listed run's file; how many it took. */
  #take(entries: readonly RunIndexEntry[]): number {
    const { directory } = this.state;
    let taken = 0;
    for (const entry of entries) {
      const record = directory.get(entry.run);
      if (record === undefined || !describes(entry, record)) continue;
      const held = this.#entries.get(entry.run);
      if (held !== undefined && describes(held, record)) continue;
      this.#entries.set(entry.run, entry);
      this.#changes += 1;
      taken += 1;
    }
    return taken;
  }

  /**
   * Takes the directory's current listing in (after a change notice, or before an answer):
   * runs that left are dropped, new and rewritten ones are queued to be read. `changed`: runs
   * a change notice names, read again even if their listed size and time look the same (a
   * store whose listing has no ETags revalidates them itself).
   */
  update(changed: readonly string[] = []): void {
    if (this.#closed || !this.#started) return;
    // The page asks every second while the index grows: with nothing changed since the last
    // look, there is nothing to drop or queue (each read run changes the generation).
    if (changed.length === 0 && this.#updatedAt === this.generation) return;
    const { directory } = this.state;
    const before = this.#entries.size;
    for (const run of changed) if (this.#entries.delete(run)) this.#dirty = true;
    for (const run of this.#entries.keys()) {
      if (directory.get(run) !== undefined) continue;
      this.#entries.delete(run);
      this.#dirty = true;
    }
    if (this.#entries.size !== before) this.#changes += 1;
    if (this.#dirty) this.#scheduleSave();
    for (const record of this.#covered()) {
      if (this.#current(record) !== null || this.#queued.has(record.path) || this.#reading.has(record.path)) continue;
      this.#queued.add(record.path);
      this.#queue.push(record.path);
    }
    if (changed.length === 0) this.#updatedAt = this.generation;
    this.#pump();
  }

  /** How far the index got (against the listing as it is now). */
  progress(): RunIndexProgress {
    return this.view().progress;
  }

  /** The current digests of the runs covered, newest first; runs not read yet are left out. */
  digests(): readonly RunDigestView[] {
    return this.view().digests;
  }

  /** Both, from one pass over the listing (what an answer needs); the same answer until the {@link generation} changes. */
  view(): RunIndexView {
    const at = this.generation;
    if (this.#view?.at === at) return this.#view.value;
    const covered = this.#covered();
    const digests: RunDigestView[] = [];
    for (const record of covered) {
      const entry = this.#current(record);
      if (entry !== null) digests.push(entry.digest);
    }
    const value: RunIndexView = { digests, progress: { indexed: digests.length, total: covered.length, complete: digests.length === covered.length } };
    this.#view = { at, value };
    return value;
  }

  /** Every entry held (seeded, loaded or read), as a store or a Parquet writer would keep them. */
  entries(): RunIndexEntry[] {
    return [...this.#entries.values()];
  }

  /** Resolves when every run covered has a current digest (starting the index if need be). */
  async whenComplete(): Promise<void> {
    await this.start();
    this.update();
    while (!this.#closed && !this.progress().complete) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
      this.update();
    }
  }

  /** Stops reading and saves what was read (the next start goes on from there). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    this.#queued.clear();
    for (const wake of this.#waiters.splice(0)) wake();
    // The runs being read finish first: they use the directory its owner closes next.
    await Promise.allSettled([...this.#running]);
    await this.flush();
  }

  /** Saves now if anything changed since the last save. */
  async flush(): Promise<void> {
    if (this.#saveTimer !== null) clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    const store = this.options.store;
    if (store === undefined || store === null) return;
    this.#saving = this.#saving.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      // A run that did not load is read again next time: what stopped it (a permission, a file being written) may have passed.
      await store.save(this.entries().filter((entry) => entry.digest.outcome !== "not_loaded"));
    });
    await this.#saving;
  }

  #covered(): SessionFileRecord[] {
    const records = this.state.directory.newestFirst();
    const covers = this.options.covers;
    return covers === undefined ? records : records.filter(covers);
  }

  #current(record: SessionFileRecord): RunIndexEntry | null {
    const entry = this.#entries.get(record.path);
    return entry !== undefined && describes(entry, record) ? entry : null;
  }

  #scheduleSave(): void {
    if (this.#saveTimer !== null || this.options.store === undefined || this.options.store === null) return;
    this.#saveTimer = setTimeout(() => void this.flush(), this.options.saveEveryMs ?? SAVE_EVERY_MS);
    this.#saveTimer.unref();
  }

  #pump(): void {
    const readers = Math.max(1, this.options.concurrency ?? RUN_READERS);
    while (this.#workers < readers && this.#queue.length > 0) {
      this.#workers += 1;
      const worker: Promise<void> = this.#work().finally(() => {
        this.#workers -= 1;
        this.#running.delete(worker);
        if (this.#workers === 0 && this.#queue.length === 0) this.#settled();
      });
      this.#running.add(worker);
    }
    if (this.#workers === 0) this.#settled();
  }

  /** Progress as it goes: at most every {@link REPORT_EVERY_MS} (counting is a pass over the listing), and always once settled. */
  #report(settled: boolean): void {
    if (this.options.onProgress === undefined || (!settled && Date.now() - this.#reportedAt < REPORT_EVERY_MS) || (settled && this.#reportedRead === this.#read)) return;
    this.#reportedAt = Date.now();
    this.#reportedRead = this.#read;
    this.options.onProgress(this.progress());
  }

  /** Nothing left to read: saved at once, and whoever waits for completion looks again. */
  #settled(): void {
    this.#report(true);
    if (this.#dirty) void this.flush();
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async #work(): Promise<void> {
    for (let run = this.#queue.shift(); run !== undefined && !this.#closed; run = this.#queue.shift()) {
      // A turn of the event loop before each run: a small local run is read on the calling
      // thread and digested without any I/O to wait on, so without it the whole index ran as
      // one chain of microtasks, holding every request (and the saves) until the last run.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.#closed) break;
      this.#queued.delete(run);
      const record = this.state.directory.get(run);
      if (record === undefined || this.#current(record) !== null) continue;
      // The record is updated in place by the next listing: the version read is the one before.
      const seen: Version = { size: record.size, mtimeMs: record.mtimeMs, version: record.version };
      this.#reading.add(run);
      let digest: RunDigestView | undefined;
      try {
        [digest] = await readRunDigests(this.state, [record], { concurrency: 1, forgetIndexes: this.options.forgetIndexes !== false });
      } finally {
        this.#reading.delete(run);
      }
      this.#read += 1;
      // Read, even without a digest to keep: the next update() looks at this run again.
      this.#changes += 1;
      if (digest === undefined || this.#closed || this.state.directory.get(run) === undefined) continue;
      this.#entries.set(run, { run, ...seen, digest });
      this.#dirty = true;
      this.#scheduleSave();
      // Rewritten while it was read: read again.
      if (!describes(seen, record)) {
        this.#queued.add(run);
        this.#queue.push(run);
      }
      this.#report(false);
    }
  }
}
