/**
 * `/api/failures` (the eval: outcomes, runs and failure groups of the whole target) and
 * `/api/failures/occurrences` (one group's occurrences). Digests are kept per version of each
 * run's file, so a second answer reads only the runs that are new or changed since the first;
 * the first takes those an `index.parquet` at the target's root holds (library/index-seed.ts).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import path from "node:path";
import { evalSummary, failureOccurrences } from "../../shared/viewer/index.js";
import type { RunDigestView } from "../../shared/viewer/index.js";
import { INDEX_MEMORY_SHARE, readIndexSeed } from "../library/index-seed.js";
import { readRunDigests } from "../library/run-digests.js";
import type { SessionFileRecord } from "../library/snapshot-directory.js";
import type { ViewerState } from "../library/viewer-state.js";
import type { MemoryBudget } from "../library/weighted-cache.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface FailureRoutesOptions {
  state: ViewerState;
  /** The server's budget: an `index.parquet` bigger than an eighth of it is not read. */
  memory: MemoryBudget;
  /** Told what became of the target's `index.parquet` (default: the server's log, as a warning). */
  onNote?: (line: string) => void;
}

interface Cached {
  readonly size: number | null;
  readonly mtimeMs: number;
  readonly version: string | null;
  readonly digest: RunDigestView;
}

export const failureRoutes: FastifyPluginAsyncTypebox<FailureRoutesOptions> = async (app, { state, memory, onNote }) => {
  const cache = new Map<string, Cached>();
  // One reading at a time: two tabs opening the eval together share it.
  let reading: Promise<RunDigestView[]> | null = null;
  let seeded = false;

  const fresh = (record: SessionFileRecord, cached: Cached | undefined) =>
    cached !== undefined && (cached.size === null || cached.size === record.size) && cached.mtimeMs === record.mtimeMs && cached.version === record.version;

  const digests = async (): Promise<RunDigestView[]> => {
    if (!seeded) {
      // The first reading only: later ones read what changed since, as without the file.
      seeded = true;
      const note = onNote ?? ((line: string) => app.log.warn(line));
      for (const entry of await readIndexSeed(state, { maxBytes: memory.bytes / INDEX_MEMORY_SHARE, onNote: note })) cache.set(entry.run, entry);
    }
    const records = state.directory.newestFirst();
    const stale = records.filter((record) => !fresh(record, cache.get(record.path)));
    if (stale.length > 0) {
      const read = await readRunDigests(state, stale);
      stale.forEach((record, index) => cache.set(record.path, { size: record.size, mtimeMs: record.mtimeMs, version: record.version, digest: read[index] as RunDigestView }));
    }
    const listed = new Set(records.map((record) => record.path));
    for (const key of cache.keys()) if (!listed.has(key)) cache.delete(key);
    return records.map((record) => (cache.get(record.path) as Cached).digest);
  };
  const shared = (): Promise<RunDigestView[]> => {
    reading ??= digests().finally(() => {
      reading = null;
    });
    return reading;
  };

  app.route({ ...routeOptions(VIEWER_ROUTES.failures), handler: async () => evalSummary(path.basename(state.displayRoot), await shared()) });
  app.route({ ...routeOptions(VIEWER_ROUTES.failureOccurrences), handler: async (request) => failureOccurrences(await shared(), request.query.signature) });
};
