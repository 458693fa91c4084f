/**
 * Every run of a command's target as digests, with progress on stderr: what `wink-debug
 * failures` groups and `wink-debug index` writes, read the one way so that both count the
 * same runs (docs/eval.md "Runs").
 */
import { WinkError } from "../shared/errors.js";
import { isRemoteTarget } from "../shared/remote/index.js";
import { pageOfRuns } from "../shared/viewer/index.js";
import type { RunDigestView } from "../shared/viewer/index.js";
import { readRunDigests } from "./library/run-digests.js";
import { closeServedState, openServedState } from "./library/served-state.js";
import { listedTimeMs } from "./library/snapshot-directory.js";

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
 * Refuses a remote target for `command` (with the error `refuse` makes): remote stores are
 * read by range and indexed as shown; counting every run of one is the run index's job
 * (issue 30, item 1).
 */
export function refuseRemote(command: string, target: string, refuse: (message: string) => Error): void {
  if (isRemoteTarget(target)) throw refuse(`${command} reads local folders and files; remote stores (s3://, http(s)://) are not read by it yet`);
}

/**
 * The digests of every run of `query.target` (its own files; with `recursive`, its
 * subfolders' too), a few at a time, progress on `io.err`. A target that cannot be opened or
 * holds no run is the error `refuse` makes of why, naming it.
 */
export async function readTargetDigests(query: TargetQuery, io: TargetIo, refuse: (message: string) => Error): Promise<TargetDigests> {
  let served;
  try {
    served = await openServedState({ path: query.target, recursive: query.recursive, pickCurrent: false });
  } catch (error) {
    if (error instanceof WinkError) throw refuse(error.message);
    throw error;
  }
  try {
    const { directory } = served.state;
    const listed = served.preferred === null ? directory.newestFirst() : [directory.get(served.preferred)].filter((record) => record !== undefined);
    const since = query.since ?? null;
    const { page: records } = pageOfRuns(listed, (record) => ({ path: record.path, timeMs: listedTimeMs(record) }), since === null ? {} : { since });
    const started = Date.now();
    let shownAt = 0;
    if (!io.interactive) io.err(`Reading ${plural(records.length, "run")} of ${served.state.displayRoot}…\n`);
    const digests = await readRunDigests(served.state, records, {
      onProgress: (done, total) => {
        if (!io.interactive || (done < total && Date.now() - shownAt < PROGRESS_EVERY_MS)) return;
        shownAt = Date.now();
        io.err(`\rReading runs: ${done}/${total}${done === total ? "\n" : ""}`);
      },
    });
    const notLoaded = digests.filter((digest) => digest.outcome === "not_loaded").length;
    io.err(`Read ${plural(records.length, "run")} in ${((Date.now() - started) / 1000).toFixed(1)} s${notLoaded > 0 ? ` (${notLoaded} did not load)` : ""}\n`);
    return { displayRoot: served.state.displayRoot, digests, sizes: new Map(records.map((record) => [record.path, record.size])) };
  } finally {
    await closeServedState(served);
  }
}
