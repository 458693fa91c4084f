/**
 * One `queryOptions` factory per resource: the key and the fetcher travel together, so
 * hooks, prefetches and invalidations agree (see `api/keys.ts`).
 */
import { infiniteQueryOptions, queryOptions, skipToken } from "@tanstack/react-query";
import type { QueryClient } from "@tanstack/react-query";
import type { Api, EvalFilter, RouteAnswer, RunFilter, SearchScope, SnapshotMetaResponse, SnapshotRef } from "../api/api.js";
import { ApiError, at, between, flag } from "../api/api.js";
import type { BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "../api/bundle-api.js";
import { BUNDLE_MEMBER_ROUTES } from "../api/bundle-api.js";
import { isMissingMember } from "../../shared/viewer/routes/browser.js";
import { keys } from "../api/keys.js";
import { fetchSignedInUser } from "../api/signed-in-user.js";

/** The signed-in user (served mode), asked once a page: a session outlives the page. */
export const signedInUserQuery = () => queryOptions({ queryKey: keys.signedInUser(), queryFn: fetchSignedInUser, staleTime: Infinity, retry: false });

/** Slice items are fetched in pages of this many (and virtualised on screen). */
export const SLICE_PAGE_SIZE = 50;

/** `/api/meta` of a session file's line: a bundle's own meta is `meta` with `file` alone. */
const sessionMeta = async (meta: Promise<RouteAnswer<"meta">>) => (await meta) as SnapshotMetaResponse;

export const filesQuery = (api: Api) => queryOptions({ queryKey: keys.files(), queryFn: () => api.files() });

export const runsQuery = (api: Api) => queryOptions({ queryKey: keys.runList(), queryFn: () => api.ask.runs({}) });

/** Runs are listed in pages of this many (a bucket may hold thousands). */
export const RUN_PAGE_SIZE = 100;

/** The run list page by page, for one filter; the next page starts where the last one ended. */
export const runPagesQuery = (api: Api, filter: RunFilter) =>
  infiniteQueryOptions({
    queryKey: keys.runPages(filter),
    queryFn: ({ pageParam }) => api.ask.runs({ offset: pageParam, limit: RUN_PAGE_SIZE, q: filter.q || undefined, since: filter.since || undefined, until: filter.until || undefined }),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.offset + last.runs.length < last.matched ? last.offset + last.runs.length : undefined),
  });

/** How often the eval asks again while the server's run index is still reading runs. */
export const INDEXING_POLL_MS = 1000;

/** The eval; asked again every {@link INDEXING_POLL_MS} until the answer covers every run (`index.complete`). */
export const failuresQuery = (api: Api) =>
  queryOptions({ queryKey: keys.failures(), queryFn: () => api.ask.failures({}), refetchInterval: (query) => (query.state.data?.index.complete === false ? INDEXING_POLL_MS : false) });

/** The eval's run list is asked in pages of this many (and virtualised on screen). */
export const EVAL_RUN_PAGE_SIZE = 200;

/** The page of the eval's run list from `offset`, for one filter (empty fields left out of the request). */
export const evalRunPageQuery = (api: Api, filter: EvalFilter, offset: number) =>
  queryOptions({
    queryKey: keys.evalRunPage(filter, offset),
    queryFn: () =>
      api.ask.evalRuns({
        group: filter.group,
        outcome: filter.outcome,
        tag: filter.tag || undefined,
        since: filter.since || undefined,
        until: filter.until || undefined,
        q: filter.q || undefined,
        offset,
        limit: EVAL_RUN_PAGE_SIZE,
      }),
  });

/** `null`: no group opened (the query waits, `skipToken`). */
export const failureOccurrencesQuery = (api: Api, signature: string | null) =>
  queryOptions({ queryKey: signature === null ? keys.waiting("failure-occurrences") : keys.failureOccurrences(signature), queryFn: signature === null ? skipToken : () => api.ask.failureOccurrences({ signature }) });

/** `null`: no run named yet (the query waits, `skipToken`). */
export const runQuery = (api: Api, file: string | null) => queryOptions({ queryKey: file === null ? keys.waiting("run") : keys.run(file), queryFn: file === null ? skipToken : () => api.ask.run({ file }) });

/** A stretch of a session's turns and snapshots that the run left out; `null`: none asked for (the query waits). */
export const runSessionQuery = (api: Api, file: string, session: string, range: { offset: number; limit: number } | null) =>
  queryOptions({
    queryKey: [...keys.run(file), "session", session, range?.offset ?? null, range?.limit ?? null] as const,
    queryFn: range === null ? skipToken : () => api.ask.runSession({ file, session, offset: range.offset, limit: range.limit }),
  });

/** A stretch of the run's failures that `/api/run` left out; `null`: none asked for (the query waits). */
export const runFailuresQuery = (api: Api, file: string, range: { offset: number; limit: number } | null) =>
  queryOptions({
    queryKey: [...keys.run(file), "failures", range?.offset ?? null, range?.limit ?? null] as const,
    queryFn: range === null ? skipToken : () => api.ask.runFailures({ file, offset: range.offset, limit: range.limit }),
  });

/** The newest run (where the app lands without a link). */
export const newestRunQuery = (api: Api, client: QueryClient) =>
  queryOptions({
    queryKey: keys.newestRun(),
    queryFn: async () => {
      const run = await api.ask.run({});
      // It is that file's run too: the views that ask for it by name need not fetch it again.
      client.setQueryData(keys.run(run.source.path), run);
      return run;
    },
    staleTime: Infinity,
  });

export const runSearchQuery = (api: Api, file: string | null, session: string | null, query: string, regex: boolean, limit = 500) =>
  queryOptions({
    queryKey: file === null ? keys.waiting("run-search") : keys.runSearch(file, session, query, regex, limit),
    queryFn: file === null || query.trim() === "" ? skipToken : () => api.ask.runSearch({ file, session: session ?? undefined, q: query, regex: flag(regex), limit }),
  });

export const diffStatQuery = (api: Api, base: SnapshotRef | null, target: SnapshotRef | null, copies = false) =>
  queryOptions({
    queryKey: base === null || target === null ? keys.waiting("diff-stat") : copies ? [...keys.diffStat(base, target), "copies"] : keys.diffStat(base, target),
    queryFn: base === null || target === null ? skipToken : () => api.ask.diffStat({ ...between(base, target), copies: flag(copies) }),
  });

export const currentQuery = (api: Api) => queryOptions({ queryKey: keys.current(), queryFn: () => sessionMeta(api.ask.meta({})), staleTime: Infinity });

export const metaQuery = (api: Api, ref: SnapshotRef | null) => queryOptions({ queryKey: ref === null ? keys.waiting("meta") : keys.meta(ref), queryFn: ref === null ? skipToken : () => sessionMeta(api.ask.meta(at(ref))) });

export const timelineQuery = (api: Api, ref: SnapshotRef | null) => queryOptions({ queryKey: ref === null ? keys.waiting("timeline") : keys.timeline(ref), queryFn: ref === null ? skipToken : () => api.ask.timeline(at(ref)) });

export const toolCallDiffQuery = (api: Api, ref: SnapshotRef | null, callId: string | null, path: string | null) =>
  queryOptions({
    queryKey: ref === null || callId === null || path === null ? keys.waiting("tool-call-diff") : keys.toolCallDiff(ref, callId, path),
    queryFn: ref === null || callId === null || path === null ? skipToken : () => api.ask.toolCallDiff({ ...at(ref), call_id: callId, path }),
  });

export const slicePageQuery = (api: Api, ref: SnapshotRef, sliceType: string, page: number, pageSize = SLICE_PAGE_SIZE) =>
  queryOptions({
    queryKey: keys.slicePage(ref, sliceType, page, pageSize),
    queryFn: () => api.ask.slicePage({ slice_type: sliceType, ...at(ref), offset: page * pageSize, limit: pageSize }),
  });

export const filesystemMetaQuery = (api: Api, ref: SnapshotRef | null) =>
  queryOptions({ queryKey: ref === null ? keys.waiting("filesystem-meta") : keys.filesystemMeta(ref), queryFn: ref === null ? skipToken : () => api.ask.filesystemMeta(at(ref)) });

export const browseQuery = (api: Api, ref: SnapshotRef | null, base: SnapshotRef | "previous" | "none") =>
  queryOptions({
    queryKey: ref === null ? keys.waiting("browse") : keys.browse(ref, typeof base === "string" ? base : `${base.file}:${base.line}`),
    queryFn: ref === null ? skipToken : () => api.ask.browse({ ...at(ref), ...(typeof base === "string" ? { compare: base } : { base_file: base.file, base_line: base.line }) }),
  });

export const fileContentQuery = (api: Api, ref: SnapshotRef | null, path: string | null) =>
  queryOptions({ queryKey: ref === null || path === null ? keys.waiting("file") : keys.file(ref, path), queryFn: ref === null || path === null ? skipToken : () => api.ask.fileContent({ ...at(ref), path }) });

export const diffQuery = (api: Api, base: SnapshotRef | null, target: SnapshotRef | null, copies = false) =>
  queryOptions({
    queryKey: base === null || target === null ? keys.waiting("diff") : copies ? [...keys.diff(base, target), "copies"] : keys.diff(base, target),
    queryFn: base === null || target === null ? skipToken : () => api.ask.diff({ ...between(base, target), copies: flag(copies) }),
  });

export const fileDiffQuery = (api: Api, base: SnapshotRef | null, target: SnapshotRef | null, path: string | null, basePath: string | null = null) =>
  queryOptions({
    queryKey: base === null || target === null || path === null ? keys.waiting("file-diff") : keys.fileDiff(base, target, path, basePath),
    queryFn: base === null || target === null || path === null ? skipToken : () => api.ask.fileDiff({ ...between(base, target), path, base_path: basePath ?? undefined }),
  });

export const sliceDiffQuery = (api: Api, base: SnapshotRef | null, target: SnapshotRef | null, sliceType: string | null) =>
  queryOptions({
    queryKey: base === null || target === null || sliceType === null ? keys.waiting("slice-diff") : keys.sliceDiff(base, target, sliceType),
    queryFn: base === null || target === null || sliceType === null ? skipToken : () => api.ask.sliceDiff({ ...between(base, target), slice_type: sliceType }),
  });

/** An empty query waits: there is nothing to search for yet. */
export const searchQuery = (api: Api, ref: SnapshotRef | null, query: string, scope: SearchScope, limit = 500) =>
  queryOptions({ queryKey: ref === null ? keys.waiting("search") : keys.search(ref, query, scope, limit), queryFn: ref === null || query.trim() === "" ? skipToken : () => api.ask.search({ ...at(ref), q: query, scope, limit }) });

// WINK debug bundles (the bundle routes, asked by name). `file` is the bundle as the run list names it.

/** Log records and transcript entries are fetched in pages of this many (and virtualised on screen). */
export const BUNDLE_PAGE_SIZE = 100;

export const bundleSummaryQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("bundleSummary") : keys.bundleSummary(file), queryFn: file === null ? skipToken : () => api.ask.bundleSummary({ file }) });

/** `params` null: the page to ask for is not known yet. */
export const logsQuery = (api: Api, file: string | null, params: LogsParams | null) =>
  queryOptions({ queryKey: file === null || params === null ? keys.waiting("logs") : keys.logs(file, params), queryFn: file === null || params === null ? skipToken : () => api.ask.bundleLogs({ file, ...params }) });

export const logFacetsQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("logFacets") : keys.logFacets(file), queryFn: file === null ? skipToken : () => api.ask.bundleLogFacets({ file }) });

/** `params` null: the page to ask for is not known yet. */
export const transcriptQuery = (api: Api, file: string | null, params: TranscriptParams | null) =>
  queryOptions({ queryKey: file === null || params === null ? keys.waiting("transcript") : keys.transcript(file, params), queryFn: file === null || params === null ? skipToken : () => api.ask.bundleTranscript({ file, ...params }) });

export const transcriptFacetsQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("transcriptFacets") : keys.transcriptFacets(file), queryFn: file === null ? skipToken : () => api.ask.bundleTranscriptFacets({ file }) });

export const environmentQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("environment") : keys.environment(file), queryFn: file === null ? skipToken : () => api.ask.bundleEnvironment({ file }) });

export const bundleRequestQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("bundleRequest") : keys.bundleRequest(file), queryFn: file === null ? skipToken : () => api.ask.bundleRequest({ file }) });

/** The route's 404 for a member the bundle lacks as `null`; any other failure (a bundle that is not there) stays one. */
function nullWhenMissing(error: unknown): null {
  if (error instanceof ApiError && error.status === 404 && isMissingMember(error.detail)) return null;
  throw error;
}

/** A JSON member as written; `null` when the bundle has none. */
export const bundleMemberQuery = (api: Api, file: string | null, kind: BundleMemberKind) =>
  queryOptions({ queryKey: file === null ? keys.waiting("bundleMember") : keys.bundleMember(file, kind), queryFn: file === null ? skipToken : () => api.ask[BUNDLE_MEMBER_ROUTES[kind]]({ file }).catch(nullWhenMissing) });

export const bundleMembersQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("bundleMembers") : keys.bundleMembers(file), queryFn: file === null ? skipToken : () => api.ask.bundleMembers({ file }) });

/** Every checksum verified (reads every member once). */
export const bundleIntegrityQuery = (api: Api, file: string | null) =>
  queryOptions({ queryKey: file === null ? keys.waiting("bundleIntegrity") : keys.bundleIntegrity(file), queryFn: file === null ? skipToken : () => api.ask.bundleIntegrity({ file }) });

export const bundleGroupsQuery = (api: Api) => queryOptions({ queryKey: keys.bundleGroups(), queryFn: () => api.ask.bundleGroups({}) });

export const bundleCompareQuery = (api: Api, target: string | null, base: string | null) =>
  queryOptions({ queryKey: target === null ? keys.waiting("bundle-compare") : keys.bundleCompare(target, base), queryFn: target === null ? skipToken : () => api.ask.bundleCompare({ target_file: target, base_file: base ?? undefined }) });

/** An empty query waits: there is nothing to search for yet. */
export const bundleSearchQuery = (api: Api, query: string, params: BundleSearchParams) =>
  queryOptions({ queryKey: keys.bundleSearch(query, params), queryFn: query.trim() === "" ? skipToken : () => api.ask.bundleSearch({ q: query, ...params }) });
