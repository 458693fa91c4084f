/**
 * Every run of a command's target as digests, with progress on stderr: what `wink-debug
 * failures` groups and `wink-debug index` writes, read the one way so that both count the
 * same runs (docs/eval.md "Runs").
 */
import { SourceError, WinkError } from "../shared/errors.js";
import { isRemoteTarget } from "../shared/remote/index.js";
import { pageOfRuns } from "../shared/viewer/index.js";
import type { RunDigestView } from "../shared/viewer/index.js";
import { INDEX_MEMORY_SHARE, readIndexSeed } from "./library/index-seed.js";
import { RunIndex } from "./library/run-index.js";
import { runIndexDir, runIndexStore } from "./library/run-index-store.js";
import { closeServedState, openServedState } from "./library/served-state.js";
import type { RemoteTargetOptions } from "./library/open-target.js";
import { listedTimeMs } from "./library/snapshot-directory.js";
import { packageVersion } from "./package-root.js";
import { shownTarget } from "./remote-cli.js";

export interface TargetIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Progress as it goes (`\r` updates) rather than a line at the start and one at the end. */
  readonly interactive: boolean;
}

export const processIo: TargetIo = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text), interactive: process.stderr.isTTY === true };

/** How often an interactive progress line is rewritten, at most. */
const PROGRESS_EVERY_MS = 100;

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export interface TargetQuery {
  readonly target: string;
  readonly recursive: boolean;
  /** Only runs from this time on (`--since`, as given). */
  readonly since?: string | null;
  /**
   * Keep the digests between runs and read them from there (default true; `--no-cache`:
   * false): a local folder's in the user's cache directory, a remote store's in
   * `remote.cacheDir` (none without it), as the viewer keeps them.
   */
  readonly cache?: boolean;
  /** How to reach a remote target's store (`--endpoint-url`, `--cache-dir`…: server/remote-cli.ts). */
  readonly remote?: RemoteTargetOptions;
}

export interface TargetDigests {
  /** The target as shown (its folder). */
  readonly displayRoot: string;
  /** One per run (and per `.json` file that is not a session), in no particular order. */
  readonly digests: RunDigestView[];
  /** Each run's file size in bytes, by run (`index` writes them: what tells the viewer a run is unchanged). */
  readonly sizes: ReadonlyMap<string, number>;
}

/**
 * Progress of reading runs, on stderr: a line when it starts (unless on a terminal, where
 * `\r` updates follow it instead) and one when it is done, with the count, the time, the runs
 * taken from the cache and those that did not load. The commands read with it, and the
 * server indexes with it ("Indexing" rather than "Reading").
 */
export class ReadingProgress {
  #started = Date.now();
  #shownAt = 0;
  #cached = 0;

  constructor(
    private readonly io: TargetIo,
    private readonly words: { readonly doing: string; readonly done: string } = { doing: "Reading", done: "Read" },
  ) {}

  /** `toRead` runs are to be read, `cached` were found in the cache. */
  begin(toRead: number, cached: number, root: string): void {
    this.#started = Date.now();
    this.#cached = cached;
    if (!this.io.interactive) this.io.err(`${this.words.doing} ${plural(toRead, "run")} of ${root}${cached > 0 ? ` (${cached} more from the cache)` : ""}…\n`);
  }

  /** `done` of the `total` runs to read are read. */
  step(done: number, total: number): void {
    if (!this.io.interactive || (done < total && Date.now() - this.#shownAt < PROGRESS_EVERY_MS)) return;
    this.#shownAt = Date.now();
    this.io.err(`\r${this.words.doing} runs: ${done}/${total}${done === total ? "\n" : ""}`);
  }

  /** `read` runs were read; `notLoaded` runs (read or cached) did not load. */
  end(read: number, notLoaded: number): void {
    const notes = [...(this.#cached > 0 ? [`${this.#cached} from the cache`] : []), ...(notLoaded > 0 ? [`${notLoaded} did not load`] : [])];
    this.io.err(`${this.words.done} ${plural(read, "run")} in ${((Date.now() - this.#started) / 1000).toFixed(1)} s${notes.length > 0 ? ` (${notes.join("; ")})` : ""}\n`);
  }
}

/**
 * The digests of every run of `query.target` (a local folder or file, or a remote store's
 * URL; its own files, with `recursive` its subfolders' too), a few at a time, progress on
 * `io.err`. Runs read before (by these commands or the viewer) come from the run index kept
 * in the user's cache directory (a remote store's in `query.remote.cacheDir`), and those
 * read now are added to it, unless `query.cache` is false. A target that cannot be opened or
 * holds no run is the error `refuse` makes of why, naming it; a store that cannot be read
 * throws its `SourceError` (the CLI's exit 4, with a hint).
 */
export async function readTargetDigests(query: TargetQuery, io: TargetIo, refuse: (message: string) => Error): Promise<TargetDigests> {
  const remote = isRemoteTarget(query.target);
  if (remote) io.err(`Listing ${shownTarget(query.target)}…\n`);
  let served;
  try {
    served = await openServedState({ path: query.target, recursive: query.recursive, pickCurrent: false, ...(query.remote === undefined ? {} : { remote: query.remote }) });
  } catch (error) {
    if (error instanceof WinkError && !(error instanceof SourceError)) throw refuse(error.message);
    throw error;
  }
  try {
    const { directory } = served.state;
    // Left out, not fatal, as the viewer leaves them (issue 33, item 2).
    for (const skipped of directory.listing.skippedFolders) io.err(`Skipped ${skipped.prefix}: ${skipped.reason}\n`);
    const listed = served.preferred === null ? directory.newestFirst() : [directory.get(served.preferred)].filter((record) => record !== undefined);
    const since = query.since ?? null;
    const { page: records } = pageOfRuns(listed, (record) => ({ path: record.path, timeMs: listedTimeMs(record) }), since === null ? {} : { since });
    const wanted = new Set(records.map((record) => record.path));
    const indexDir = runIndexDir({ remote, cacheDir: query.remote?.cacheDir, cache: query.cache !== false });
    const store = indexDir === null ? null : runIndexStore(indexDir, directory.root, directory.recursive, packageVersion(), (message) => io.err(`${message}\n`));
    const progress = new ReadingProgress(io);
    let cached = 0;
    // An index.parquet at the target's root (a CI job's `wink-debug index`) gives the runs it
    // still describes, as it does the viewer: a big eval is grouped without reading them.
    const prebuilt = () => readIndexSeed(served.state, { maxBytes: served.memory.bytes / INDEX_MEMORY_SHARE, onNote: (line) => io.err(`${line}\n`) });
    const index = new RunIndex(served.state, { store, prebuilt, covers: (record) => wanted.has(record.path), onProgress: ({ indexed, total }) => progress.step(indexed - cached, total - cached) });
    await index.start();
    const before = index.progress();
    cached = before.indexed;
    progress.begin(before.total - cached, cached, served.state.displayRoot);
    await index.whenComplete();
    // Saved before the answer: the next command reads none of these runs again.
    await index.close();
    const digests = [...index.digests()];
    progress.end(index.runsRead, digests.filter((digest) => digest.outcome === "not_loaded").length);
    return { displayRoot: served.state.displayRoot, digests, sizes: new Map(records.map((record) => [record.path, record.size])) };
  } finally {
    await closeServedState(served);
  }
}
