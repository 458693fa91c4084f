/**
 * Runs: `/api/runs` (every run of the directory, newest first, with its outcome), a page of
 * a session's turns and snapshots that `/api/run` leaves out (`/api/run/session`) and
 * `/api/run/search` (a search across every snapshot of a session and its children).
 * `/api/run` and `/api/run/failures` are computed routes (computed.ts).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import path from "node:path";
import { pageOfRuns, placeholderRunSummary, runSummary, searchRun, sessionEvents, sessionListsPage } from "../../shared/viewer/index.js";
import type { RunSearchSession, RunSummaryView } from "../../shared/viewer/index.js";
import { notFound } from "../http/errors.js";
import { compileLinearRegex } from "../library/linear-regex.js";
import type { StoreHealth } from "../library/remote-poller.js";
import { runOf, runRecordOf, sessionListsOf } from "../library/runs.js";
import { listedTimeMs } from "../library/snapshot-directory.js";
import type { SessionFileRecord } from "../library/snapshot-directory.js";
import type { ViewerState } from "../library/viewer-state.js";
import { isoTime } from "../library/iso-time.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface RunRoutesOptions {
  state: ViewerState;
  /** A remote store's live-reload health (`--poll`), or null. */
  health?: () => StoreHealth | null;
  /** Told when files indexed for a page of runs (a remote store's) are ready. */
  onIndexed?: () => void;
}

/** Runs of a remote store indexed in the background for one answer (each costs a whole object): a page of the sidebar. */
const REMOTE_INDEX_PAGE = 100;
/**
 * How long one answer of `/api/runs` waits on its runs' summaries, all of them together: a
 * run not ready by then (its object slow to come from the store) is listed as `slow` and
 * fills in on a later request, so one object that never answers cannot hold the list.
 */
const SUMMARY_DEADLINE_MS = 1_500;
/** A remote object still being indexed after this long is listed as `slow`, not `pending`. */
const SLOW_INDEX_MS = 2_000;

export const runRoutes: FastifyPluginAsyncTypebox<RunRoutesOptions> = async (app, { state, health, onIndexed }) => {
  const { directory } = state;
  const source = (record: SessionFileRecord) => ({ kind: record.kind === "bundle" ? ("bundle" as const) : ("session_file" as const), path: record.path, name: record.name });

  const slow = (record: SessionFileRecord, problem: string): RunSummaryView => placeholderRunSummary(source(record), isoTime(record.mtimeMs), "slow", problem);
  const waiting = (record: SessionFileRecord, waitedMs: number): RunSummaryView =>
    slow(record, `The store has not finished sending ${record.path} after ${(waitedMs / 1000).toFixed(1)} s; it is listed when it arrives`);

  /**
   * The last summary of each run, for the version of its file it was built from: a run whose
   * index the memory budget let go is still listed as it was (opening it reads the index again).
   */
  const listed = new WeakMap<SessionFileRecord, { size: number; mtimeMs: number; version: string | null; summary: RunSummaryView }>();
  const lastSummary = (record: SessionFileRecord): RunSummaryView | null => {
    const last = listed.get(record);
    return last !== undefined && last.size === record.size && last.mtimeMs === record.mtimeMs && last.version === record.version ? last.summary : null;
  };

  /** A run's summary, or `slow` when it is not ready by `deadline` (it goes on being read for a later request). */
  const summaryOf = async (record: SessionFileRecord, deadline: number): Promise<RunSummaryView> => {
    // A run listed before is listed as it was; one never listed is read again (once: then it is).
    const last = directory.dropped(record) ? lastSummary(record) : null;
    if (last !== null) return last;
    if (directory.awaitsIndex(record)) {
      const indexing = directory.indexingFor(record);
      if (indexing !== null && indexing >= SLOW_INDEX_MS) return waiting(record, indexing);
      return placeholderRunSummary(source(record), isoTime(record.mtimeMs), "pending", null);
    }
    // Not read again for the list (each try costs a whole deadline): opening the run does.
    if (directory.timedOut(record)) return slow(record, `${record.error ?? ""} (opening the run tries again)`);
    const started = Date.now();
    const summary = runOf(state, record).then(
      (run) => {
        const built = runSummary(run);
        listed.set(record, { size: record.size, mtimeMs: record.mtimeMs, version: record.version, summary: built });
        return built;
      },
      (error: unknown) => placeholderRunSummary(source(record), isoTime(record.mtimeMs), "error", error instanceof Error ? error.message : String(error)),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Past the deadline a run still gets one turn of the event loop: a run built already answers at once.
    const missed = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, deadline - started))));
    const answer = await Promise.race([summary, missed]).finally(() => clearTimeout(timer));
    if (answer !== null) return answer;
    // The sidebar asks again when told: once this run is built it is listed in full.
    void summary.then(() => onIndexed?.());
    return waiting(record, Math.max(Date.now() - started, directory.indexingFor(record) ?? 0));
  };

  const recordOf = (file: string | undefined) => runRecordOf(state, file);

  app.route({ ...routeOptions(VIEWER_ROUTES.runs), handler: async (request) => {
    const all = directory.newestFirst();
    const { page, matched, kept, offset } = pageOfRuns(all, (record) => ({ path: record.path, timeMs: listedTimeMs(record) }), request.query);
    if (directory.store.indexEverything) {
      if (directory.isIndexing()) void directory.indexAll();
    } else {
      // Index what is shown, in the background: the page's runs, not the whole store.
      const wanted = page.slice(0, REMOTE_INDEX_PAGE).filter((record) => directory.awaitsIndex(record));
      if (wanted.length > 0) void directory.indexSome(wanted).then(() => onIndexed?.());
    }
    const runs: RunSummaryView[] = [];
    const deadline = Date.now() + SUMMARY_DEADLINE_MS;
    // One run at a time (two big latest lines parsed at once would double the peak memory), within one deadline for all.
    for (const record of page) runs.push(await summaryOf(record, deadline));
    const store = directory.store;
    const current = health?.() ?? null;
    return {
      root: path.basename(state.displayRoot),
      indexing: directory.isIndexing(),
      runs,
      total: all.length,
      matched,
      // Counted once the page's runs are built: a file read for this answer is known by now.
      not_sessions: { total: all.length - directory.runCount(), matched: kept.filter((record) => directory.notSession(record)).length },
      offset,
      store: {
        kind: store.kind,
        // A folder is named as in `root` (its path stays on this machine); a store by its URL.
        location: store.remote ? state.displayRoot : path.basename(state.displayRoot),
        listing: { pages: directory.listing.pages, objects: directory.listing.objects, done: directory.listing.done, skipped_folders: [...directory.listing.skippedFolders] },
        health: current === null ? null : { ok: current.ok, code: current.code, detail: current.detail, checked_at: current.checkedAt },
      },
    };
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.runSession), handler: async (request) => {
    const record = await recordOf(request.query.file);
    // The run keeps the lists `/api/run` answers; a session cut there has its whole lists built again.
    const lists = await sessionListsOf(state, record, await runOf(state, record), request.query.session);
    if (lists === null) throw notFound(`Unknown session_id: ${request.query.session}`);
    return sessionListsPage(request.query.session, lists, request.query.offset, request.query.limit);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.runSearch), handler: async (request) => {
    const record = await recordOf(request.query.file);
    const run = await runOf(state, record);
    const index = await directory.ensureIndexed(record);
    const rootId = request.query.session ?? run.root_session_id;
    const root = run.sessions.find((session) => session.session_id === rootId);
    if (root === undefined) throw notFound(`Unknown session_id: ${rootId ?? ""}`);
    // The session and every session below it.
    const wanted = new Set([root.session_id]);
    for (const session of run.sessions) if (session.parent_session_id !== null && wanted.has(session.parent_session_id)) wanted.add(session.session_id);
    const sessions: RunSearchSession[] = [];
    for (const session of run.sessions) {
      if (!wanted.has(session.session_id)) continue;
      const snapshot = await directory.readSnapshot(record, session.latest_line);
      // Every turn and snapshot of the session, not only those `/api/run` lists.
      const lists = (await sessionListsOf(state, record, run, session.session_id)) ?? session;
      sessions.push({
        sessionId: session.session_id,
        latestLine: session.latest_line,
        snapshot,
        events: sessionEvents(snapshot),
        turns: lists.turns,
        workspaces: lists.snapshots.map((snapshot) => ({
          lineNumber: snapshot.line_number,
          turn: snapshot.turn,
          label: snapshot.label,
          source: async () => {
            const entry = index.lines.ofLine(snapshot.line_number);
            return entry === undefined ? null : (await state.workspace({ record, index, entry })).source;
          },
        })),
      });
    }
    return searchRun(sessions, request.query.q, { regex: request.query.regex === "1", compileRegex: compileLinearRegex, maxHits: request.query.limit ?? 500 });
  } });
};
