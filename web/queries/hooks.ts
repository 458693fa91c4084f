/**
 * One hook per resource, in the views' words: each builds its route's request from the
 * view's inputs and asks it through `useRoute` (key and fetcher from the route table); a
 * `null` input makes the query wait (`skipToken`: nothing selected yet).
 */
import { skipToken, useInfiniteQuery, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { EvalFilter, RunFilter, SearchScope, SnapshotRef } from "../api/api.js";
import { at, between, flag } from "../api/api.js";
import type { BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "../api/bundle-api.js";
import { useApi } from "../api/context.js";
import * as q from "./options.js";
import { routeQuery, useRoute, when } from "./route-query.js";

/** Who is signed in (served mode); null in the local default and offline. */
export function useSignedInUser(enabled: boolean) {
  return useQuery({ ...q.signedInUserQuery(), enabled });
}

/** `enabled` false: not asked yet (the cache's answer, if any, is shown). */
export function useFiles(enabled = true) {
  return useQuery({ ...q.filesQuery(useApi()), enabled });
}

export function useRuns() {
  return useRoute("runs", {});
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
  return useQueries({ queries: offsets.map((offset) => routeQuery(api, "evalRuns", q.evalRunsRequest(filter, offset))) });
}

export function useFailureOccurrences(signature: string | null) {
  return useRoute("failureOccurrences", when(signature, (signature) => ({ signature })));
}

export function useRun(file: string | null) {
  return useRoute("run", when(file, (file) => ({ file })));
}

/** A stretch of a session's turns and snapshots that the run left out; `null`: none asked for (the query waits). */
export function useRunSession(file: string, session: string, range: { offset: number; limit: number } | null) {
  return useRoute("runSession", when(range, (range) => ({ file, session, offset: range.offset, limit: range.limit })));
}

/** A stretch of the run's failures that `/api/run` left out; `null`: none asked for (the query waits). */
export function useRunFailures(file: string, range: { offset: number; limit: number } | null) {
  return useRoute("runFailures", when(range, (range) => ({ file, offset: range.offset, limit: range.limit })));
}

export function useNewestRun(enabled: boolean) {
  return useQuery({ ...q.newestRunQuery(useApi(), useQueryClient()), enabled });
}

/** An empty query waits: there is nothing to search for yet. `limit` is in the key: a search capped at 50 hits is not the answer to one capped at 500. */
export function useRunSearch(file: string | null, session: string | null, query: string, regex: boolean, limit = 500) {
  return useRoute("runSearch", file === null || query.trim() === "" ? skipToken : { file, session: session ?? undefined, q: query, regex: flag(regex), limit });
}

export function useDiffStat(base: SnapshotRef | null, target: SnapshotRef | null, copies = false) {
  return useRoute("diffStat", base === null || target === null ? skipToken : q.diffRequest(base, target, copies));
}

export function useCurrentSnapshot(enabled: boolean) {
  return useQuery({ ...q.currentQuery(useApi()), enabled });
}

export function useMeta(ref: SnapshotRef | null) {
  return useQuery(q.metaQuery(useApi(), ref));
}

export function useTimeline(ref: SnapshotRef | null) {
  return useRoute("timeline", when(ref, at));
}

export function useToolCallDiff(ref: SnapshotRef | null, callId: string | null, path: string | null) {
  return useRoute("toolCallDiff", ref === null || callId === null || path === null ? skipToken : { ...at(ref), call_id: callId, path });
}

export function useFilesystemMeta(ref: SnapshotRef | null) {
  return useRoute("filesystemMeta", when(ref, at));
}

export function useBrowse(ref: SnapshotRef | null, base: SnapshotRef | "previous" | "none") {
  return useRoute("browse", when(ref, (ref) => q.browseRequest(ref, base)));
}

export function useFileContent(ref: SnapshotRef | null, path: string | null) {
  return useRoute("fileContent", ref === null || path === null ? skipToken : { ...at(ref), path });
}

export function useDiff(base: SnapshotRef | null, target: SnapshotRef | null, copies = false) {
  return useRoute("diff", base === null || target === null ? skipToken : q.diffRequest(base, target, copies));
}

export function useFileDiff(base: SnapshotRef | null, target: SnapshotRef | null, path: string | null, basePath: string | null = null) {
  return useRoute("fileDiff", base === null || target === null || path === null ? skipToken : { ...between(base, target), path, base_path: basePath ?? undefined });
}

export function useSliceDiff(base: SnapshotRef | null, target: SnapshotRef | null, sliceType: string | null) {
  return useRoute("sliceDiff", base === null || target === null || sliceType === null ? skipToken : { ...between(base, target), slice_type: sliceType });
}

/** An empty query waits: there is nothing to search for yet. */
export function useSearch(ref: SnapshotRef | null, query: string, scope: SearchScope, limit = 500) {
  return useRoute("search", ref === null || query.trim() === "" ? skipToken : { ...at(ref), q: query, scope, limit });
}

// WINK debug bundles: `file` null (not a bundle, or nothing selected) makes the query wait.

export function useBundleSummary(file: string | null) {
  return useRoute("bundleSummary", when(file, (file) => ({ file })));
}

export function useLogs(file: string | null, params: LogsParams) {
  return useRoute("bundleLogs", when(file, (file) => ({ file, ...params })));
}

export function useLogFacets(file: string | null) {
  return useRoute("bundleLogFacets", when(file, (file) => ({ file })));
}

export function useTranscript(file: string | null, params: TranscriptParams) {
  return useRoute("bundleTranscript", when(file, (file) => ({ file, ...params })));
}

export function useTranscriptFacets(file: string | null) {
  return useRoute("bundleTranscriptFacets", when(file, (file) => ({ file })));
}

export function useEnvironment(file: string | null) {
  return useRoute("bundleEnvironment", when(file, (file) => ({ file })));
}

export function useBundleRequest(file: string | null) {
  return useRoute("bundleRequest", when(file, (file) => ({ file })));
}

export function useBundleMember(file: string | null, kind: BundleMemberKind) {
  return useQuery(q.bundleMemberQuery(useApi(), file, kind));
}

export function useBundleMembers(file: string | null) {
  return useRoute("bundleMembers", when(file, (file) => ({ file })));
}

/** Every checksum verified (reads every member once). */
export function useBundleIntegrity(file: string | null) {
  return useRoute("bundleIntegrity", when(file, (file) => ({ file })));
}

export function useBundleGroups(enabled = true) {
  return useRoute("bundleGroups", {}, enabled);
}

export function useBundleCompare(target: string | null, base: string | null) {
  return useRoute("bundleCompare", when(target, (target) => ({ target_file: target, base_file: base ?? undefined })));
}

/** An empty query waits: there is nothing to search for yet. */
export function useBundleSearch(query: string, params: BundleSearchParams, enabled = true) {
  return useRoute("bundleSearch", query.trim() === "" ? skipToken : { q: query, ...params }, enabled);
}
