/** One hook per resource; a `null` argument makes the query wait (`skipToken`: nothing selected yet). */
import { useInfiniteQuery, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { EvalFilter, RunFilter, SearchScope, SnapshotRef } from "../api/api.js";
import type { BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "../api/bundle-api.js";
import { useApi } from "../api/context.js";
import * as q from "./options.js";

/** Who is signed in (served mode); null in the local default and offline. */
export function useSignedInUser(enabled: boolean) {
  return useQuery({ ...q.signedInUserQuery(), enabled });
}

export function useFiles() {
  return useQuery(q.filesQuery(useApi()));
}

export function useRuns() {
  return useQuery(q.runsQuery(useApi()));
}

/** The sidebar's run list, page by page (`fetchNextPage` for more), for one filter. */
export function useRunPages(filter: RunFilter) {
  return useInfiniteQuery(q.runPagesQuery(useApi(), filter));
}

export function useFailures(enabled = true) {
  return useQuery({ ...q.failuresQuery(useApi()), enabled });
}

/** The pages of the eval's run list that start at `offsets`, for one filter (in that order). */
export function useEvalRunPages(filter: EvalFilter, offsets: readonly number[]) {
  const api = useApi();
  return useQueries({ queries: offsets.map((offset) => q.evalRunPageQuery(api, filter, offset)) });
}

export function useFailureOccurrences(signature: string | null) {
  return useQuery(q.failureOccurrencesQuery(useApi(), signature));
}

export function useRun(file: string | null) {
  return useQuery(q.runQuery(useApi(), file));
}

export function useRunSession(file: string, session: string, range: { offset: number; limit: number } | null) {
  return useQuery(q.runSessionQuery(useApi(), file, session, range));
}

export function useRunFailures(file: string, range: { offset: number; limit: number } | null) {
  return useQuery(q.runFailuresQuery(useApi(), file, range));
}

export function useNewestRun(enabled: boolean) {
  return useQuery({ ...q.newestRunQuery(useApi(), useQueryClient()), enabled });
}

export function useRunSearch(file: string | null, session: string | null, query: string, regex: boolean) {
  return useQuery(q.runSearchQuery(useApi(), file, session, query, regex));
}

export function useDiffStat(base: SnapshotRef | null, target: SnapshotRef | null, copies = false) {
  return useQuery(q.diffStatQuery(useApi(), base, target, copies));
}

export function useCurrentSnapshot(enabled: boolean) {
  return useQuery({ ...q.currentQuery(useApi()), enabled });
}

export function useMeta(ref: SnapshotRef | null) {
  return useQuery(q.metaQuery(useApi(), ref));
}

export function useTimeline(ref: SnapshotRef | null) {
  return useQuery(q.timelineQuery(useApi(), ref));
}

export function useToolCallDiff(ref: SnapshotRef | null, callId: string | null, path: string | null) {
  return useQuery(q.toolCallDiffQuery(useApi(), ref, callId, path));
}

export function useFilesystemMeta(ref: SnapshotRef | null) {
  return useQuery(q.filesystemMetaQuery(useApi(), ref));
}

export function useBrowse(ref: SnapshotRef | null, base: SnapshotRef | "previous" | "none") {
  return useQuery(q.browseQuery(useApi(), ref, base));
}

export function useFileContent(ref: SnapshotRef | null, path: string | null) {
  return useQuery(q.fileContentQuery(useApi(), ref, path));
}

export function useDiff(base: SnapshotRef | null, target: SnapshotRef | null, copies = false) {
  return useQuery(q.diffQuery(useApi(), base, target, copies));
}

export function useFileDiff(base: SnapshotRef | null, target: SnapshotRef | null, path: string | null, basePath: string | null = null) {
  return useQuery(q.fileDiffQuery(useApi(), base, target, path, basePath));
}

export function useSliceDiff(base: SnapshotRef | null, target: SnapshotRef | null, sliceType: string | null) {
  return useQuery(q.sliceDiffQuery(useApi(), base, target, sliceType));
}

export function useSearch(ref: SnapshotRef | null, query: string, scope: SearchScope) {
  return useQuery(q.searchQuery(useApi(), ref, query, scope));
}

// WINK debug bundles: `file` null (not a bundle, or nothing selected) disables the query.

export function useBundleSummary(file: string | null) {
  return useQuery(q.bundleSummaryQuery(useApi(), file));
}

export function useLogs(file: string | null, params: LogsParams) {
  return useQuery(q.logsQuery(useApi(), file, params));
}

export function useLogFacets(file: string | null) {
  return useQuery(q.logFacetsQuery(useApi(), file));
}

export function useTranscript(file: string | null, params: TranscriptParams) {
  return useQuery(q.transcriptQuery(useApi(), file, params));
}

export function useTranscriptFacets(file: string | null) {
  return useQuery(q.transcriptFacetsQuery(useApi(), file));
}

export function useEnvironment(file: string | null) {
  return useQuery(q.environmentQuery(useApi(), file));
}

export function useBundleRequest(file: string | null) {
  return useQuery(q.bundleRequestQuery(useApi(), file));
}

export function useBundleMember(file: string | null, kind: BundleMemberKind) {
  return useQuery(q.bundleMemberQuery(useApi(), file, kind));
}

export function useBundleMembers(file: string | null) {
  return useQuery(q.bundleMembersQuery(useApi(), file));
}

export function useBundleIntegrity(file: string | null) {
  return useQuery(q.bundleIntegrityQuery(useApi(), file));
}

export function useBundleGroups(enabled = true) {
  return useQuery({ ...q.bundleGroupsQuery(useApi()), enabled });
}

export function useBundleCompare(target: string | null, base: string | null) {
  return useQuery(q.bundleCompareQuery(useApi(), target, base));
}

export function useBundleSearch(query: string, params: BundleSearchParams, enabled = true) {
  return useQuery({ ...q.bundleSearchQuery(useApi(), query, params), enabled });
}
