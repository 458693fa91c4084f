/**
 * The query options that are more than a route's answer by its request (`routeQuery` in
 * `route-query.ts` is every other): a list joined from pages, an answer polled, an answer
 * that also fills another key, a 404 read as "none". Keys from `keys.route`, so they sit
 * where the generic factory would put them.
 */
import { infiniteQueryOptions, queryOptions, skipToken } from "@tanstack/react-query";
import type { QueryClient } from "@tanstack/react-query";
import type { Api, EvalFilter, RouteAnswer, RunFilter, SnapshotMetaResponse, SnapshotRef } from "../api/api.js";
import { ApiError, at, between, flag } from "../api/api.js";
import type { BundleMemberKind } from "../api/bundle-api.js";
import { BUNDLE_MEMBER_ROUTES } from "../api/bundle-api.js";
import { isMissingMember } from "../../shared/viewer/routes/browser.js";
import { keys } from "../api/keys.js";
import { fetchSignedInUser } from "../api/signed-in-user.js";
import { routeQuery } from "./route-query.js";

/** The signed-in user (served mode), asked once a page: a session outlives the page. */
export const signedInUserQuery = () => queryOptions({ queryKey: keys.signedInUser(), queryFn: fetchSignedInUser, staleTime: Infinity, retry: false });

/** Slice items are fetched in pages of this many (and virtualised on screen). */
export const SLICE_PAGE_SIZE = 50;

/** `/api/meta` of a session file's line: a bundle's own meta is `meta` with `file` alone. */
const sessionMeta = async (meta: Promise<RouteAnswer<"meta">>) => (await meta) as SnapshotMetaResponse;

export const filesQuery = (api: Api) => queryOptions({ queryKey: keys.files(), queryFn: () => api.files() });

/** Runs are listed in pages of this many (a bucket may hold thousands). */
export const RUN_PAGE_SIZE = 100;

/** The run list page by page, for one filter; the next page starts where the last one ended. */
export const runPagesQuery = (api: Api, filter: RunFilter) => {
  const request = { limit: RUN_PAGE_SIZE, q: filter.q || undefined, since: filter.since || undefined, until: filter.until || undefined };
  return infiniteQueryOptions({
    queryKey: [...keys.route("runs", request), "pages"],
    queryFn: ({ pageParam }) => api.ask.runs({ ...request, offset: pageParam }),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.offset + last.runs.length < last.matched ? last.offset + last.runs.length : undefined),
  });
};

/** How often the eval asks again while the server's run index is still reading runs. */
export const INDEXING_POLL_MS = 1000;

/** The eval; asked again every {@link INDEXING_POLL_MS} until the answer covers every run (`index.complete`). */
export const failuresQuery = (api: Api) => queryOptions({ ...routeQuery(api, "failures", {}), refetchInterval: (query) => (query.state.data?.index.complete === false ? INDEXING_POLL_MS : false) });

/** The eval's run list is asked in pages of this many (and virtualised on screen). */
export const EVAL_RUN_PAGE_SIZE = 200;

/** The request of the eval's run list's page from `offset`, for one filter (empty fields left out). */
export const evalRunsRequest = (filter: EvalFilter, offset: number) => ({
  group: filter.group,
  outcome: filter.outcome,
  tag: filter.tag || undefined,
  since: filter.since || undefined,
  until: filter.until || undefined,
  q: filter.q || undefined,
  offset,
  limit: EVAL_RUN_PAGE_SIZE,
});

/** The newest run (where the app lands without a link): `run` without `file`. */
export const newestRunQuery = (api: Api, client: QueryClient) =>
  queryOptions({
    queryKey: keys.route("run", {}),
    queryFn: async () => {
      const run = await api.ask.run({});
      // It is that file's run too: the views that ask for it by name need not fetch it again.
      client.setQueryData(keys.route("run", { file: run.source.path }), run);
      return run;
    },
    staleTime: Infinity,
  });

/** The server's current snapshot: `meta` without `file`. */
export const currentQuery = (api: Api) => queryOptions({ queryKey: keys.route("meta", {}), queryFn: () => sessionMeta(api.ask.meta({})), staleTime: Infinity });

export const metaQuery = (api: Api, ref: SnapshotRef | null) => queryOptions({ queryKey: ref === null ? keys.waiting("meta") : keys.route("meta", at(ref)), queryFn: ref === null ? skipToken : () => sessionMeta(api.ask.meta(at(ref))) });

/** The request of one page of a slice's items. */
export const slicePage = (ref: SnapshotRef, sliceType: string, page: number, pageSize = SLICE_PAGE_SIZE) => ({ slice_type: sliceType, ...at(ref), offset: page * pageSize, limit: pageSize });

/** `/api/filesystem/browse` of `ref`, compared with `base` (a snapshot, the session's previous line, or nothing). */
export const browseRequest = (ref: SnapshotRef, base: SnapshotRef | "previous" | "none") => ({ ...at(ref), ...(typeof base === "string" ? { compare: base } : { base_file: base.file, base_line: base.line }) });

/** `/api/diff` of two snapshots (`copies`: detect copies too). */
export const diffRequest = (base: SnapshotRef, target: SnapshotRef, copies = false) => ({ ...between(base, target), copies: flag(copies) });

// WINK debug bundles (the bundle routes, asked by name). `file` is the bundle as the run list names it.

/** Log records and transcript entries are fetched in pages of this many (and virtualised on screen). */
export const BUNDLE_PAGE_SIZE = 100;

/** The route's 404 for a member the bundle lacks as `null`; any other failure (a bundle that is not there) stays one. */
function nullWhenMissing(error: unknown): null {
  if (error instanceof ApiError && error.status === 404 && isMissingMember(error.detail)) return null;
  throw error;
}

/** A JSON member as written; `null` when the bundle has none. */
export const bundleMemberQuery = (api: Api, file: string | null, kind: BundleMemberKind) =>
  queryOptions({
    queryKey: file === null ? keys.waiting(BUNDLE_MEMBER_ROUTES[kind]) : keys.route(BUNDLE_MEMBER_ROUTES[kind], { file }),
    queryFn: file === null ? skipToken : () => api.ask[BUNDLE_MEMBER_ROUTES[kind]]({ file }).catch(nullWhenMissing),
  });
