/** One hook per resource; `null` arguments disable the query (nothing selected yet). */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { RunFilter, SearchScope, SnapshotRef } from "../api/api.js";
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
  return useQuery({ ...q.newestRunQuery(useApi()), enabled });
}

export function useRunSearch(file: string | null, session: string | null, query: string, regex: boolean) {
  return useQuery(q.runSearchQuery(useApi(), file, session, query, regex));
}

export function useDiffStat(base: SnapshotRef | null, target: SnapshotRef | null) {
  return useQuery({ ...q.diffStatQuery(useApi(), base ?? placeholder, target ?? placeholder), enabled: base !== null && target !== null });
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

export function useDiff(base: SnapshotRef | null, target: SnapshotRef | null) {
  return useQuery({ ...q.diffQuery(useApi(), base ?? placeholder, target ?? placeholder), enabled: base !== null && target !== null });
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
