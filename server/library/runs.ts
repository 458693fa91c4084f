/**
 * Runs of the served directory: one per session file or debug bundle. A run is built from
 * its file's index (summaries of every line) and each session's latest line parsed in full,
 * and cached per index (a changed file is re-indexed, so its run is rebuilt on the next
 * request). A bundle's run adds what the bundle holds beyond its session: `error.json`, its
 * panels, and the failed calls of its transcript.
 */
import { bundleRunParts } from "../../shared/debug-bundle/index.js";
import { findFilesystemSnapshotRef } from "../../shared/session/index.js";
import type { CompactSessionIndex, SessionSnapshot } from "../../shared/session/index.js";
import { buildRun, latestLines } from "../../shared/viewer/index.js";
import type { RunView } from "../../shared/viewer/index.js";
import type { SessionFileRecord } from "./snapshot-directory.js";
import type { ViewerState } from "./viewer-state.js";
import { indexedLine } from "./viewer-state.js";

/** Files larger than this get snapshot labels without archive names (naming them parses every line). */
const MAX_ARCHIVE_NAMING_BYTES = 32 * 1024 * 1024;

const runs = new WeakMap<CompactSessionIndex, Promise<RunView>>();

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The run of one session file (indexed first when needed). */
export async function runOf(state: ViewerState, record: SessionFileRecord): Promise<RunView> {
  const index = await state.directory.ensureIndexed(record);
  const cached = runs.get(index);
  if (cached !== undefined) return cached;
  const building = build(state, record, index);
  runs.set(index, building);
  building.catch(() => runs.delete(index));
  return building;
}

async function build(state: ViewerState, record: SessionFileRecord, index: CompactSessionIndex): Promise<RunView> {
  const lines = index.lines.map(indexedLine);
  const latest = new Map<string, SessionSnapshot>();
  // One line at a time: two big lines parsed at once would double the peak memory.
  for (const [sessionId, lineNumber] of latestLines(lines)) latest.set(sessionId, await state.directory.readSnapshot(record, lineNumber));
  const archives = new Map<number, string | null>();
  if (index.sizeBytes <= MAX_ARCHIVE_NAMING_BYTES) {
    for (const entry of index.lines) {
      if (!entry.slices.some((slice) => slice.displayName === "FilesystemSnapshotRef")) continue;
      const snapshot = await state.directory.readSnapshot(record, entry.lineNumber).catch(() => null);
      archives.set(entry.lineNumber, snapshot === null ? null : (findFilesystemSnapshotRef(snapshot)?.archiveName ?? null));
    }
  }
  const bundle = record.kind === "bundle" && state.bundles !== null ? await state.bundles.open(record.absolutePath, record.path) : null;
  return buildRun({
    ...(bundle === null ? {} : await bundleRunParts(bundle)),
    source: { kind: bundle === null ? "session_file" : "bundle", path: record.path, name: record.name },
    modifiedAt: isoTime(record.mtimeMs),
    lines,
    lineErrors: index.errors,
    latest,
    archives,
  });
}
