/**
 * Runs: `/api/runs` (every run of the directory, newest first, with its outcome),
 * `/api/run` (one run: sessions, turns, snapshots, failures) and `/api/run/search` (a search
 * across every snapshot of a session and its children).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import path from "node:path";
import { pageOfRuns, placeholderRunSummary, runSummary, searchRun, sessionEvents } from "../../shared/viewer/index.js";
import type { RunSearchSession, RunSummaryView } from "../../shared/viewer/index.js";
import { notFound } from "../errors.js";
import { compileLinearRegex } from "../library/linear-regex.js";
import type { StoreHealth } from "../library/remote-poller.js";
import { runOf } from "../library/runs.js";
import { listedTimeMs } from "../library/snapshot-directory.js";
import type { SessionFileRecord } from "../library/snapshot-directory.js";
import type { ViewerState } from "../library/viewer-state.js";
import { errorResponses } from "../schemas/common.js";
import { Run, RunList, RunQuery, RunSearchQuery, RunSearchResult, RunsQuery } from "../schemas/runs.js";
import { isoTime } from "./request-helpers.js";

export interface RunRoutesOptions {
  state: ViewerState;
  /** A remote store's live-reload health (`--poll`), or null. */
  health?: () => StoreHealth | null;
  /** Told when files indexed for a page of runs (a remote store's) are ready. */
  onIndexed?: () => void;
}

/** Runs of a remote store indexed in the background for one answer (each costs a whole object): a page of the sidebar. */
const REMOTE_INDEX_PAGE = 100;

export const runRoutes: FastifyPluginAsyncTypebox<RunRoutesOptions> = async (app, { state, health, onIndexed }) => {
  const { directory } = state;
  const source = (record: SessionFileRecord) => ({ kind: record.kind === "bundle" ? ("bundle" as const) : ("session_file" as const), path: record.path, name: record.name });

  const summaryOf = async (record: SessionFileRecord): Promise<RunSummaryView> => {
    if (record.index === null && record.error === null) return placeholderRunSummary(source(record), isoTime(record.mtimeMs), "pending", null);
    try {
      return runSummary(await runOf(state, record));
    } catch (error) {
      return placeholderRunSummary(source(record), isoTime(record.mtimeMs), "error", error instanceof Error ? error.message : String(error));
    }
  };

  /** The run a request names, or the newest run that loads. */
  const recordOf = async (file: string | undefined): Promise<SessionFileRecord> => {
    if (file !== undefined) {
      const record = directory.get(file);
      if (record === undefined) throw notFound(`Unknown session file: ${file}`);
      return record;
    }
    for (const record of directory.newestFirst()) {
      const index = await directory.ensureIndexed(record).catch(() => null);
      if (index !== null && index.entries.length > 0) return record;
    }
    throw notFound("No session file of the directory holds a loadable line");
  };

  app.get("/api/runs", { schema: { querystring: RunsQuery, response: { 200: RunList, ...errorResponses } } }, async (request) => {
    const all = directory.newestFirst();
    const { page, matched, offset } = pageOfRuns(all, (record) => ({ path: record.path, timeMs: listedTimeMs(record) }), request.query);
    if (directory.store.indexEverything) {
      if (directory.isIndexing()) void directory.indexAll();
    } else {
      // Index what is shown, in the background: the page's runs, not the whole store.
      const wanted = page.slice(0, REMOTE_INDEX_PAGE).filter((record) => record.index === null && record.error === null);
      if (wanted.length > 0) void directory.indexSome(wanted).then(() => onIndexed?.());
    }
    const runs: RunSummaryView[] = [];
    for (const record of page) runs.push(await summaryOf(record));
    const store = directory.store;
    const current = health?.() ?? null;
    return {
      root: path.basename(state.displayRoot),
      indexing: directory.isIndexing(),
      runs,
      total: all.length,
      matched,
      offset,
      store: {
        kind: store.kind,
        // A folder is named as in `root` (its path stays on this machine); a store by its URL.
        location: store.remote ? state.displayRoot : path.basename(state.displayRoot),
        listing: { pages: directory.listing.pages, objects: directory.listing.objects, done: directory.listing.done, skipped_folders: [...directory.listing.skippedFolders] },
        health: current === null ? null : { ok: current.ok, code: current.code, detail: current.detail, checked_at: current.checkedAt },
      },
    };
  });

  app.get("/api/run", { schema: { querystring: RunQuery, response: { 200: Run, ...errorResponses } } }, async (request) => {
    return runOf(state, await recordOf(request.query.file));
  });

  app.get("/api/run/search", { schema: { querystring: RunSearchQuery, response: { 200: RunSearchResult, ...errorResponses } } }, async (request) => {
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
      sessions.push({
        sessionId: session.session_id,
        latestLine: session.latest_line,
        snapshot,
        events: sessionEvents(snapshot),
        turns: session.turns,
        workspaces: session.snapshots.map((snapshot) => ({
          lineNumber: snapshot.line_number,
          turn: snapshot.turn,
          label: snapshot.label,
          source: async () => {
            const entry = index.entries.find((candidate) => candidate.lineNumber === snapshot.line_number);
            return entry === undefined ? null : (await state.workspace({ record, index, entry })).source;
          },
        })),
      });
    }
    return searchRun(sessions, request.query.q, { regex: request.query.regex === "1", compileRegex: compileLinearRegex, maxHits: request.query.limit ?? 500 });
  });
};
