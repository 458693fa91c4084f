/**
 * Comparing any two snapshots (of one session or across files): `/api/diff` (changed
 * files from sizes and CRCs, slice changes), `/api/diff/file` (one file's hunks, computed on
 * demand), `/api/diff/slice` (one slice item by item).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { countChangedLines, diffFileContents, diffSlice, diffSliceSummaries, diffStats, diffWorkspaces, planFileDiff, readFileDiffContents } from "../../shared/viewer/index.js";
import type { LineCounter, LineCounts, SnapshotRefView } from "../../shared/viewer/index.js";
import { badRequest } from "../http/errors.js";
import { gitDiffHunks } from "../library/git-diff.js";
import type { Selection, ViewerState } from "../library/viewer-state.js";
import { sendJsonBytes, sideSelector, workspacePath, type HeavyWork } from "./request-helpers.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface DiffRoutesOptions {
  state: ViewerState;
  heavy: HeavyWork;
  /** Wall-clock budget of one `/api/diff/stat` answer (default: diffStats' 4 s); pairs it leaves out mark the answer truncated. */
  statTimeoutMs?: number;
}

/** Files up to this size (both sides together) are diffed on the event loop: jsdiff stays within milliseconds there. */
const INLINE_DIFF_MAX_BYTES = 64 * 1024;
/** jsdiff's budget before the `git diff --no-index` fallback. */
const JSDIFF_TIMEOUT_MS = 500;
const decoder = new TextDecoder();

/** The session's line before `selection` in the same file (by line number), or null. */
export function previousLineOf(selection: Selection): Selection | null {
  const earlier = selection.index.lines.ofSessionAll(selection.entry.sessionId).filter((entry) => entry.lineNumber < selection.entry.lineNumber);
  const entry = earlier[earlier.length - 1];
  return entry === undefined ? null : { record: selection.record, index: selection.index, entry };
}

function refOf(selection: Selection): SnapshotRefView {
  return { file: selection.record.path, line_number: selection.entry.lineNumber, session_id: selection.entry.sessionId, created_at: selection.entry.createdAt };
}

export const diffRoutes: FastifyPluginAsyncTypebox<DiffRoutesOptions> = async (app, { state, heavy, statTimeoutMs }) => {
  const sides = async (query: Record<string, unknown>): Promise<{ base: Selection; target: Selection }> => {
    const target = await state.resolve(sideSelector(query, "target") ?? {});
    const baseSelector = sideSelector(query, "base");
    const base = baseSelector === null ? previousLineOf(target) : await state.resolve(baseSelector);
    if (base === null) {
      throw badRequest(`Session ${target.entry.sessionId} has no earlier line in ${target.record.path} to compare with: give base_file and base_line`);
    }
    return { base, target };
  };

  const workspaces = async (query: Record<string, unknown> & { renames?: "0" | "1" | undefined; copies?: "0" | "1" | undefined; similarity?: number | undefined }) => {
    const { base, target } = await sides(query);
    const [baseWorkspace, targetWorkspace] = await Promise.all([state.workspace(base), state.workspace(target)]);
    const [baseEntries, targetEntries] = await Promise.all([baseWorkspace.source?.list() ?? [], targetWorkspace.source?.list() ?? []]);
    const files = await diffWorkspaces(
      { base: { source: baseWorkspace.source, entries: baseEntries }, target: { source: targetWorkspace.source, entries: targetEntries } },
      { renames: query.renames !== "0", copies: query.copies === "1", threshold: query.similarity ?? 50 },
    );
    return { base, target, baseWorkspace, targetWorkspace, files };
  };

  app.route({ ...routeOptions(VIEWER_ROUTES.diff), handler: async (request) => {
    const { base, target, files } = await workspaces(request.query);
    // One line at a time: two big lines parsed at once would double the peak memory.
    const baseSnapshot = await state.snapshot(base);
    const targetSnapshot = await state.snapshot(target);
    return { base: refOf(base), target: refOf(target), files, slices: diffSliceSummaries(baseSnapshot, targetSnapshot) };
  } });

  // Big file pairs are line-diffed on the worker thread: eight fully rewritten 3.6 MB files
  // held the event loop up to 2 s on this route, as jsdiff spent its budget on each.
  const countLines: LineCounter = async (before, after) => {
    if (before.byteLength + after.byteLength <= INLINE_DIFF_MAX_BYTES) return countChangedLines(before, after);
    return JSON.parse(decoder.decode(Buffer.concat(await heavy.pool.run({ kind: "line-counts", before, after })))) as LineCounts;
  };

  app.route({ ...routeOptions(VIEWER_ROUTES.diffStat), handler: async (request) => {
    const { baseWorkspace, targetWorkspace, files } = await workspaces(request.query);
    return diffStats(files.changes, baseWorkspace.source, targetWorkspace.source, { count: countLines, ...(statTimeoutMs === undefined ? {} : { timeoutMs: statTimeoutMs }) });
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.fileDiff), handler: async (request, reply) => {
    const path = workspacePath(request.query.path);
    const { base, target } = await sides(request.query);
    const [baseWorkspace, targetWorkspace] = await Promise.all([state.workspace(base), state.workspace(target)]);
    const basePath = request.query.base_path === undefined ? path : workspacePath(request.query.base_path);
    const plan = await planFileDiff(baseWorkspace.source, targetWorkspace.source, path, { basePath });
    if (!plan.needsContent) return plan.view;
    if ((plan.baseEntry?.size ?? 0) + (plan.targetEntry?.size ?? 0) <= INLINE_DIFF_MAX_BYTES) {
      const [baseBytes, targetBytes] = await readFileDiffContents(plan, baseWorkspace.source, targetWorkspace.source);
      return diffFileContents(plan.view, baseBytes, targetBytes, { timeoutMs: JSDIFF_TIMEOUT_MS, fallback: gitDiffHunks });
    }
    // A big diff: on the worker thread, and kept by content (sizes and CRC-32s of both sides),
    // so any two snapshots with these two versions of the file share it.
    const side = (entry: typeof plan.baseEntry) => (entry === null ? "-" : `${entry.size}:${entry.fingerprint}`);
    const key = `diff\n${plan.basePath}\n${path}\n${side(plan.baseEntry)}\n${side(plan.targetEntry)}`;
    const json = await heavy.responses.get(key, async () => {
      const [baseBytes, targetBytes] = await readFileDiffContents(plan, baseWorkspace.source, targetWorkspace.source);
      return heavy.pool.run({ kind: "file-diff", view: plan.view, base: baseBytes, target: targetBytes, timeoutMs: JSDIFF_TIMEOUT_MS });
    });
    return sendJsonBytes(reply, json);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.sliceDiff), handler: async (request) => {
    const { base, target } = await sides(request.query);
    const baseSnapshot = await state.snapshot(base);
    const targetSnapshot = await state.snapshot(target);
    return diffSlice(baseSnapshot, targetSnapshot, request.query.slice_type);
  } });
};
