/**
 * Session files with their session trees (`/api/files`) and a session's timeline
 * (`/api/timeline`).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import path from "node:path";
import type { SessionLineError } from "../../shared/session/index.js";
import { EventLoopSlices } from "../../shared/session/index.js";
import { DEFAULT_LISTED_ERRORS, buildTimeline, sessionFileView } from "../../shared/viewer/index.js";
import type { SessionFilePage, SessionFileView } from "../../shared/viewer/index.js";
import { echoedName, notFound } from "../http/errors.js";
import type { SessionFileRecord } from "../library/snapshot-directory.js";
import type { UndoStores } from "../library/undo-stores.js";
import type { ViewerState } from "../library/viewer-state.js";
import { indexedLine } from "../library/viewer-state.js";
import { isoTime } from "../library/iso-time.js";
import { selectorOf } from "./request-helpers.js";
import { withToolCallChanges } from "./tool-calls.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface SessionRoutesOptions {
  state: ViewerState;
  /** Per-tool-call undo stores next to session files (the timeline's `changes`); none: never looked for. */
  undoStores?: UndoStores;
}

/** Files listed by one `/api/files` unless `limit` says otherwise. */
const DEFAULT_LISTED_FILES = 500;

/** Why a file is `pending` though nothing indexes it: the memory budget let its index go. */
const DROPPED = "Its index was let go to keep within the memory budget (--memory); asking for this file (?file=) reads it again";

function fileView(record: SessionFileRecord, page: SessionFilePage, errors: { offset: number; errors: readonly SessionLineError[] } | null, dropped: boolean): Promise<SessionFileView> {
  const index = record.index;
  return sessionFileView({
    path: record.path,
    name: record.name,
    sizeBytes: record.size,
    modifiedAt: isoTime(record.mtimeMs),
    status: index !== null ? "ready" : record.error !== null ? "error" : "pending",
    error: dropped ? DROPPED : record.error,
    lineCount: index?.lineCount ?? 0,
    // By column: a file of 1.5 M lines built an entry object a line for its tree (17.6 s, every request waiting).
    lines: index?.lines ?? [],
    errors: errors?.errors ?? index?.errors ?? [],
    errorCount: index?.errorCount ?? 0,
    errorsOffset: errors?.offset ?? 0,
  }, page, new EventLoopSlices());
}

export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRoutesOptions> = async (app, { state, undoStores }) => {
  const { directory } = state;

  app.route({ ...routeOptions(VIEWER_ROUTES.files), handler: async (request) => {
    let records = directory.files();
    if (request.query.file !== undefined) {
      const record = directory.get(request.query.file);
      if (record === undefined) throw notFound(`Unknown session file: ${echoedName(request.query.file)}`);
      records = [record];
    }
    if (request.query.wait === "1" || request.query.file !== undefined) {
      for (const record of records) await directory.ensureIndexed(record).catch(() => undefined);
    } else if (directory.isIndexing()) {
      void directory.indexAll();
    }
    const { query } = request;
    const offset = query.offset ?? 0;
    const listed = records.slice(offset, offset + (query.limit ?? DEFAULT_LISTED_FILES));
    const errorsOffset = query.errors_offset ?? 0;
    const errorsLimit = query.errors_limit ?? DEFAULT_LISTED_ERRORS;
    const page: SessionFilePage = { errorsLimit, ...(query.sessions_offset === undefined ? {} : { sessionsOffset: query.sessions_offset }), ...(query.sessions_limit === undefined ? {} : { sessionsLimit: query.sessions_limit }) };
    const files: SessionFileView[] = [];
    for (const record of listed) {
      // Errors past the ones an index keeps are read again from the file, for this page only.
      const errors = errorsOffset === 0 || record.index === null ? null : { offset: errorsOffset, errors: (await directory.lineErrors(record, errorsOffset, errorsLimit)).errors };
      files.push(await fileView(record, page, errors, directory.dropped(record)));
    }
    return { root: path.basename(state.displayRoot), indexing: directory.isIndexing(), files, total: records.length, offset };
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.timeline), handler: async (request) => {
    const selection = await state.resolve(selectorOf(request.query));
    const snapshot = await state.snapshot(selection);
    const timeline = buildTimeline({ file: selection.record.path, snapshot, lines: selection.index.lines.ofSessionAll(snapshot.sessionId).map(indexedLine), lineErrors: selection.index.errors });
    return undoStores === undefined ? timeline : withToolCallChanges(undoStores, selection, timeline);
  } });
};
