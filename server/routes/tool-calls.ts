/**
 * What the timeline shows of the per-tool-call undo store next to a session file: the
 * `changes` the timeline gains (`withToolCallChanges`) and one changed file's diff between its
 * pre-image and its post-state (`/api/timeline/tool-call-diff`).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { timelineChanges, toolCallFileDiff } from "../../shared/viewer/index.js";
import type { SnapshotRefView, TimelineView } from "../../shared/viewer/index.js";
import { notFound } from "../http/errors.js";
import { gitDiffHunks } from "../library/git-diff.js";
import type { UndoStores } from "../library/undo-stores.js";
import type { Selection, ViewerState } from "../library/viewer-state.js";
import { selectorOf, workspacePath } from "./request-helpers.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface ToolCallRoutesOptions {
  state: ViewerState;
  /** Undo stores next to session files; null: none are looked for (a remote store: not read yet). */
  undoStores: UndoStores | null;
}

/** The timeline with `changes` when the selected session has an undo store next to its file. */
export async function withToolCallChanges(undoStores: UndoStores, selection: Selection, timeline: TimelineView): Promise<TimelineView> {
  const store = await undoStores.session(selection.record.absolutePath, selection.entry.sessionId);
  return store === null ? timeline : { ...timeline, changes: timelineChanges(timeline, store.changes) };
}

/** Every line of the selection's session in its file, as snapshot refs. */
function sessionLines(selection: Selection): SnapshotRefView[] {
  return selection.index.lines
    .ofSessionAll(selection.entry.sessionId)
    .map((entry) => ({ file: selection.record.path, line_number: entry.lineNumber, session_id: entry.sessionId, created_at: entry.createdAt }));
}

export const toolCallRoutes: FastifyPluginAsyncTypebox<ToolCallRoutesOptions> = async (app, { state, undoStores }) => {
  app.route({ ...routeOptions(VIEWER_ROUTES.toolCallDiff), handler: async (request) => {
    const path = workspacePath(request.query.path);
    const selection = await state.resolve(selectorOf(request.query));
    const store = undoStores === null ? null : await undoStores.session(selection.record.absolutePath, selection.entry.sessionId);
    if (store === null) throw notFound(`No undo store for session ${selection.entry.sessionId} next to ${selection.record.path}`);
    const workspace = async (ref: SnapshotRefView) => {
      const entry = selection.index.lines.ofLine(ref.line_number);
      return entry === undefined ? null : (await state.workspace({ record: selection.record, index: selection.index, entry })).source;
    };
    return toolCallFileDiff(store.changes, request.query.call_id, path, { loadBody: store.loadBody, snapshots: sessionLines(selection), workspace }, { fallback: gitDiffHunks });
  } });
};
