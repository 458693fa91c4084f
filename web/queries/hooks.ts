/** One hook per resource; `null` arguments disable the query (nothing selected yet). */
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RunFilter, SearchScope, SnapshotRef } from "../api/api.js";
import type { BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "../api/bundle-api.js";
import { useApi } from "../api/context.js";
import * as q from "./options.js";

const placeholder = { file: "", line: 1 } satisfies SnapshotRef;

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

export function useRun(file: string | null) {
  return useQuery(q.runQuery(useApi(), file));
}

export function useNewestRun(enabled: boolean) {
  return useQuery({ ...q.newestRunQuery(useApi(), useQueryClient()), enabled });
}

export function useRunSearch(file: string | null, session: string | null, query: string, regex: boolean) {
  return useQuery(q.runSearchQuery(useApi(), file, session, query, regex));
}

export function useDiffStat(base: SnapshotRef | null, target: SnapshotRef | null, copies = false) {
  return useQuery({ ...q.diffStatQuery(useApi(), base ?? placeholder, target ?? placeholder, copies), enabled: base !== null && target !== null });
}

export function useCurrentSnapshot(enabled: boolean) {
  return useQuery({ ...q.currentQuery(useApi()), enabled });
}

export function useMeta(ref: SnapshotRef | null) {
  return useQuery({ ...q.metaQuery(useApi(), ref ?? placeholder), enabled: ref !== null });
}

export function useTimeline(ref: SnapshotRef | null) {
  return useQuery({ ...q.timelineQuery(useApi(), ref ?? placeholder), enabled: ref !== null });
}

export function useToolCallDiff(ref: SnapshotRef | null, callId: string | null, path: string | null) {
  return useQuery({ ...q.toolCallDiffQuery(useApi(), ref ?? placeholder, callId ?? "", path ?? ""), enabled: ref !== null && callId !== null && path !== null });
}

export function useFilesystemMeta(ref: SnapshotRef | null) {
  return useQuery({ ...q.filesystemMetaQuery(useApi(), ref ?? placeholder), enabled: ref !== null });
}

export function useBrowse(ref: SnapshotRef | null, base: SnapshotRef | "previous" | "none") {
  return useQuery({ ...q.browseQuery(useApi(), ref ?? placeholder, base), enabled: ref !== null });
}

export function useFileContent(ref: SnapshotRef | null, path: string | null) {
  return useQuery({ ...q.fileContentQuery(useApi(), ref ?? placeholder, path ?? ""), enabled: ref !== null && path !== null });
}

export function useDiff(base: SnapshotRef | null, target: SnapshotRef | null, copies = false) {
  return useQuery({ ...q.diffQuery(useApi(), base ?? placeholder, target ?? placeholder, copies), enabled: base !== null && target !== null });
}

export function useFileDiff(base: SnapshotRef | null, target: SnapshotRef | null, path: string | null, basePath: string | null = null) {
  return useQuery({ ...q.fileDiffQuery(useApi(), base ?? placeholder, target ?? placeholder, path ?? "", basePath), enabled: base !== null && target !== null && path !== null });
}

export function useSliceDiff(base: SnapshotRef | null, target: SnapshotRef | null, sliceType: string | null) {
  return useQuery({ ...q.sliceDiffQuery(useApi(), base ?? placeholder, target ?? placeholder, sliceType ?? ""), enabled: base !== null && target !== null && sliceType !== null });
}

export function useSearch(ref: SnapshotRef | null, query: string, scope: SearchScope) {
  return useQuery({ ...q.searchQuery(useApi(), ref ?? placeholder, query, scope), enabled: ref !== null && query.trim() !== "" });
}

// WINK debug bundles: `file` null (not a bundle, or nothing selected) disables the query.

export function useBundleSummary(file: string | null) {
  return useQuery({ ...q.bundleSummaryQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useLogs(file: string | null, params: LogsParams) {
  return useQuery({ ...q.logsQuery(useApi(), file ?? "", params), enabled: file !== null });
}

export function useLogFacets(file: string | null) {
  return useQuery({ ...q.logFacetsQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useTranscript(file: string | null, params: TranscriptParams) {
  return useQuery({ ...q.transcriptQuery(useApi(), file ?? "", params), enabled: file !== null });
}

export function useTranscriptFacets(file: string | null) {
  return useQuery({ ...q.transcriptFacetsQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useEnvironment(file: string | null) {
  return useQuery({ ...q.environmentQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useBundleRequest(file: string | null) {
  return useQuery({ ...q.bundleRequestQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useBundleMember(file: string | null, kind: BundleMemberKind) {
  return useQuery({ ...q.bundleMemberQuery(useApi(), file ?? "", kind), enabled: file !== null });
}

export function useBundleMembers(file: string | null) {
  return useQuery({ ...q.bundleMembersQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useBundleIntegrity(file: string | null) {
  return useQuery({ ...q.bundleIntegrityQuery(useApi(), file ?? ""), enabled: file !== null });
}

export function useBundleGroups(enabled = true) {
  return useQuery({ ...q.bundleGroupsQuery(useApi()), enabled });
}

export function useBundleCompare(target: string | null, base: string | null) {
  return useQuery({ ...q.bundleCompareQuery(useApi(), target ?? "", base), enabled: target !== null });
}

export function useBundleSearch(query: string, params: BundleSearchParams, enabled = true) {
  return useQuery({ ...q.bundleSearchQuery(useApi(), query, params), enabled: enabled && query.trim() !== "" });
}
