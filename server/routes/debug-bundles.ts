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
import { isoTime } from "../library/iso-time.js";
import { workspacePath } from "./request-helpers.js";
import { MISSING_MEMBER, VIEWER_ROUTES, logQueryOf, searchScopesOf, transcriptQueryOf } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface BundleRoutesOptions {
  state: ViewerState;
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

  const rawRoute = (name: keyof typeof MISSING_MEMBER, member: string) =>
    app.route({ ...routeOptions(VIEWER_ROUTES[name] as Omit<typeof VIEWER_ROUTES.bundleConfig, "url"> & { readonly url: `/api/${string}` }), handler: async (request) => memberOr404(await bundleOf(request.query.file), member, MISSING_MEMBER[name]) });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleManifest), handler: async (request) => (await bundleOf(request.query.file)).manifest.raw });
  rawRoute("bundleConfig", BUNDLE_MEMBERS.config);
  rawRoute("bundleMetrics", BUNDLE_MEMBERS.metrics);
  rawRoute("bundleError", BUNDLE_MEMBERS.error);
  rawRoute("bundleRunContext", BUNDLE_MEMBERS.runContext);
  rawRoute("bundleEval", BUNDLE_MEMBERS.eval);
  rawRoute("bundlePromptOverrides", BUNDLE_MEMBERS.promptOverrides);

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleLogs), handler: async (request) => {
    const query = request.query;
    const logs = await (await bundleOf(query.file)).logs();
    if (logs === null) return { entries: [], total: 0, offset: query.offset ?? 0, limit: query.limit ?? null };
    return logs.page(logQueryOf(query));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleLogFacets), handler: async (request) => {
    const logs = await (await bundleOf(request.query.file)).logs();
    return logs === null ? { loggers: [], events: [], levels: [] } : logs.facets();
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleTranscript), handler: async (request) => {
    const query = request.query;
    const transcript = await (await bundleOf(query.file)).transcript();
    return transcript.page(transcriptQueryOf(query));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleTranscriptFacets), handler: async (request) => {
    return (await (await bundleOf(request.query.file)).transcript()).facets();
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleEnvironment), handler: async (request) => {
    return (await bundleOf(request.query.file)).environment();
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleFile), handler: async (request) => {
    const member = workspacePath(request.params["*"]);
    const bundle = await bundleOf(request.query.file);
    if (!bundle.has(member)) throw notFound(`Artifact not found: ${echoedName(member)}`);
    return bundle.fileView(member);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleMembers), handler: async (request) => (await bundleOf(request.query.file)).members() });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleSummary), handler: async (request) => (await bundleOf(request.query.file)).summary() });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleRequest), handler: async (request) => {
    const bundle = await bundleOf(request.query.file);
    const [input, output] = await Promise.all([bundle.json(BUNDLE_MEMBERS.requestInput), bundle.json(BUNDLE_MEMBERS.requestOutput)]);
    return { input, output };
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleIntegrity), handler: async (request) => {
    return (await bundleOf(request.query.file)).verifyIntegrity();
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundles), handler: async () => {
    const current = state.current?.file;
    return state.directory
      .newestFirst()
      .filter((record) => record.kind === "bundle")
      .map((record) => ({ path: record.path, name: record.name, created_at: isoTime(Math.max(record.ctimeMs, record.mtimeMs)), selected: record.path === current }));
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleGroups), handler: async () => groupBundles(await summaries(bundleRecords())) });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleCompare), handler: async (request) => {
    const target = await state.bundle({ file: request.query.target_file });
    // Without a base: the run before the target in its request's group (previous attempt or iteration).
    const baseFile = request.query.base_file ?? previousRun(await summaries(bundleRecords()), target.record.path);
    if (baseFile === null) throw badRequest(`${target.record.path} has no earlier bundle in its request to compare with: give base_file`);
    const base = await state.bundle({ file: baseFile });
    return compareBundles(base.bundle, target.bundle);
  } });

  app.route({ ...routeOptions(VIEWER_ROUTES.bundleSearch), handler: async (request) => {
    const query = request.query;
    const scopes = searchScopesOf(query) ?? [...BUNDLE_SEARCH_SCOPES];
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
  } });
};
