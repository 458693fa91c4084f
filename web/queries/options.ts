/**
 * One `queryOptions` factory per resource: the key and the fetcher travel together, so
 * hooks, prefetches and invalidations agree (see `api/keys.ts`).
 */
import { infiniteQueryOptions, queryOptions, skipToken } from "@tanstack/react-query";
import type { QueryClient } from "@tanstack/react-query";
import type { Api, RunFilter, SearchScope, SnapshotRef } from "../api/api.js";
import type { BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "../api/bundle-api.js";
import { keys } from "../api/keys.js";

/** Slice items are fetched in pages of this many (and virtualised on screen). */
export const SLICE_PAGE_SIZE = 50;

export const filesQuery = (api: Api) => queryOptions({ queryKey: keys.files(), queryFn: () => api.files() });

export const runsQuery = (api: Api) => queryOptions({ queryKey: keys.runs(), queryFn: () => api.runs() });

/** Runs are listed in pages of this many (a bucket may hold thousands). */
export const RUN_PAGE_SIZE = 100;

/** The run list page by page, for one filter; the next page starts where the last one ended. */
export const runPagesQuery = (api: Api, filter: RunFilter) =>
  infiniteQueryOptions({
    queryKey: keys.runPages(filter),
    queryFn: ({ pageParam }) => api.runs({ ...filter, offset: pageParam, limit: RUN_PAGE_SIZE }),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.offset + last.runs.length < last.matched ? last.offset + last.runs.length : undefined),
  });

/** `null`: no run named yet (the query waits, `skipToken`). */
export const runQuery = (api: Api, file: string | null) => queryOptions({ queryKey: keys.run(file ?? ""), queryFn: file === null ? skipToken : () => api.run(file) });

/** The newest run (where the app lands without a link). */
export const newestRunQuery = (api: Api, client: QueryClient) =>
  queryOptions({
    queryKey: keys.newestRun(),
    queryFn: async () => {
      const run = await api.run();
      // It is that file's run too: the views that ask for it by name need not fetch it again.
      client.setQueryData(keys.run(run.source.path), run);
      return run;
    },
    staleTime: Infinity,
  });

export const runSearchQuery = (api: Api, file: string | null, session: string | null, query: string, regex: boolean, limit = 500) =>
  queryOptions({
    queryKey: keys.runSearch(file ?? "", session, query, regex, limit),
    queryFn: file === null || query.trim() === "" ? skipToken : () => api.runSearch(file, session, query, regex, limit),
  });

export const diffStatQuery = (api: Api, base: SnapshotRef, target: SnapshotRef, copies = false) =>
  queryOptions({ queryKey: copies ? [...keys.diffStat(base, target), "copies"] : keys.diffStat(base, target), queryFn: () => api.diffStat(base, target, { copies }) });

export const currentQuery = (api: Api) => queryOptions({ queryKey: keys.current(), queryFn: () => api.meta(), staleTime: Infinity });

export const metaQuery = (api: Api, ref: SnapshotRef) => queryOptions({ queryKey: keys.meta(ref), queryFn: () => api.meta(ref) });

export const timelineQuery = (api: Api, ref: SnapshotRef) => queryOptions({ queryKey: keys.timeline(ref), queryFn: () => api.timeline(ref) });

export const toolCallDiffQuery = (api: Api, ref: SnapshotRef, callId: string, path: string) =>
  queryOptions({ queryKey: keys.toolCallDiff(ref, callId, path), queryFn: () => api.toolCallDiff(ref, callId, path) });

export const slicePageQuery = (api: Api, ref: SnapshotRef, sliceType: string, page: number, pageSize = SLICE_PAGE_SIZE) =>
  queryOptions({
    queryKey: keys.slicePage(ref, sliceType, page, pageSize),
    queryFn: () => api.slicePage(ref, sliceType, page * pageSize, pageSize),
  });

export const filesystemMetaQuery = (api: Api, ref: SnapshotRef) => queryOptions({ queryKey: keys.filesystemMeta(ref), queryFn: () => api.filesystemMeta(ref) });

export const browseQuery = (api: Api, ref: SnapshotRef, base: SnapshotRef | "previous" | "none") =>
  queryOptions({
    queryKey: keys.browse(ref, typeof base === "string" ? base : `${base.file}:${base.line}`),
    queryFn: () => api.browse(ref, base),
  });

export const fileContentQuery = (api: Api, ref: SnapshotRef, path: string) =>
  queryOptions({ queryKey: keys.file(ref, path), queryFn: () => api.fileContent(ref, path) });

export const diffQuery = (api: Api, base: SnapshotRef, target: SnapshotRef, copies = false) =>
  queryOptions({ queryKey: copies ? [...keys.diff(base, target), "copies"] : keys.diff(base, target), queryFn: () => api.diff(base, target, { copies }) });

export const fileDiffQuery = (api: Api, base: SnapshotRef, target: SnapshotRef, path: string, basePath: string | null = null) =>
  queryOptions({ queryKey: keys.fileDiff(base, target, path, basePath), queryFn: () => api.fileDiff(base, target, path, basePath) });

export const sliceDiffQuery = (api: Api, base: SnapshotRef, target: SnapshotRef, sliceType: string) =>
  queryOptions({ queryKey: keys.sliceDiff(base, target, sliceType), queryFn: () => api.sliceDiff(base, target, sliceType) });

export const searchQuery = (api: Api, ref: SnapshotRef, query: string, scope: SearchScope, limit = 500) =>
  queryOptions({ queryKey: keys.search(ref, query, scope, limit), queryFn: () => api.search(ref, query, scope, limit) });

// WINK debug bundles (`Api.bundles`). `file` is the bundle as the run list names it.

/** Log records and transcript entries are fetched in pages of this many (and virtualised on screen). */
export const BUNDLE_PAGE_SIZE = 100;

export const bundleSummaryQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.bundleSummary(file), queryFn: () => api.bundles.summary(file) });

export const logsQuery = (api: Api, file: string, params: LogsParams) => queryOptions({ queryKey: keys.logs(file, params), queryFn: () => api.bundles.logs(file, params) });

export const logFacetsQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.logFacets(file), queryFn: () => api.bundles.logFacets(file) });

export const transcriptQuery = (api: Api, file: string, params: TranscriptParams) => queryOptions({ queryKey: keys.transcript(file, params), queryFn: () => api.bundles.transcript(file, params) });

export const transcriptFacetsQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.transcriptFacets(file), queryFn: () => api.bundles.transcriptFacets(file) });

export const environmentQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.environment(file), queryFn: () => api.bundles.environment(file) });

export const bundleRequestQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.bundleRequest(file), queryFn: () => api.bundles.request(file) });

/** A JSON member as written; `null` when the bundle has none. */
export const bundleMemberQuery = (api: Api, file: string, kind: BundleMemberKind) => queryOptions({ queryKey: keys.bundleMember(file, kind), queryFn: () => api.bundles.member(file, kind) });

export const bundleMembersQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.bundleMembers(file), queryFn: () => api.bundles.members(file) });

/** Every checksum verified (reads every member once). */
export const bundleIntegrityQuery = (api: Api, file: string) => queryOptions({ queryKey: keys.bundleIntegrity(file), queryFn: () => api.bundles.integrity(file) });

export const bundleGroupsQuery = (api: Api) => queryOptions({ queryKey: keys.bundleGroups(), queryFn: () => api.bundles.groups() });

export const bundleCompareQuery = (api: Api, target: string, base: string | null) =>
  queryOptions({ queryKey: keys.bundleCompare(target, base), queryFn: () => api.bundles.compare(target, base ?? undefined) });

export const bundleSearchQuery = (api: Api, query: string, params: BundleSearchParams) => queryOptions({ queryKey: keys.bundleSearch(query, params), queryFn: () => api.bundles.search(query, params) });
