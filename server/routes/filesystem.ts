/**
 * A snapshot's workspace: `/api/filesystem/meta`, `/tree` (the seed's flat list),
 * `/browse` (nested, with change badges), `/file` (content as JSON data) and `/download`
 * (bytes as an attachment that no browser renders as a page of this origin).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { Readable } from "node:stream";
import { ArchiveError } from "../../shared/errors.js";
import { MAX_VIEW_BYTES, buildFileTree, diffFileLists, fileContent, flatFileTreeJson } from "../../shared/viewer/index.js";
import type { FileIndexEntry, FileSource } from "../../shared/viewer/index.js";
import { toStrictJson } from "../../shared/session/index.js";
import type { MemoryBudget } from "../library/weighted-cache.js";
import { WeightedCache } from "../library/weighted-cache.js";
import { notFound } from "../http/errors.js";
import type { Selection, ViewerState } from "../library/viewer-state.js";
import { filesystemMeta } from "../library/workspace-source.js";
import { DATA_CSP } from "../http/response-headers.js";
import { previousLineOf } from "./diffs.js";
import { selectorOf, sendJsonBytes, sideSelector, workspacePath } from "./request-helpers.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface FilesystemRoutesOptions {
  state: ViewerState;
  /** The server's memory budget: rendered file answers are cached in it. */
  memory: MemoryBudget;
}

/** The largest file answer cached. */
const MAX_CACHED_RESPONSE_CHARS = 512 * 1024;
/** A response is cached when its file is asked for again among this many requests (see WeightedCache). */
const SECOND_USE_KEYS = 4096;

/** Largest file the download route sends. */
const MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024;

export const filesystemRoutes: FastifyPluginAsyncTypebox<FilesystemRoutesOptions> = async (app, { state, memory }) => {
  const sourceOf = async (selection: Selection) => (await state.workspace(selection)).source;

  // Rendered file responses, so a file viewed again costs a lookup (bounded by bytes; the
  // key includes the source object, which is new whenever an archive is reopened).
  const responses = new WeightedCache<string, string>(memory, undefined, { secondUseOf: SECOND_USE_KEYS });
  const sourceIds = new WeakMap<FileSource, number>();
  let nextSourceId = 0;

  const sendFile = async (selection: Selection, rawPath: string, offset: number | undefined, limit: number | undefined, reply: FastifyReply) => {
    const path = workspacePath(rawPath);
    const source = await sourceOf(selection);
    if (source === null) throw notFound(`No filesystem for line ${selection.entry.lineNumber} of ${selection.record.path}`);
    let id = sourceIds.get(source);
    if (id === undefined) sourceIds.set(source, (id = nextSourceId++));
    const key = `${id}\n${offset ?? 0}\n${limit ?? ""}\n${path}`;
    let body = responses.get(key);
    if (body === undefined) {
      let bytes: Uint8Array;
      try {
        // The response cache below keeps the rendered file; caching its bytes too would hold it twice.
        bytes = await source.read(path, MAX_VIEW_BYTES, { transient: true });
      } catch (error) {
        if (error instanceof ArchiveError && error.code === "E_ARCHIVE_LIMIT") {
          throw new ArchiveError("E_ARCHIVE_LIMIT", `${path} is larger than ${MAX_VIEW_BYTES} bytes: use /api/filesystem/download`, error.data);
        }
        throw error;
      }
      body = toStrictJson(fileContent(path, bytes, { offset: offset ?? 0, limit: limit ?? null }));
      if (body.length <= MAX_CACHED_RESPONSE_CHARS) responses.set(key, body, body.length);
    }
    return sendJsonBytes(reply, body);
  };

  app.route({ ...routeOptions(VIEWER_ROUTES.filesystemMeta), handler: async (request) => {
    return filesystemMeta(await state.workspace(await state.resolve(selectorOf(request.query))));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.fileTree), handler: async (request, reply) => {
    const source = await sourceOf(await state.resolve(selectorOf(request.query)));
    return sendJsonBytes(reply, source === null ? "[]" : flatFileTreeJson(await source.list()));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.browse), handler: async (request) => {
    const selection = await state.resolve(selectorOf(request.query));
    const workspace = await state.workspace(selection);
    const entries: readonly FileIndexEntry[] = workspace.source === null ? [] : await workspace.source.list();
    const explicitBase = sideSelector(request.query, "base");
    const baseSelection =
      explicitBase !== null ? await state.resolve(explicitBase) : request.query.compare === "none" ? null : previousLineOf(selection);
    if (baseSelection === null) {
      return { source: workspace.source?.kind ?? null, archive: workspace.archive, base: null, root: buildFileTree(entries) };
    }
    const baseWorkspace = await state.workspace(baseSelection);
    const baseEntries = baseWorkspace.source === null ? [] : await baseWorkspace.source.list();
    const diff = diffFileLists({ kind: baseWorkspace.source?.kind ?? null, entries: baseEntries }, { kind: workspace.source?.kind ?? null, entries });
    const deletedSizes = new Map(baseEntries.map((entry) => [entry.path, entry.size]));
    return {
      source: workspace.source?.kind ?? null,
      archive: workspace.archive,
      base: { file: baseSelection.record.path, line_number: baseSelection.entry.lineNumber },
      root: buildFileTree(entries, diff.diff, deletedSizes),
    };
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.fileContent), handler: async (request, reply) => {
    const selection = await state.resolve(selectorOf(request.query));
    return sendFile(selection, request.query.path, request.query.offset, request.query.limit, reply);
  } });

  // The archive reader's older form: the path in the URL.
  app.route({ ...routeOptions(VIEWER_ROUTES.fileContentAt), handler: async (request, reply) => {
    const selection = await state.resolve(selectorOf(request.query));
    return sendFile(selection, request.params["*"], request.query.offset, request.query.limit, reply);
  } });

  const download = async (selection: Selection, rawPath: string, reply: FastifyReply) => {
    const path = workspacePath(rawPath);
    const source = await sourceOf(selection);
    if (source === null) throw notFound(`No filesystem for line ${selection.entry.lineNumber} of ${selection.record.path}`);
    const name = path.slice(path.lastIndexOf("/") + 1);
    const asciiName = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
    reply
      .header("content-type", "application/octet-stream")
      .header("content-disposition", `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(name)}`)
      .header("content-security-policy", DATA_CSP)
      .header("x-content-type-options", "nosniff");
    if (source.stream === undefined) {
      const bytes = await source.read(path, MAX_DOWNLOAD_BYTES);
      return reply.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
    // Streamed: memory stays at a few chunks whatever the size and however slow the client.
    // Every refusal (limits, ratio, headers) comes before the first byte; the content's size
    // and CRC-32 are checked before its last chunk, so a response that completes is correct
    // (a failure aborts the connection short of content-length).
    const { size, chunks } = await source.stream(path, MAX_DOWNLOAD_BYTES);
    return reply.header("content-length", size).send(Readable.from(chunks, { objectMode: false }));
  };

  app.route({ ...routeOptions(VIEWER_ROUTES.download), handler: async (request, reply) => {
    return download(await state.resolve(selectorOf(request.query)), request.query.path, reply);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.downloadAt), handler: async (request, reply) => {
    return download(await state.resolve(selectorOf(request.query)), request.params["*"], reply);
  } });
};
