/**
 * Every run of a served target as a digest (outcome, times, failures): each built with the
 * run model the viewer opens on, less what a digest does not show (`runDigestOf`: the same
 * digest as `runDigest(await runOf(…))`, checked on every fixture by
 * run-digests.differential.test.ts), a few at a time, then let go so a folder of thousands of
 * runs holds one digest per run, not its runs. A run that does not load is a digest saying
 * why, never an exception.
 */
import { notLoadedDigest } from "../../shared/viewer/index.js";
import type { RunDigestView } from "../../shared/viewer/index.js";
import { eachAtMost } from "./at-most.js";
import { runDigestOf } from "./runs.js";
import type { SessionFileRecord } from "./snapshot-directory.js";
import type { ViewerState } from "./viewer-state.js";

/**
 * Runs read at once. Each holds at most one parsed latest line (a session file's) or one
 * bundle's members being read; the line cache they share is bounded by `--memory`.
 */
export const RUN_READERS = 4;

export interface RunDigestOptions {
  /** Runs read at once (default {@link RUN_READERS}). */
  readonly concurrency?: number;
  /**
   * Drop each run's index once it is digested (default true): a command reading thousands of
   * runs once holds one digest per run, not its runs. A server keeps them: its pages use the
   * same indexes, and one dropped under a page that listed its file leaves that page without
   * the file's snapshots.
   */
  readonly forgetIndexes?: boolean;
  /** Told after each run, in the order they finish. */
  readonly onProgress?: (done: number, total: number) => void;
}

function sourceOf(record: SessionFileRecord) {
  return { kind: record.kind === "bundle" ? ("bundle" as const) : ("session_file" as const), path: record.path, name: record.name };
}

/** The digests of `records` (of `state`'s directory), in the order of `records`. */
export async function readRunDigests(state: ViewerState, records: readonly SessionFileRecord[], options: RunDigestOptions = {}): Promise<RunDigestView[]> {
  const digests: RunDigestView[] = new Array(records.length);
  let done = 0;
  await eachAtMost(records.keys(), options.concurrency ?? RUN_READERS, async (at) => {
    const record = records[at] as SessionFileRecord;
    digests[at] = await runDigestOf(state, record).catch((error: unknown) =>
      notLoadedDigest(sourceOf(record), new Date(record.mtimeMs).toISOString(), error instanceof Error ? error.message : String(error)),
    );
    // The run is cached per index: dropping the index lets both go (nothing reads this run again).
    if (options.forgetIndexes !== false) state.directory.forgetIndex(record);
    done += 1;
    options.onProgress?.(done, records.length);
  });
  return digests;
}
