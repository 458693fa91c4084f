/**
 * WINK debug bundles over HTTP. WINK's bundle viewer routes keep their names and shapes:
 * `/api/manifest`, `/api/logs`, `/api/logs/facets`, `/api/transcript`,
 * `/api/transcript/facets`, `/api/environment`, `/api/config`, `/api/metrics`, `/api/error`
 * (404 when the bundle has none, as WINK answers), `/api/files/{path}` and `/api/bundles`
 * (`/api/meta`, `/api/slices/…`, `/api/reload` and `/api/switch` are the session routes,
 * bundle-aware). WINK's `GET /api/files` (the bundle's member list) collides with our
 * session-file list and lives at `/api/bundle/files`. Ours: `/api/bundle` (the run at a
 * glance), `/api/bundle/request`, `/api/bundle/run-context|eval|prompt-overrides`,
 * `/api/bundle/integrity`, `/api/bundles/groups`, `/api/bundles/compare`,
 * `/api/bundles/search`.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { BUNDLE_MEMBERS, BUNDLE_SEARCH_SCOPES, compareBundles, groupBundles, previousRun, sameRequest, searchBundles } from "../../shared/debug-bundle/index.js";
import type { BundleSearchScope, BundleSummaryView, DebugBundle } from "../../shared/debug-bundle/index.js";
import { badRequest, echoedName, notFound } from "../http/errors.js";
import type { SessionFileRecord } from "../library/snapshot-directory.js";
import { compileLinearRegex } from "../library/linear-regex.js";
import type { ViewerState } from "../library/viewer-state.js";
import {
  BundleCompare,
  BundleFile,
  BundleFileParams,
  BundleGroups,
  BundleIntegrity,
  BundleList,
  BundleMembers,
  BundleQuery,
  BundleRequest,
  BundleSearch,
  BundleSearchQuery,
  BundleSummary,
  CompareQuery,
  Environment,
  LogFacets,
  LogPage,
  LogsQuery,
  RawMember,
  TranscriptFacets,
  TranscriptPage,
  TranscriptQuery,
} from "../schemas/bundles.js";
import { errorResponses } from "../schemas/common.js";
import { isoTime } from "../library/iso-time.js";
import { workspacePath } from "./request-helpers.js";

export interface BundleRoutesOptions {
  state: ViewerState;
}

/** WINK's comma lists: split, trimmed, empty values dropped. */
function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return values.length === 0 ? undefined : values;
}

/** A JSON member, or 404 with `message` when the bundle has none. */
async function memberOr404(bundle: DebugBundle, member: string, message: string): Promise<unknown> {
  const value = await bundle.json(member);
  if (value === null) throw notFound(message);
  return value;
}

export const bundleRoutes: FastifyPluginAsyncTypebox<BundleRoutesOptions> = async (app, { state }) => {
  const bundleOf = async (file: string | undefined) => (await state.bundle({ file })).bundle;
  const bundleRecords = () => state.directory.files().filter((record) => record.kind === "bundle");
  /** Summaries of every bundle that opens (one that does not is left out, its error in `/api/files`). */
  const summaries = async (records: readonly SessionFileRecord[]): Promise<BundleSummaryView[]> => {
    const found: BundleSummaryView[] = [];
    for (const record of records) {
      const bundle = await state.bundle({ file: record.path }).catch(() => null);
      if (bundle !== null) found.push(await bundle.bundle.summary());
    }
    return found;
  };

  const rawRoute = (url: string, member: string, missing: string) =>
    app.get(url, { schema: { querystring: BundleQuery, response: { 200: RawMember, ...errorResponses } } }, async (request) => memberOr404(await bundleOf(request.query.file), member, missing));

  app.get("/api/manifest", { schema: { querystring: BundleQuery, response: { 200: RawMember, ...errorResponses } } }, async (request) => (await bundleOf(request.query.file)).manifest.raw);
  rawRoute("/api/config", BUNDLE_MEMBERS.config, "Config not found in bundle");
  rawRoute("/api/metrics", BUNDLE_MEMBERS.metrics, "Metrics not found in bundle");
  rawRoute("/api/error", BUNDLE_MEMBERS.error, "No error in bundle");
  rawRoute("/api/bundle/run-context", BUNDLE_MEMBERS.runContext, "Run context not found in bundle");
  rawRoute("/api/bundle/eval", BUNDLE_MEMBERS.eval, "Eval not found in bundle");
  rawRoute("/api/bundle/prompt-overrides", BUNDLE_MEMBERS.promptOverrides, "Prompt overrides not found in bundle");

  app.get("/api/logs", { schema: { querystring: LogsQuery, response: { 200: LogPage, ...errorResponses } } }, async (request) => {
    const query = request.query;
    const logs = await (await bundleOf(query.file)).logs();
    const filters = {
      ...(query.offset === undefined ? {} : { offset: query.offset }),
      limit: query.limit ?? null,
      levels: list(query.level),
      excludeLevels: list(query.exclude_level),
      loggers: list(query.logger),
      excludeLoggers: list(query.exclude_logger),
      events: list(query.event),
      excludeEvents: list(query.exclude_event),
      ...(query.search === undefined ? {} : { search: query.search }),
      since: query.since,
      until: query.until,
      at: query.at,
      ...(query.at_line === undefined ? {} : { atLine: query.at_line }),
    };
    if (logs === null) return { entries: [], total: 0, offset: query.offset ?? 0, limit: query.limit ?? null };
    return logs.page(filters);
  });

  app.get("/api/logs/facets", { schema: { querystring: BundleQuery, response: { 200: LogFacets, ...errorResponses } } }, async (request) => {
    const logs = await (await bundleOf(request.query.file)).logs();
    return logs === null ? { loggers: [], events: [], levels: [] } : logs.facets();
  });

  app.get("/api/transcript", { schema: { querystring: TranscriptQuery, response: { 200: TranscriptPage, ...errorResponses } } }, async (request) => {
    const query = request.query;
    const transcript = await (await bundleOf(query.file)).transcript();
    return transcript.page({
      ...(query.offset === undefined ? {} : { offset: query.offset }),
      limit: query.limit ?? null,
      sources: list(query.source),
      excludeSources: list(query.exclude_source),
      entryTypes: list(query.entry_type),
      excludeEntryTypes: list(query.exclude_entry_type),
      ...(query.search === undefined ? {} : { search: query.search }),
      ...(query.at_rowid === undefined ? {} : { atRowid: query.at_rowid }),
    });
  });

  app.get("/api/transcript/facets", { schema: { querystring: BundleQuery, response: { 200: TranscriptFacets, ...errorResponses } } }, async (request) => {
    return (await (await bundleOf(request.query.file)).transcript()).facets();
  });

  app.get("/api/environment", { schema: { querystring: BundleQuery, response: { 200: Environment, ...errorResponses } } }, async (request) => {
    return (await bundleOf(request.query.file)).environment();
  });

  app.get("/api/files/*", { schema: { params: BundleFileParams, querystring: BundleQuery, response: { 200: BundleFile, ...errorResponses } } }, async (request) => {
    const member = workspacePath(request.params["*"]);
    const bundle = await bundleOf(request.query.file);
    if (!bundle.has(member)) throw notFound(`Artifact not found: ${echoedName(member)}`);
    return bundle.fileView(member);
  });

  app.get("/api/bundle/files", { schema: { querystring: BundleQuery, response: { 200: BundleMembers, ...errorResponses } } }, async (request) => (await bundleOf(request.query.file)).members());

  app.get("/api/bundle", { schema: { querystring: BundleQuery, response: { 200: BundleSummary, ...errorResponses } } }, async (request) => (await bundleOf(request.query.file)).summary());

  app.get("/api/bundle/request", { schema: { querystring: BundleQuery, response: { 200: BundleRequest, ...errorResponses } } }, async (request) => {
    const bundle = await bundleOf(request.query.file);
    const [input, output] = await Promise.all([bundle.json(BUNDLE_MEMBERS.requestInput), bundle.json(BUNDLE_MEMBERS.requestOutput)]);
    return { input, output };
  });

  app.get("/api/bundle/integrity", { schema: { querystring: BundleQuery, response: { 200: BundleIntegrity, ...errorResponses } } }, async (request) => {
    return (await bundleOf(request.query.file)).verifyIntegrity();
  });

  app.get("/api/bundles", { schema: { response: { 200: BundleList, ...errorResponses } } }, async () => {
    const current = state.current?.file;
    return state.directory
      .newestFirst()
      .filter((record) => record.kind === "bundle")
      .map((record) => ({ path: record.path, name: record.name, created_at: isoTime(Math.max(record.ctimeMs, record.mtimeMs)), selected: record.path === current }));
  });

  app.get("/api/bundles/groups", { schema: { response: { 200: BundleGroups, ...errorResponses } } }, async () => groupBundles(await summaries(bundleRecords())));

  app.get("/api/bundles/compare", { schema: { querystring: CompareQuery, response: { 200: BundleCompare, ...errorResponses } } }, async (request) => {
    const target = await state.bundle({ file: request.query.target_file });
    // Without a base: the run before the target in its request's group (previous attempt or iteration).
    const baseFile = request.query.base_file ?? previousRun(await summaries(bundleRecords()), target.record.path);
    if (baseFile === null) throw badRequest(`${target.record.path} has no earlier bundle in its request to compare with: give base_file`);
    const base = await state.bundle({ file: baseFile });
    return compareBundles(base.bundle, target.bundle);
  });

  app.get("/api/bundles/search", { schema: { querystring: BundleSearchQuery, response: { 200: BundleSearch, ...errorResponses } } }, async (request) => {
    const query = request.query;
    const scopes = list(query.scope) ?? [...BUNDLE_SEARCH_SCOPES];
    const unknown = scopes.filter((scope) => !BUNDLE_SEARCH_SCOPES.includes(scope as BundleSearchScope));
    if (unknown.length > 0) throw badRequest(`Unknown search scope: ${unknown.join(", ")} (known: ${BUNDLE_SEARCH_SCOPES.join(", ")})`);
    const within = query.in ?? "all";
    let records = bundleRecords();
    if (within !== "all") {
      const selected = await state.bundle({ file: query.file });
      if (within === "bundle") records = [selected.record];
      else {
        const members = sameRequest(await summaries(records), selected.record.path);
        records = records.filter((record) => members.has(record.path));
      }
    }
    const bundles: DebugBundle[] = [];
    for (const record of records) {
      const opened = await state.bundle({ file: record.path }).catch(() => null);
      if (opened !== null) bundles.push(opened.bundle);
    }
    return searchBundles(bundles, query.q, { scopes: scopes as BundleSearchScope[], ...(query.limit === undefined ? {} : { maxHits: query.limit }), regex: query.regex === "1", compileRegex: compileLinearRegex });
  });
};
