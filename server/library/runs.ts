/**
 * Runs of the served directory: one per session file or debug bundle. A run is built from
 * its file's index (summaries of every line) and each session's latest line parsed in full,
 * and cached per index (a changed file is re-indexed, so its run is rebuilt on the next
 * request). A bundle's run adds what the bundle holds beyond its session: `error.json`, its
 * panels, and the failed calls of its transcript.
 */
import { BUNDLE_MEMBERS, bundleDigestParts, bundleRunParts } from "../../shared/debug-bundle/index.js";
import { findFilesystemSnapshotRef } from "../../shared/session/index.js";
import type { CompactSessionIndex, SessionSnapshot } from "../../shared/session/index.js";
import { EventLoopSlices } from "../../shared/session/index.js";
import { buildRunSliced, buildSessionListsSliced, landingRun, latestLinesSliced, runDigest } from "../../shared/viewer/index.js";
import type { RunDigestView, RunInput, RunSessionLists, RunView } from "../../shared/viewer/index.js";
import { echoedName, notFound } from "../http/errors.js";
import { isoTime } from "./iso-time.js";
import type { SessionFileRecord } from "./snapshot-directory.js";
import type { ViewerState } from "./viewer-state.js";

/** Files larger than this get snapshot labels without archive names (naming them parses every line). */
const MAX_ARCHIVE_NAMING_BYTES = 32 * 1024 * 1024;

const runs = new WeakMap<CompactSessionIndex, Promise<RunView>>();
/** What a run was built with beyond its lines and latest lines: a session's whole lists are built again with it. */
type ListsContext = Pick<RunInput, "archives" | "lineLabels" | "eventDetail">;
const contexts = new WeakMap<RunView, ListsContext>();

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

/** The run a request names (held: the memory budget keeps it while asked), or without `file` the landing page's (`landingRecord`). */
export async function runRecordOf(state: ViewerState, file: string | undefined): Promise<SessionFileRecord> {
  if (file !== undefined) {
    const record = state.directory.get(file);
    if (record === undefined) throw notFound(`Unknown session file: ${echoedName(file)}`);
    state.directory.hold(record);
    return record;
  }
  const landing = await landingRecord(state, state.directory.newestFirst());
  if (landing === null) throw notFound("No session file of the directory holds a loadable line");
  return landing;
}

/**
 * The whole turns and snapshots of one session of a run (`/api/run/session`, the run search).
 * The run keeps each session's lists as `/api/run` lists them (a file of 1.5 M lines kept a
 * turn and a snapshot view a line); a session `truncated` there has its lists built again
 * from the file's index and its latest line. Null when the run has no such session.
 */
export async function sessionListsOf(state: ViewerState, record: SessionFileRecord, run: RunView, sessionId: string): Promise<RunSessionLists | null> {
  const session = run.sessions.find((candidate) => candidate.session_id === sessionId);
  if (session === undefined) return null;
  if (session.truncated === undefined) return { turns: session.turns, snapshots: session.snapshots };
  const index = await state.directory.ensureIndexed(record);
  const latest = new Map([[sessionId, await state.directory.readSnapshot(record, session.latest_line)]]);
  const context = contexts.get(run) ?? {};
  return buildSessionListsSliced({ ...context, source: run.source, modifiedAt: run.modified_at, lines: index.lines, lineErrors: index.errors, latest }, sessionId);
}

/**
 * The digest of one run (`runDigest(await runOf(state, record))`, the same value) without
 * what the digest does not show: no archive names for the snapshot lines (each one a line
 * parsed in full), and a bundle's transcript calls read from its records without building
 * the transcript the panel pages through. The run built for it is not cached (it is not the
 * viewer's run); a run the viewer built already is used as it is.
 */
export async function runDigestOf(state: ViewerState, record: SessionFileRecord): Promise<RunDigestView> {
  // A file not indexed yet is read once: its index and its latest lines from the same bytes.
  const whole = await state.directory.readWhole(record, WHOLE_READ_BYTES);
  if (whole !== null) return runDigest(await build(state, record, whole.index, "digest", async (lineNumber) => whole.snapshot(lineNumber)));
  const index = await state.directory.ensureIndexed(record);
  const cached = runs.get(index);
  return runDigest(await (cached ?? build(state, record, index, "digest")));
}

/**
 * Session files up to this size are read whole for their digest (see `readWhole`); larger ones
 * are scanned, then their latest lines read. A reader holds the file's bytes beside its parsed
 * latest line while the digest is built: at `RUN_READERS` at once, 32 MiB at most.
 */
export const WHOLE_READ_BYTES = 8 * 1024 * 1024;

/** How long the landing page looks for a failed run (past it, the newest run that loads is shown, or the failed one found by then). */
export const LANDING_LOOKAHEAD_MS = 1_000;

/**
 * The run the landing page opens (`/api/run` without a file; shared/viewer/landing-run.ts):
 * of the newest few, the newest run that failed (a bundle with `error.json`, known without
 * building its run), else the newest with a failed call, else the newest run that loads;
 * null when none loads. `records` is newest first. On a remote store only runs already
 * indexed are looked at (indexing one costs its whole object). The runs built here are the
 * ones the sidebar's first page builds next (they are cached).
 */
export async function landingRecord(state: ViewerState, records: readonly SessionFileRecord[], now: () => number = Date.now): Promise<SessionFileRecord | null> {
  const until = now() + LANDING_LOOKAHEAD_MS;
  return landingRun(records, {
    loads: async (record) => ((await state.directory.ensureIndexed(record).catch(() => null))?.lines.length ?? 0) > 0,
    failed: async (record) => record.kind === "bundle" && state.bundles !== null && (await state.bundles.open(record.absolutePath, record.path).catch(() => null))?.has(BUNDLE_MEMBERS.error) === true,
    failedCalls: async (record) => (await runOf(state, record).catch(() => null))?.stats.outcome === "failed",
    skip: (record) => state.directory.store.remote && record.index === null,
    timeLeft: () => now() < until,
  });
}

/** `digest`: only what `runDigest` reads is built right (see {@link runDigestOf}). */
async function build(
  state: ViewerState,
  record: SessionFileRecord,
  index: CompactSessionIndex,
  purpose: "view" | "digest" = "view",
  readLatest: (lineNumber: number) => Promise<SessionSnapshot> = (lineNumber) => state.directory.readSnapshot(record, lineNumber),
): Promise<RunView> {
  // In event-loop slices, as the run itself (buildRunSliced): over a file of 1.5 M lines each
  // pass takes seconds, and `/api/meta` of another file waited them out.
  // The index's lines are read by column (an entry object a line was ~200 bytes, all kept through the build).
  const slices = new EventLoopSlices();
  const lines = index.lines;
  const latest = new Map<string, SessionSnapshot>();
  // One line at a time: two big lines parsed at once would double the peak memory.
  for (const [sessionId, lineNumber] of await latestLinesSliced(lines, slices)) latest.set(sessionId, await readLatest(lineNumber));
  const archives = new Map<number, string | null>();
  if (purpose === "view" && index.sizeBytes <= MAX_ARCHIVE_NAMING_BYTES) {
    for (const entry of index.lines) {
      if (slices.due()) await slices.pause();
      if (!entry.slices.some((slice) => slice.displayName === "FilesystemSnapshotRef")) continue;
      const snapshot = await state.directory.readSnapshot(record, entry.lineNumber).catch(() => null);
      archives.set(entry.lineNumber, snapshot === null ? null : (findFilesystemSnapshotRef(snapshot)?.archiveName ?? null));
    }
  }
  const bundle = record.kind === "bundle" && state.bundles !== null ? await state.bundles.open(record.absolutePath, record.path) : null;
  const input: RunInput = {
    ...(bundle === null ? {} : await (purpose === "view" ? bundleRunParts(bundle) : bundleDigestParts(bundle))),
    source: { kind: bundle === null ? "session_file" : "bundle", path: record.path, name: record.name },
    modifiedAt: isoTime(record.mtimeMs),
    lines,
    lineErrors: index.errors,
    latest,
    archives,
    ...(purpose === "digest" ? { eventDetail: "failures" as const } : {}),
    // Each session's lists as `/api/run` answers them: the whole lists are built again for a page (sessionListsOf).
    bounded: true,
  };
  const run = await buildRunSliced(input, slices);
  contexts.set(run, { archives: input.archives, lineLabels: input.lineLabels, eventDetail: input.eventDetail });
  return run;
}
