/**
 * The viewer's HTTP contract, one entry per route: its method, path, request schemas (query,
 * path parameters, body) and the shape of its 200 answer. The server registers its routes
 * from these entries (server/routes/route-options.ts), the web app's `HttpApi` builds its
 * requests from them and types their answers with them, and `LocalApi` answers the same
 * entries in the browser. Adding a route: one entry here, its computation, its handler, its
 * hook. Not here: the served mode's sign-in and operations routes, which are not the viewer's.
 */
import { Type } from "typebox";
import type { Static, TSchema } from "typebox";
import {
  BundleCompare,
  BundleFile,
  BundleGroups,
  BundleIntegrity,
  BundleList,
  BundleMembers,
  BundleMeta,
  BundleRequest,
  BundleSearch,
  BundleSummary,
  Environment,
  LogFacets,
  LogPage,
  RawMember,
  TranscriptFacets,
  TranscriptPage,
} from "../../debug-bundle/index.js";
import {
  Browse,
  DiffStat,
  Entries,
  ErrorBody,
  EvalSummary,
  FailureOccurrences,
  FileContent,
  FileDiff,
  FileList,
  FileTree,
  FilesystemMeta,
  Run,
  RunList,
  RunSearchResult,
  RunFailurePage,
  RunSessionPage,
  SearchResult,
  SliceDiff,
  SlicePage,
  SnapshotDiff,
  SnapshotFiles,
  SnapshotMeta,
  Timeline,
  ToolCallFileDiff,
} from "../schemas/index.js";
import { BundleFileParams, BundleQuery, BundleSearchQuery, CompareQuery, LogsQuery, TranscriptQuery } from "./bundle-requests.js";
import { LIVE_EVENTS } from "./events.js";
import {
  BrowseQuery,
  DiffQuery,
  DownloadQuery,
  FileDiffQuery,
  FileQuery,
  FileWildcardParams,
  FailureOccurrencesQuery,
  FileWildcardQuery,
  FilesQuery,
  RunFailuresQuery,
  RunQuery,
  RunSearchQuery,
  RunSessionQuery,
  RunsQuery,
  SearchQuery,
  SelectBody,
  SelectorQuery,
  SliceDiffQuery,
  SliceParams,
  SliceQuery,
  SwitchBody,
  TimelineQuery,
  ToolCallDiffQuery,
} from "./requests.js";

/** Error responses every route may give. */
export const errorResponses = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 415: ErrorBody, 422: ErrorBody, 500: ErrorBody } as const;

/** `/api/meta`, `POST /api/reload|select|switch`: a session file's snapshot meta, or a bundle's meta. */
export const Meta = Type.Union([SnapshotMeta, BundleMeta]);

/** `/api/raw`: the line as written (big integers exact, NaN/Infinity as `{"__float__": …}`). */
export const RawLine = Type.Record(Type.String(), Type.Unknown());

/** One route of the contract. */
export interface RouteEntry {
  readonly method: "GET" | "POST";
  /** Fastify's path syntax: `:name` a path parameter, a final `*` the rest of the path (both in `params`). */
  readonly url: `/api/${string}`;
  readonly querystring?: TSchema;
  readonly params?: TSchema;
  readonly body?: TSchema;
  /** The 200 answer's JSON; none: the answer is not JSON (a download, an event stream). */
  readonly response?: TSchema;
  /**
   * The answer carries agent data (slice items, bundle members, log context): the web app
   * reads it with the lossless parser, so integers beyond 2^53 stay exact. Other answers
   * hold counts, sizes and strings and skip the extra pass.
   */
  readonly lossless?: true;
  /** A stream of server-sent events, by name. */
  readonly events?: Readonly<Record<string, TSchema>>;
}

const get = <const Entry extends Omit<RouteEntry, "method">>(entry: Entry) => ({ method: "GET" as const, ...entry });
const post = <const Entry extends Omit<RouteEntry, "method">>(entry: Entry) => ({ method: "POST" as const, ...entry });
const bundleMember = <const Url extends `/api/${string}`>(url: Url) => get({ url, querystring: BundleQuery, response: RawMember, lossless: true });

export const VIEWER_ROUTES = {
  // WINK's viewer API (same names and shapes)
  meta: get({ url: "/api/meta", querystring: SelectorQuery, response: Meta }),
  entries: get({ url: "/api/entries", querystring: SelectorQuery, response: Entries }),
  slicePage: get({ url: "/api/slices/:slice_type", params: SliceParams, querystring: SliceQuery, response: SlicePage, lossless: true }),
  raw: get({ url: "/api/raw", querystring: SelectorQuery, response: RawLine, lossless: true }),
  snapshots: get({ url: "/api/snapshots", response: SnapshotFiles }),
  reload: post({ url: "/api/reload", response: Meta }),
  select: post({ url: "/api/select", body: SelectBody, response: Meta }),
  switch: post({ url: "/api/switch", body: SwitchBody, response: Meta }),
  // Session files, runs, a session's timeline
  files: get({ url: "/api/files", querystring: FilesQuery, response: FileList }),
  runs: get({ url: "/api/runs", querystring: RunsQuery, response: RunList }),
  run: get({ url: "/api/run", querystring: RunQuery, response: Run }),
  runSearch: get({ url: "/api/run/search", querystring: RunSearchQuery, response: RunSearchResult }),
  runSession: get({ url: "/api/run/session", querystring: RunSessionQuery, response: RunSessionPage }),
  runFailures: get({ url: "/api/run/failures", querystring: RunFailuresQuery, response: RunFailurePage }),
  // The eval: outcomes, runs and failure groups across the target
  failures: get({ url: "/api/failures", response: EvalSummary }),
  failureOccurrences: get({ url: "/api/failures/occurrences", querystring: FailureOccurrencesQuery, response: FailureOccurrences }),
  timeline: get({ url: "/api/timeline", querystring: TimelineQuery, response: Timeline }),
  toolCallDiff: get({ url: "/api/timeline/tool-call-diff", querystring: ToolCallDiffQuery, response: ToolCallFileDiff }),
  // A snapshot's workspace
  filesystemMeta: get({ url: "/api/filesystem/meta", querystring: FileWildcardQuery, response: FilesystemMeta }),
  fileTree: get({ url: "/api/filesystem/tree", querystring: FileWildcardQuery, response: FileTree }),
  browse: get({ url: "/api/filesystem/browse", querystring: BrowseQuery, response: Browse }),
  fileContent: get({ url: "/api/filesystem/file", querystring: FileQuery, response: FileContent }),
  fileContentAt: get({ url: "/api/filesystem/file/*", params: FileWildcardParams, querystring: FileWildcardQuery, response: FileContent }),
  download: get({ url: "/api/filesystem/download", querystring: DownloadQuery }),
  downloadAt: get({ url: "/api/filesystem/download/*", params: FileWildcardParams, querystring: FileWildcardQuery }),
  // Comparing two snapshots, searching one
  diff: get({ url: "/api/diff", querystring: DiffQuery, response: SnapshotDiff }),
  diffStat: get({ url: "/api/diff/stat", querystring: DiffQuery, response: DiffStat }),
  fileDiff: get({ url: "/api/diff/file", querystring: FileDiffQuery, response: FileDiff }),
  sliceDiff: get({ url: "/api/diff/slice", querystring: SliceDiffQuery, response: SliceDiff }),
  search: get({ url: "/api/search", querystring: SearchQuery, response: SearchResult }),
  // Live reload
  events: get({ url: "/api/events", events: LIVE_EVENTS }),
  // WINK debug bundles: WINK's routes (same names and shapes) and ours
  bundleManifest: bundleMember("/api/manifest"),
  bundleConfig: bundleMember("/api/config"),
  bundleMetrics: bundleMember("/api/metrics"),
  bundleError: bundleMember("/api/error"),
  bundleRunContext: bundleMember("/api/bundle/run-context"),
  bundleEval: bundleMember("/api/bundle/eval"),
  bundlePromptOverrides: bundleMember("/api/bundle/prompt-overrides"),
  bundleLogs: get({ url: "/api/logs", querystring: LogsQuery, response: LogPage, lossless: true }),
  bundleLogFacets: get({ url: "/api/logs/facets", querystring: BundleQuery, response: LogFacets }),
  bundleTranscript: get({ url: "/api/transcript", querystring: TranscriptQuery, response: TranscriptPage, lossless: true }),
  bundleTranscriptFacets: get({ url: "/api/transcript/facets", querystring: BundleQuery, response: TranscriptFacets }),
  bundleEnvironment: get({ url: "/api/environment", querystring: BundleQuery, response: Environment, lossless: true }),
  bundleFile: get({ url: "/api/files/*", params: BundleFileParams, querystring: BundleQuery, response: BundleFile, lossless: true }),
  bundleMembers: get({ url: "/api/bundle/files", querystring: BundleQuery, response: BundleMembers }),
  bundleSummary: get({ url: "/api/bundle", querystring: BundleQuery, response: BundleSummary, lossless: true }),
  bundleRequest: get({ url: "/api/bundle/request", querystring: BundleQuery, response: BundleRequest, lossless: true }),
  bundleIntegrity: get({ url: "/api/bundle/integrity", querystring: BundleQuery, response: BundleIntegrity }),
  bundles: get({ url: "/api/bundles", response: BundleList }),
  bundleGroups: get({ url: "/api/bundles/groups", response: BundleGroups, lossless: true }),
  bundleCompare: get({ url: "/api/bundles/compare", querystring: CompareQuery, response: BundleCompare, lossless: true }),
  bundleSearch: get({ url: "/api/bundles/search", querystring: BundleSearchQuery, response: BundleSearch }),
} as const satisfies Record<string, RouteEntry>;

export type ViewerRoutes = typeof VIEWER_ROUTES;
export type ViewerRouteName = keyof ViewerRoutes;

type StaticOf<Entry, Part extends string> = Entry extends { readonly [Key in Part]: infer Schema extends TSchema } ? Static<Schema> : Record<never, never>;

/** What a request to `Entry` takes: its query and its path parameters, in one object. */
export type RouteInput<Entry extends RouteEntry> = StaticOf<Entry, "querystring"> & StaticOf<Entry, "params">;
/** The JSON body of `Entry`'s 200 answer. */
export type RouteResponse<Entry extends RouteEntry> = Entry extends { readonly response: infer Schema extends TSchema } ? Static<Schema> : never;

/** The path parameters of a Fastify path: `:name` segments and a final `*`. */
function pathParameters(url: string): string[] {
  return url.split("/").flatMap((segment) => (segment.startsWith(":") ? [segment.slice(1)] : segment === "*" ? ["*"] : []));
}

/**
 * The path and query string of a request to `entry`: path parameters in the path (each
 * segment of `*` encoded on its own, so `/` stays a separator), the rest in the query string;
 * undefined values are left out.
 */
export function routeUrl<Entry extends RouteEntry>(entry: Entry, input: RouteInput<Entry>): string {
  const values = input as Readonly<Record<string, string | number | boolean | undefined>>;
  const inPath = new Set(pathParameters(entry.url));
  const path = entry.url
    .split("/")
    .map((segment) => {
      const name = segment.startsWith(":") ? segment.slice(1) : segment === "*" ? "*" : null;
      if (name === null) return segment;
      const value = values[name];
      if (value === undefined) throw new Error(`${entry.url}: the path parameter ${name} is missing`);
      return name === "*" ? String(value).split("/").map(encodeURIComponent).join("/") : encodeURIComponent(String(value));
    })
    .join("/");
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && !inPath.has(key)) search.set(key, String(value));
  const query = search.toString();
  return query === "" ? path : `${path}?${query}`;
}
