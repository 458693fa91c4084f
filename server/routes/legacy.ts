/**
 * WINK's viewer routes, same names and shapes: `/api/meta`, `/api/entries`,
 * `/api/slices/:slice_type`, `/api/raw`, `POST /api/reload`, `/api/snapshots`,
 * `POST /api/select`, `POST /api/switch`. Every GET also takes the explicit selector.
 *
 * When the file is a WINK debug bundle, `/api/meta` (and what reload and switch return) is
 * WINK's bundle meta merged with the snapshot meta of the bundle's session line.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { IndexedSnapshotLine } from "../../shared/viewer/index.js";
import { lazySlicePage, snapshotEntries, snapshotEntriesJson, slicePage, slicePageLength } from "../../shared/viewer/index.js";
import { badRequest, notFound } from "../http/errors.js";
import { metaFor } from "../library/snapshot-meta.js";
import type { Selection, ViewerState } from "../library/viewer-state.js";
import { indexedLine } from "../library/viewer-state.js";
import { isoTime } from "../library/iso-time.js";
import { STREAM_LINE_BYTES, selectorOf, sendJsonBytes, sendJsonChunks, sendStreamedJson, type HeavyWork } from "./request-helpers.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

/** Pages of more items than the web app asks for at once (50) are streamed from big lines. */
const STREAM_MIN_ITEMS = 64;
/** Files of at least this many lines have their `/api/entries` written as it is sent (~60 bytes of JSON a line). */
const STREAM_MIN_ENTRIES = 10_000;

export interface LegacyRoutesOptions {
  state: ViewerState;
  heavy: HeavyWork;
  /** Told when the current snapshot changes (for live-reload listeners); line 0: a bundle without a session. */
  onSelect?: (current: { file: string; line: number }) => void;
}

/**
 * The page after this one, relative to the request's own URL (only its query: right behind a
 * proxy's base path too), `offset` and `limit` set and the rest kept.
 */
function nextPageUrl(url: string, offset: number, limit: number): string {
  const query = new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : "");
  query.set("offset", String(offset));
  query.set("limit", String(limit));
  return `?${query.toString()}`;
}

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

export const legacyRoutes: FastifyPluginAsyncTypebox<LegacyRoutesOptions> = async (app, { state, onSelect, heavy }) => {
  app.route({ ...routeOptions(VIEWER_ROUTES.meta), handler: async (request) => {
    return metaFor(state, selectorOf(request.query));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.entries), handler: async (request, reply) => {
    const selection = await state.resolve(selectorOf(request.query));
    const { lines } = selection.index;
    const { offset, limit } = request.query;
    // Every line unless a page is asked (WINK's clients ask none); a page says what it left out.
    const start = Math.min(offset ?? 0, lines.length);
    const end = limit === undefined ? lines.length : Math.min(lines.length, start + limit);
    reply.header("x-total-count", String(lines.length));
    if (end < lines.length && end > start) reply.header("link", `<${nextPageUrl(request.url, end, end - start)}>; rel="next"`);
    if (end - start >= STREAM_MIN_ENTRIES) {
      // Written from the index's columns in event-loop slices: other requests answer meanwhile.
      return sendJsonChunks(reply, snapshotEntriesJson(selection.record.path, lines, selection.entry.lineNumber, undefined, { start, end }));
    }
    const page: IndexedSnapshotLine[] = [];
    for (let at = start; at < end; at++) page.push(indexedLine(lines.summaryAt(at)));
    return snapshotEntries(selection.record.path, page, selection.entry.lineNumber);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.slicePage), handler: async (request, reply) => {
    const selection = await state.resolve(selectorOf(request.query));
    const snapshot = await state.snapshot(selection);
    const slice = snapshot.slices.find((candidate) => candidate.sliceType === request.params.slice_type);
    if (slice === undefined) throw notFound(`Unknown slice type: ${request.params.slice_type}`);
    const options = { offset: request.query.offset ?? 0, limit: request.query.limit ?? null, markdown: request.query.markdown !== "0" };
    if (selection.entry.byteLength >= STREAM_LINE_BYTES && slicePageLength(slice, options) >= STREAM_MIN_ITEMS) {
      // page → items → item: each item is enriched, written and dropped in turn.
      return sendStreamedJson(reply, lazySlicePage(slice, options), { streamDepth: 2 });
    }
    return slicePage(slice, options);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.raw), handler: async (request, reply) => {
    const selection = await state.resolve(selectorOf(request.query));
    const { record, index, entry } = selection;
    if (entry.byteLength < STREAM_LINE_BYTES) return (await state.snapshot(selection)).raw;
    // A big line already parsed (its slices were viewed; a bundle's lines come parsed from its
    // reader), or being parsed (the landing page's run, rendered at start, parses the newest
    // line): written item by item (line → slices → slice → items → item), in bounded slices.
    // Transcoding it on the worker meanwhile would hold its bytes twice beside the parse's
    // text and tree (first use peaked at 4–4.7× the line).
    const parsed = record.kind === "bundle" ? await state.snapshot(selection) : state.directory.cachedSnapshot(record, entry.lineNumber) ?? (await state.directory.parseUnderWay(record, entry.lineNumber)?.catch(() => undefined));
    if (parsed !== undefined) return sendStreamedJson(reply, parsed.raw, { streamDepth: 4 });
    // Not parsed yet: written from its bytes on the worker thread (a 120 MiB line held the
    // event loop ~2 s) and sent as the worker writes it, kept in the memory budget for the
    // file as this index read it when it fits there.
    const key = `raw\n${record.path}\n${entry.lineNumber}\n${index.dev}:${index.ino}:${index.sizeBytes}:${index.mtimeMs}`;
    const json = await heavy.responses.stream(key, entry.byteLength, (push) =>
      state.directory.transcodingLine(record, entry.lineNumber, async () => {
        const bytes = await state.directory.readLine(record, entry.lineNumber);
        const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
        await heavy.pool.stream({ kind: "raw-line", bytes, lineNumber: entry.lineNumber }, owned ? [bytes.buffer as ArrayBuffer] : [], push);
      }),
    );
    state.directory.holdParses(record, entry.lineNumber, new Promise((resolve) => reply.raw.once("close", resolve)));
    return sendJsonBytes(reply, json);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.snapshots), handler: async () => {
    return state.directory.newestFirst().map((record) => ({ path: record.path, name: record.name, created_at: isoTime(Math.max(record.ctimeMs, record.mtimeMs)) }));
  } });

  const selected = async (selection: Selection | null) => {
    const current = state.current;
    if (current !== null) onSelect?.(current);
    return metaFor(state, { file: selection?.record.path ?? current?.file }, selection);
  };

  app.route({ ...routeOptions(VIEWER_ROUTES.reload), handler: async () => {
    return selected(await state.reload());
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.select), handler: async (request) => {
    const body = request.body ?? {};
    const sessionId = optionalString(body.session_id, "session_id");
    const lineNumber = optionalInteger(body.line_number, "line_number");
    if (sessionId === undefined && lineNumber === undefined) throw badRequest("session_id or line_number is required");
    return selected(await state.select(sessionId, lineNumber));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.switch), handler: async (request) => {
    const body = request.body ?? {};
    if (typeof body.path !== "string" || body.path === "") throw badRequest("path is required");
    const sessionId = optionalString(body.session_id, "session_id");
    const lineNumber = optionalInteger(body.line_number, "line_number");
    return selected(await state.switchTo(body.path, sessionId, lineNumber));
  } });
};

