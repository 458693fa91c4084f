/**
 * The viewer's HTTP contract, one entry per route: its place (method, path, how its answer is
 * read: paths.ts, spread into each entry) and its request schemas (query, path parameters,
 * body) and the shape of its 200 answer. The server registers its routes from these entries
 * (server/routes/route-options.ts), the web app's `HttpApi` builds its requests from their
 * places and types their answers with their schemas (as types only: web/api/routes.ts), and
 * `LocalApi` answers the same entries in the browser. Adding a route: its place in paths.ts
 * and its entry here (the compiler holds the two to the same names), its computation, its
 * handler, its hook. Not here: the served mode's sign-in and operations routes, which are not
 * the viewer's.
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
} from "../../debug-bundle/schemas.js";
import {
  Browse,
  DiffStat,
  Entries,
  ErrorBody,
  EvalRunPage,
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
import { ROUTE_PATHS as P } from "./paths.js";
import type { ListNames, RouteName, RoutePath, WithLists } from "./paths.js";
import {
  BrowseQuery,
  DiffQuery,
  DownloadQuery,
  FileDiffQuery,
  FileQuery,
  FileWildcardParams,
  EvalRunsQuery,
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

/** One route of the contract: its place (paths.ts) and its schemas. */
export interface RouteEntry extends RoutePath {
  readonly querystring?: TSchema;
  readonly params?: TSchema;
  readonly body?: TSchema;
  /** The 200 answer's JSON; none: the answer is not JSON (a download, an event stream). */
  readonly response?: TSchema;
  /** A stream of server-sent events, by name. */
  readonly events?: Readonly<Record<string, TSchema>>;
}

const bundleMember = <const Path extends RoutePath>(path: Path) => ({ ...path, querystring: BundleQuery, response: RawMember });

export const VIEWER_ROUTES = {
  // WINK's viewer API (same names and shapes)
  meta: { ...P.meta, querystring: SelectorQuery, response: Meta },
  entries: { ...P.entries, querystring: SelectorQuery, response: Entries },
  slicePage: { ...P.slicePage, params: SliceParams, querystring: SliceQuery, response: SlicePage },
  raw: { ...P.raw, querystring: SelectorQuery, response: RawLine },
  snapshots: { ...P.snapshots, response: SnapshotFiles },
  reload: { ...P.reload, response: Meta },
  select: { ...P.select, body: SelectBody, response: Meta },
  switch: { ...P.switch, body: SwitchBody, response: Meta },
  // Session files, runs, a session's timeline
  files: { ...P.files, querystring: FilesQuery, response: FileList },
  runs: { ...P.runs, querystring: RunsQuery, response: RunList },
  run: { ...P.run, querystring: RunQuery, response: Run },
  runSearch: { ...P.runSearch, querystring: RunSearchQuery, response: RunSearchResult },
  runSession: { ...P.runSession, querystring: RunSessionQuery, response: RunSessionPage },
  runFailures: { ...P.runFailures, querystring: RunFailuresQuery, response: RunFailurePage },
  // The eval: outcomes, runs and failure groups across the target
  failures: { ...P.failures, response: EvalSummary },
  evalRuns: { ...P.evalRuns, querystring: EvalRunsQuery, response: EvalRunPage },
  failureOccurrences: { ...P.failureOccurrences, querystring: FailureOccurrencesQuery, response: FailureOccurrences },
  timeline: { ...P.timeline, querystring: TimelineQuery, response: Timeline },
  toolCallDiff: { ...P.toolCallDiff, querystring: ToolCallDiffQuery, response: ToolCallFileDiff },
  // A snapshot's workspace
  filesystemMeta: { ...P.filesystemMeta, querystring: FileWildcardQuery, response: FilesystemMeta },
  fileTree: { ...P.fileTree, querystring: FileWildcardQuery, response: FileTree },
  browse: { ...P.browse, querystring: BrowseQuery, response: Browse },
  fileContent: { ...P.fileContent, querystring: FileQuery, response: FileContent },
  fileContentAt: { ...P.fileContentAt, params: FileWildcardParams, querystring: FileWildcardQuery, response: FileContent },
  download: { ...P.download, querystring: DownloadQuery },
  downloadAt: { ...P.downloadAt, params: FileWildcardParams, querystring: FileWildcardQuery },
  // Comparing two snapshots, searching one
  diff: { ...P.diff, querystring: DiffQuery, response: SnapshotDiff },
  diffStat: { ...P.diffStat, querystring: DiffQuery, response: DiffStat },
  fileDiff: { ...P.fileDiff, querystring: FileDiffQuery, response: FileDiff },
  sliceDiff: { ...P.sliceDiff, querystring: SliceDiffQuery, response: SliceDiff },
  search: { ...P.search, querystring: SearchQuery, response: SearchResult },
  // Live reload
  events: { ...P.events, events: LIVE_EVENTS },
  // WINK debug bundles: WINK's routes (same names and shapes) and ours
  bundleManifest: bundleMember(P.bundleManifest),
  bundleConfig: bundleMember(P.bundleConfig),
  bundleMetrics: bundleMember(P.bundleMetrics),
  bundleError: bundleMember(P.bundleError),
  bundleRunContext: bundleMember(P.bundleRunContext),
  bundleEval: bundleMember(P.bundleEval),
  bundlePromptOverrides: bundleMember(P.bundlePromptOverrides),
  bundleLogs: { ...P.bundleLogs, querystring: LogsQuery, response: LogPage },
  bundleLogFacets: { ...P.bundleLogFacets, querystring: BundleQuery, response: LogFacets },
  bundleTranscript: { ...P.bundleTranscript, querystring: TranscriptQuery, response: TranscriptPage },
  bundleTranscriptFacets: { ...P.bundleTranscriptFacets, querystring: BundleQuery, response: TranscriptFacets },
  bundleEnvironment: { ...P.bundleEnvironment, querystring: BundleQuery, response: Environment },
  bundleFile: { ...P.bundleFile, params: BundleFileParams, querystring: BundleQuery, response: BundleFile },
  bundleMembers: { ...P.bundleMembers, querystring: BundleQuery, response: BundleMembers },
  bundleSummary: { ...P.bundleSummary, querystring: BundleQuery, response: BundleSummary },
  bundleRequest: { ...P.bundleRequest, querystring: BundleQuery, response: BundleRequest },
  bundleIntegrity: { ...P.bundleIntegrity, querystring: BundleQuery, response: BundleIntegrity },
  bundles: { ...P.bundles, response: BundleList },
  bundleGroups: { ...P.bundleGroups, response: BundleGroups },
  bundleCompare: { ...P.bundleCompare, querystring: CompareQuery, response: BundleCompare },
  bundleSearch: { ...P.bundleSearch, querystring: BundleSearchQuery, response: BundleSearch },
} as const satisfies { readonly [Name in RouteName]: RouteEntry & (typeof P)[Name] };

export type ViewerRoutes = typeof VIEWER_ROUTES;
export type ViewerRouteName = keyof ViewerRoutes;

type StaticOf<Entry, Part extends string> = Entry extends { readonly [Key in Part]: infer Schema extends TSchema } ? Static<Schema> : Record<never, never>;

/** What a request to `Entry` takes: its query and its path parameters, in one object. */
export type RouteInput<Entry extends RouteEntry> = StaticOf<Entry, "querystring"> & StaticOf<Entry, "params">;
/** A request to `Entry` as a caller gives it: `RouteInput` with the entry's `lists` as lists of strings (`routeUrl` writes them as comma lists). */
export type RouteRequest<Entry extends RouteEntry> = WithLists<RouteInput<Entry>, ListNames<Entry>>;
/** The JSON body of `Entry`'s 200 answer. */
export type RouteResponse<Entry extends RouteEntry> = Entry extends { readonly response: infer Schema extends TSchema } ? Static<Schema> : never;
