/**
 * Where each route of the viewer's contract is: its method, its path and how its answer is
 * read, and nothing else. The route table (table.ts) adds each route's schemas to these
 * entries; the web app's HTTP layer holds only these (web/api/routes.ts types them with the
 * table's schemas as types), so its first download carries no schema library and no
 * schema. No value here may come from a schema module: the browser's main chunk imports it.
 */

/** A route's place: what a request to it is made of, before any schema. */
export interface RoutePath {
  readonly method: "GET" | "POST";
  /** Fastify's path syntax: `:name` a path parameter, a final `*` the rest of the path (both in `params`). */
  readonly url: `/api/${string}`;
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
}

export const ROUTE_PATHS = {
  // WINK's viewer API (same names and shapes)
  meta: { method: "GET", url: "/api/meta" },
  entries: { method: "GET", url: "/api/entries" },
  slicePage: { method: "GET", url: "/api/slices/:slice_type", lossless: true },
  raw: { method: "GET", url: "/api/raw", lossless: true },
  snapshots: { method: "GET", url: "/api/snapshots" },
  reload: { method: "POST", url: "/api/reload" },
  select: { method: "POST", url: "/api/select" },
  switch: { method: "POST", url: "/api/switch" },
  // Session files, runs, a session's timeline
  files: { method: "GET", url: "/api/files" },
  runs: { method: "GET", url: "/api/runs" },
  run: { method: "GET", url: "/api/run" },
  runSearch: { method: "GET", url: "/api/run/search" },
  runSession: { method: "GET", url: "/api/run/session" },
  runFailures: { method: "GET", url: "/api/run/failures" },
  // The eval: outcomes, runs and failure groups across the target
  failures: { method: "GET", url: "/api/failures" },
  evalRuns: { method: "GET", url: "/api/failures/runs" },
  failureOccurrences: { method: "GET", url: "/api/failures/occurrences" },
  timeline: { method: "GET", url: "/api/timeline" },
  toolCallDiff: { method: "GET", url: "/api/timeline/tool-call-diff" },
  // A snapshot's workspace
  filesystemMeta: { method: "GET", url: "/api/filesystem/meta" },
  fileTree: { method: "GET", url: "/api/filesystem/tree" },
  browse: { method: "GET", url: "/api/filesystem/browse" },
  fileContent: { method: "GET", url: "/api/filesystem/file" },
  fileContentAt: { method: "GET", url: "/api/filesystem/file/*" },
  download: { method: "GET", url: "/api/filesystem/download" },
  downloadAt: { method: "GET", url: "/api/filesystem/download/*" },
  // Comparing two snapshots, searching one
  diff: { method: "GET", url: "/api/diff" },
  diffStat: { method: "GET", url: "/api/diff/stat" },
  fileDiff: { method: "GET", url: "/api/diff/file" },
  sliceDiff: { method: "GET", url: "/api/diff/slice" },
  search: { method: "GET", url: "/api/search" },
  // Live reload
  events: { method: "GET", url: "/api/events" },
  // WINK debug bundles: WINK's routes (same names and shapes) and ours
  bundleManifest: { method: "GET", url: "/api/manifest", lossless: true },
  bundleConfig: { method: "GET", url: "/api/config", lossless: true },
  bundleMetrics: { method: "GET", url: "/api/metrics", lossless: true },
  bundleError: { method: "GET", url: "/api/error", lossless: true },
  bundleRunContext: { method: "GET", url: "/api/bundle/run-context", lossless: true },
  bundleEval: { method: "GET", url: "/api/bundle/eval", lossless: true },
  bundlePromptOverrides: { method: "GET", url: "/api/bundle/prompt-overrides", lossless: true },
  bundleLogs: { method: "GET", url: "/api/logs", lossless: true, lists: ["level", "logger", "event", "exclude_level", "exclude_logger", "exclude_event"] },
  bundleLogFacets: { method: "GET", url: "/api/logs/facets" },
  bundleTranscript: { method: "GET", url: "/api/transcript", lossless: true, lists: ["source", "entry_type", "exclude_source", "exclude_entry_type"] },
  bundleTranscriptFacets: { method: "GET", url: "/api/transcript/facets" },
  bundleEnvironment: { method: "GET", url: "/api/environment", lossless: true },
  bundleFile: { method: "GET", url: "/api/files/*", lossless: true },
  bundleMembers: { method: "GET", url: "/api/bundle/files" },
  bundleSummary: { method: "GET", url: "/api/bundle", lossless: true },
  bundleRequest: { method: "GET", url: "/api/bundle/request", lossless: true },
  bundleIntegrity: { method: "GET", url: "/api/bundle/integrity" },
  bundles: { method: "GET", url: "/api/bundles" },
  bundleGroups: { method: "GET", url: "/api/bundles/groups", lossless: true },
  bundleCompare: { method: "GET", url: "/api/bundles/compare", lossless: true },
  bundleSearch: { method: "GET", url: "/api/bundles/search", lists: ["scope"] },
} as const satisfies Record<string, RoutePath>;

export type RouteName = keyof typeof ROUTE_PATHS;

/** The path parameters of a Fastify path: `:name` segments and a final `*`. */
function pathParameters(url: string): string[] {
  return url.split("/").flatMap((segment) => (segment.startsWith(":") ? [segment.slice(1)] : segment === "*" ? ["*"] : []));
}

/** What a request's URL is built from: its query and its path parameters, in one object (an entry's `lists` as lists). */
export type RouteValues = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

/** The names of `Entry`'s list parameters (none for most routes). */
export type ListNames<Entry> = Entry extends { readonly lists: readonly (infer Name extends string)[] } ? Name : never;

/** A request as its caller gives it: the wire's `Input` with the parameters named `Lists` as lists of strings. */
export type WithLists<Input, Lists extends string> = [Lists] extends [never] ? Input : { [Key in keyof Input]: Key extends Lists ? readonly string[] | undefined : Input[Key] };

/** WINK's filter syntax for a list: its values joined by commas; none or an empty list, no filter (undefined). */
export function joinList(values: readonly string[] | undefined): string | undefined {
  return values === undefined || values.length === 0 ? undefined : values.join(",");
}

/** A WINK comma list read back: split, trimmed, empty values dropped; nothing left, no filter (undefined). */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return values.length === 0 ? undefined : values;
}

/**
 * A request with `entry`'s list parameters read as the server reads them: a comma list (off
 * the wire) is split, a list (from a caller in the page) goes through the same join and split,
 * so both layers filter on exactly the same values.
 */
export function readLists<Input extends object, Name extends string = never>(entry: { readonly lists?: readonly Name[] }, input: Input): Omit<Input, Name> & { readonly [Key in Name]?: string[] | undefined } {
  const read: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const name of entry.lists ?? []) {
    const value = read[name] as string | readonly string[] | undefined;
    read[name] = splitList(typeof value === "string" || value === undefined ? value : joinList(value));
  }
  return read as Omit<Input, Name> & { readonly [Key in Name]?: string[] | undefined };
}

/**
 * The path and query string of a request to `entry`: path parameters in the path (each
 * segment of `*` encoded on its own, so `/` stays a separator), the rest in the query string;
 * the entry's list parameters as comma lists (`joinList`); undefined values and empty lists are
 * left out. Typed callers pass the table's `RouteRequest` of the route.
 */
export function routeUrl(entry: RoutePath, input: object): string {
  const values = input as RouteValues;
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
  const lists = new Set(entry.lists);
  for (const [key, raw] of Object.entries(values)) {
    const value = lists.has(key) && Array.isArray(raw) ? joinList(raw as readonly string[]) : raw;
    if (value !== undefined && !inPath.has(key)) search.set(key, String(value));
  }
  const query = search.toString();
  return query === "" ? path : `${path}?${query}`;
}
