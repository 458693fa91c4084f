/**
 * WINK's viewer routes, same names and shapes: `/api/meta`, `/api/entries`,
 * `/api/slices/:slice_type`, `/api/raw`, `POST /api/reload`, `/api/snapshots`,
 * `POST /api/select`, `POST /api/switch`. Every GET also takes the explicit selector.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { snapshotEntries, snapshotMeta, slicePage } from "../../shared/viewer/index.js";
import { badRequest, notFound } from "../errors.js";
import type { Selection, ViewerState } from "../library/viewer-state.js";
import { indexedLine } from "../library/viewer-state.js";
import { errorResponses } from "../schemas/common.js";
import { Entries, RawLine, SelectBody, SelectorQuery, SliceParams, SlicePage, SliceQuery, SnapshotFiles, SnapshotMeta, SwitchBody } from "../schemas/legacy.js";
import { isoTime, selectorOf } from "./request-helpers.js";

export interface LegacyRoutesOptions {
  state: ViewerState;
  /** Told when the current snapshot changes (for live-reload listeners). */
  onSelect?: (selection: Selection) => void;
}

const metaOf = (selection: Selection) => snapshotMeta(selection.record.path, indexedLine(selection.entry));

/** An optional body field that must be a string when present. */
function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw badRequest(`${name} must be a string`);
  return value;
}

/** An optional body field that must be an integer when present (booleans are not integers). */
function optionalInteger(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) throw badRequest(`${name} must be an integer`);
  return value;
}

export const legacyRoutes: FastifyPluginAsyncTypebox<LegacyRoutesOptions> = async (app, { state, onSelect }) => {
  app.get("/api/meta", { schema: { querystring: SelectorQuery, response: { 200: SnapshotMeta, ...errorResponses } } }, async (request) => {
    return metaOf(await state.resolve(selectorOf(request.query)));
  });

  app.get("/api/entries", { schema: { querystring: SelectorQuery, response: { 200: Entries, ...errorResponses } } }, async (request) => {
    const selection = await state.resolve(selectorOf(request.query));
    return snapshotEntries(selection.record.path, selection.index.entries.map(indexedLine), selection.entry.lineNumber);
  });

  app.get("/api/slices/:slice_type", { schema: { params: SliceParams, querystring: SliceQuery, response: { 200: SlicePage, ...errorResponses } } }, async (request) => {
    const selection = await state.resolve(selectorOf(request.query));
    const snapshot = await state.snapshot(selection);
    const slice = snapshot.slices.find((candidate) => candidate.sliceType === request.params.slice_type);
    if (slice === undefined) throw notFound(`Unknown slice type: ${request.params.slice_type}`);
    return slicePage(slice, { offset: request.query.offset ?? 0, limit: request.query.limit ?? null, markdown: request.query.markdown !== "0" });
  });

  app.get("/api/raw", { schema: { querystring: SelectorQuery, response: { 200: RawLine, ...errorResponses } } }, async (request) => {
    const selection = await state.resolve(selectorOf(request.query));
    return (await state.snapshot(selection)).raw;
  });

  app.get("/api/snapshots", { schema: { response: { 200: SnapshotFiles, ...errorResponses } } }, async () => {
    return state.directory.newestFirst().map((record) => ({ path: record.path, name: record.name, created_at: isoTime(Math.max(record.ctimeMs, record.mtimeMs)) }));
  });

  app.post("/api/reload", { schema: { response: { 200: SnapshotMeta, ...errorResponses } } }, async () => {
    const selection = await state.reload();
    onSelect?.(selection);
    return metaOf(selection);
  });

  app.post("/api/select", { schema: { body: SelectBody, response: { 200: SnapshotMeta, ...errorResponses } } }, async (request) => {
    const body = request.body ?? {};
    const sessionId = optionalString(body.session_id, "session_id");
    const lineNumber = optionalInteger(body.line_number, "line_number");
    if (sessionId === undefined && lineNumber === undefined) throw badRequest("session_id or line_number is required");
    const selection = await state.select(sessionId, lineNumber);
    onSelect?.(selection);
    return metaOf(selection);
  });

  app.post("/api/switch", { schema: { body: SwitchBody, response: { 200: SnapshotMeta, ...errorResponses } } }, async (request) => {
    const body = request.body ?? {};
    if (typeof body.path !== "string" || body.path === "") throw badRequest("path is required");
    const sessionId = optionalString(body.session_id, "session_id");
    const lineNumber = optionalInteger(body.line_number, "line_number");
    const selection = await state.switchTo(body.path, sessionId, lineNumber);
    onSelect?.(selection);
    return metaOf(selection);
  });
};

