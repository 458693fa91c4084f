/**
 * The viewer's HTTP contract, one entry per route: its method and path, how its answer is
 * read (`lossless`), its comma-list parameters (`lists`), its request schemas (query, path
 * parameters, body), the schema of its 200 answer and the events of a stream, each schema
 * by its name in `route-schemas.ts`. Everything else is derived from these entries: the
 * server registers its routes from them with their schemas (`VIEWER_ROUTES` in contract.ts,
 * server/routes/route-options.ts), the web app builds its requests from them (`routeUrl`) and
 * types their answers with the named schemas (as types only: web/api/routes.ts), `LocalApi`
 * answers the same entries in the browser and the web's query keys start with the route's
 * name. Naming the schemas keeps this module free of schema values, so the browser's main
 * chunk holds it without the schema library. Adding a route: its schema, its entry here, its
 * computation (computed.ts: the server's handler and `LocalApi`'s answer come from it), its
 * hook, its paragraph in docs/api.md (docs/architecture.md, "Adding a route"). Not here: the
 * served mode's sign-in and operations routes, which are not the viewer's.
 */
import type { TSchema } from "typebox";
import type * as RouteSchemas from "./route-schemas.js";
import type { RoutePlace } from "./route-url.js";

type Schemas = typeof RouteSchemas;
/** A TypeBox schema (its `TSchema` type is `{}`: every TypeBox type carries its kind). */
type Schema = TSchema & { readonly "~kind": string };
/** The names `route-schemas.ts` exports a schema under. */
export type SchemaName = { [Name in keyof Schemas]: Schemas[Name] extends Schema ? Name : never }[keyof Schemas];
/** The names it exports a set of events under (event name → the schema of its `data`). */
export type EventSetName = { [Name in keyof Schemas]: Schemas[Name] extends Schema ? never : Schemas[Name] extends Readonly<Record<string, Schema>> ? Name : never }[keyof Schemas];

/** One route of the contract, its schemas by name. */
export interface RouteSpec extends RoutePlace {
  readonly method: "GET" | "POST";
  /**
   * The answer carries agent data (slice items, bundle members, log context): the web app
   * reads it with the lossless parser, so integers beyond 2^53 stay exact. Other answers
   * hold counts, sizes and strings and skip the extra pass.
   */
  readonly lossless?: true;
  /**
   * Query parameters the caller gives as lists of strings: sent as WINK's comma lists
   * (`joinList`), read back by the handler with `readLists`, so the list syntax is written
   * here once for the web's requests and the server's handlers.
   */
  readonly lists?: readonly string[];
  readonly querystring?: SchemaName;
  readonly params?: SchemaName;
  readonly body?: SchemaName;
  /** The 200 answer's JSON; none: the answer is not JSON (a download, an event stream). */
  readonly response?: SchemaName;
  /** A stream of server-sent events, by name. */
  readonly events?: EventSetName;
}

/** A WINK bundle member's route: the member's JSON as written, read losslessly. */
const member = <const Url extends `/api/${string}`>(url: Url) => ({ method: "GET", url, lossless: true, querystring: "BundleQuery", response: "RawMember" }) as const;

export const ROUTE_TABLE = {
  // WINK's viewer API (same names and shapes)
  meta: { method: "GET", url: "/api/meta", querystring: "SelectorQuery", response: "Meta" },
  entries: { method: "GET", url: "/api/entries", querystring: "EntriesQuery", response: "Entries" },
  slicePage: { method: "GET", url: "/api/slices/:slice_type", lossless: true, params: "SliceParams", querystring: "SliceQuery", response: "SlicePage" },
  raw: { method: "GET", url: "/api/raw", lossless: true, querystring: "SelectorQuery", response: "RawLine" },
  snapshots: { method: "GET", url: "/api/snapshots", response: "SnapshotFiles" },
  reload: { method: "POST", url: "/api/reload", response: "Meta" },
  select: { method: "POST", url: "/api/select", body: "SelectBody", response: "Meta" },
  switch: { method: "POST", url: "/api/switch", body: "SwitchBody", response: "Meta" },
  // Session files, runs, a session's timeline
  files: { method: "GET", url: "/api/files", querystring: "FilesQuery", response: "FileList" },
  runs: { method: "GET", url: "/api/runs", querystring: "RunsQuery", response: "RunList" },
  run: { method: "GET", url: "/api/run", querystring: "RunQuery", response: "Run" },
  runSearch: { method: "GET", url: "/api/run/search", querystring: "RunSearchQuery", response: "RunSearchResult" },
  runSession: { method: "GET", url: "/api/run/session", querystring: "RunSessionQuery", response: "RunSessionPage" },
  runFailures: { method: "GET", url: "/api/run/failures", querystring: "RunFailuresQuery", response: "RunFailurePage" },
  // The eval: outcomes, runs and failure groups across the target
  failures: { method: "GET", url: "/api/failures", response: "EvalSummary" },
  evalRuns: { method: "GET", url: "/api/failures/runs", querystring: "EvalRunsQuery", response: "EvalRunPage" },
  failureOccurrences: { method: "GET", url: "/api/failures/occurrences", querystring: "FailureOccurrencesQuery", response: "FailureOccurrences" },
  timeline: { method: "GET", url: "/api/timeline", querystring: "TimelineQuery", response: "Timeline" },
  toolCallDiff: { method: "GET", url: "/api/timeline/tool-call-diff", querystring: "ToolCallDiffQuery", response: "ToolCallFileDiff" },
  // A snapshot's workspace
  filesystemMeta: { method: "GET", url: "/api/filesystem/meta", querystring: "FileWildcardQuery", response: "FilesystemMeta" },
  fileTree: { method: "GET", url: "/api/filesystem/tree", querystring: "FileWildcardQuery", response: "FileTree" },
  browse: { method: "GET", url: "/api/filesystem/browse", querystring: "BrowseQuery", response: "Browse" },
  fileContent: { method: "GET", url: "/api/filesystem/file", querystring: "FileQuery", response: "FileContent" },
  fileContentAt: { method: "GET", url: "/api/filesystem/file/*", params: "FileWildcardParams", querystring: "FileWildcardQuery", response: "FileContent" },
  download: { method: "GET", url: "/api/filesystem/download", querystring: "DownloadQuery" },
  downloadAt: { method: "GET", url: "/api/filesystem/download/*", params: "FileWildcardParams", querystring: "FileWildcardQuery" },
  // Comparing two snapshots, searching one
  diff: { method: "GET", url: "/api/diff", querystring: "DiffQuery", response: "SnapshotDiff" },
  diffStat: { method: "GET", url: "/api/diff/stat", querystring: "DiffQuery", response: "DiffStat" },
  fileDiff: { method: "GET", url: "/api/diff/file", querystring: "FileDiffQuery", response: "FileDiff" },
  sliceDiff: { method: "GET", url: "/api/diff/slice", querystring: "SliceDiffQuery", response: "SliceDiff" },
  search: { method: "GET", url: "/api/search", querystring: "SearchQuery", response: "SearchResult" },
  // Live reload
  events: { method: "GET", url: "/api/events", events: "LIVE_EVENTS" },
  // WINK debug bundles: WINK's routes (same names and shapes) and ours
  bundleManifest: member("/api/manifest"),
  bundleConfig: member("/api/config"),
  bundleMetrics: member("/api/metrics"),
  bundleError: member("/api/error"),
  bundleRunContext: member("/api/bundle/run-context"),
  bundleEval: member("/api/bundle/eval"),
  bundlePromptOverrides: member("/api/bundle/prompt-overrides"),
  bundleLogs: { method: "GET", url: "/api/logs", lossless: true, lists: ["level", "logger", "event", "exclude_level", "exclude_logger", "exclude_event"], querystring: "LogsQuery", response: "LogPage" },
  bundleLogFacets: { method: "GET", url: "/api/logs/facets", querystring: "BundleQuery", response: "LogFacets" },
  bundleTranscript: { method: "GET", url: "/api/transcript", lossless: true, lists: ["source", "entry_type", "exclude_source", "exclude_entry_type"], querystring: "TranscriptQuery", response: "TranscriptPage" },
  bundleTranscriptFacets: { method: "GET", url: "/api/transcript/facets", querystring: "BundleQuery", response: "TranscriptFacets" },
  bundleEnvironment: { method: "GET", url: "/api/environment", lossless: true, querystring: "BundleQuery", response: "Environment" },
  bundleFile: { method: "GET", url: "/api/files/*", lossless: true, params: "BundleFileParams", querystring: "BundleQuery", response: "BundleFile" },
  bundleMembers: { method: "GET", url: "/api/bundle/files", querystring: "BundleQuery", response: "BundleMembers" },
  bundleSummary: { method: "GET", url: "/api/bundle", lossless: true, querystring: "BundleQuery", response: "BundleSummary" },
  bundleRequest: { method: "GET", url: "/api/bundle/request", lossless: true, querystring: "BundleQuery", response: "BundleRequest" },
  bundleIntegrity: { method: "GET", url: "/api/bundle/integrity", querystring: "BundleQuery", response: "BundleIntegrity" },
  bundles: { method: "GET", url: "/api/bundles", response: "BundleList" },
  bundleGroups: { method: "GET", url: "/api/bundles/groups", lossless: true, response: "BundleGroups" },
  bundleCompare: { method: "GET", url: "/api/bundles/compare", lossless: true, querystring: "CompareQuery", response: "BundleCompare" },
  bundleSearch: { method: "GET", url: "/api/bundles/search", lists: ["scope"], querystring: "BundleSearchQuery", response: "BundleSearch" },
} as const satisfies Record<string, RouteSpec>;

export type RouteTable = typeof ROUTE_TABLE;
export type RouteName = keyof RouteTable;
