/**
 * Query keys, one tree: everything about a session file nests under `keys.sessionFile`, and
 * everything about one snapshot under `keys.snapshot`, so live reload invalidates a whole
 * file (or the whole cache) by prefix. Diffs involve two snapshots and live under `diffs`.
 * A debug bundle is a session file too: what only a bundle has (logs, transcript, members)
 * nests under `keys.bundle(file)`; what spans bundles (groups, compare, search) under
 * `keys.bundles()`.
 */
import type { EvalFilter, RunFilter, SearchScope, SnapshotRef } from "./api.js";
import type { BundleMemberKind, BundleSearchParams, LogsParams, TranscriptParams } from "./bundle-api.js";

const ROOT = "wink" as const;

export const keys = {
  all: [ROOT] as const,
  /**
   * Where a query waits whose input is missing (nothing selected yet; its fetcher is
   * `skipToken`): under no file, so no invalidation or prefetch ever meets it.
   */
  waiting: (resource: string) => [ROOT, "waiting", resource] as const,
  files: () => [ROOT, "files"] as const,
  runs: () => [ROOT, "runs"] as const,
  /** Every run in one answer (the compare view's pickers). */
  runList: () => [...keys.runs(), "list"] as const,
  /** The pages of the run list for every filter (the sidebar's). */
  runPageLists: () => [...keys.runs(), "pages"] as const,
  /** The pages of the run list for one filter (the sidebar's). */
  runPages: (filter: RunFilter) => [...keys.runPageLists(), filter.q, filter.since, filter.until] as const,
  /** A run nests under its session file, so a changed file refreshes its run. */
  run: (file: string) => [...keys.sessionFile(file), "run"] as const,
  /** The eval spans every run: under `runs`, so what refreshes the run list refreshes it. */
  failures: () => [...keys.runs(), "failures"] as const,
  failureOccurrences: (signature: string) => [...keys.failures(), "occurrences", signature] as const,
  /** Every page of the eval's run list, whatever the filter (what a growing index refreshes). */
  evalRuns: () => [...keys.failures(), "runs"] as const,
  /** One page of the eval's run list: the filter's every field and where the page starts. */
  evalRunPage: (filter: EvalFilter, offset: number) => [...keys.evalRuns(), filter.group ?? "", filter.outcome ?? "", filter.tag ?? "", filter.since ?? "", filter.until ?? "", filter.q ?? "", offset] as const,
  newestRun: () => [ROOT, "newest-run"] as const,
  /** Who is signed in: outside `all`, so live reload's refresh of every run never asks it again. */
  signedInUser: () => ["wink-sign-in", "user"] as const,
  /** `limit` is part of the key: a search capped at 50 hits is not the answer to one capped at 500. */
  runSearch: (file: string, session: string | null, query: string, regex: boolean, limit: number) => [...keys.run(file), "search", session ?? "", regex ? "regex" : "text", query, limit] as const,
  current: () => [ROOT, "current"] as const,
  sessionFile: (file: string) => [ROOT, "file", file] as const,
  snapshot: (ref: SnapshotRef) => [...keys.sessionFile(ref.file), "line", ref.line] as const,
  meta: (ref: SnapshotRef) => [...keys.snapshot(ref), "meta"] as const,
  timeline: (ref: SnapshotRef) => [...keys.snapshot(ref), "timeline"] as const,
  toolCallDiff: (ref: SnapshotRef, callId: string, path: string) => [...keys.timeline(ref), "tool-call", callId, path] as const,
  slice: (ref: SnapshotRef, sliceType: string) => [...keys.snapshot(ref), "slice", sliceType] as const,
  slicePage: (ref: SnapshotRef, sliceType: string, page: number, pageSize: number) => [...keys.slice(ref, sliceType), page, pageSize] as const,
  workspace: (ref: SnapshotRef) => [...keys.snapshot(ref), "workspace"] as const,
  filesystemMeta: (ref: SnapshotRef) => [...keys.workspace(ref), "meta"] as const,
  browse: (ref: SnapshotRef, base: string) => [...keys.workspace(ref), "browse", base] as const,
  file: (ref: SnapshotRef, path: string) => [...keys.workspace(ref), "file", path] as const,
  search: (ref: SnapshotRef, query: string, scope: SearchScope, limit: number) => [...keys.snapshot(ref), "search", scope, query, limit] as const,
  diffs: () => [ROOT, "diff"] as const,
  diff: (base: SnapshotRef, target: SnapshotRef) => [...keys.diffs(), base.file, base.line, target.file, target.line] as const,
  fileDiff: (base: SnapshotRef, target: SnapshotRef, path: string, basePath: string | null = null) => [...keys.diff(base, target), "file", path, basePath ?? ""] as const,
  diffStat: (base: SnapshotRef, target: SnapshotRef) => [...keys.diff(base, target), "stat"] as const,
  sliceDiff: (base: SnapshotRef, target: SnapshotRef, sliceType: string) => [...keys.diff(base, target), "slice", sliceType] as const,
  bundle: (file: string) => [...keys.sessionFile(file), "bundle"] as const,
  bundleSummary: (file: string) => [...keys.bundle(file), "summary"] as const,
  bundleMeta: (file: string) => [...keys.bundle(file), "meta"] as const,
  logs: (file: string, params: LogsParams) => [...keys.bundle(file), "logs", params] as const,
  logFacets: (file: string) => [...keys.bundle(file), "logs", "facets"] as const,
  transcript: (file: string, params: TranscriptParams) => [...keys.bundle(file), "transcript", params] as const,
  transcriptFacets: (file: string) => [...keys.bundle(file), "transcript", "facets"] as const,
  environment: (file: string) => [...keys.bundle(file), "environment"] as const,
  bundleRequest: (file: string) => [...keys.bundle(file), "request"] as const,
  bundleMember: (file: string, kind: BundleMemberKind) => [...keys.bundle(file), "member", kind] as const,
  bundleMembers: (file: string) => [...keys.bundle(file), "members"] as const,
  bundleMemberFile: (file: string, member: string) => [...keys.bundle(file), "members", member] as const,
  bundleIntegrity: (file: string) => [...keys.bundle(file), "integrity"] as const,
  bundles: () => [ROOT, "bundles"] as const,
  bundleList: () => [...keys.bundles(), "list"] as const,
  bundleGroups: () => [...keys.bundles(), "groups"] as const,
  bundleCompare: (target: string, base: string | null) => [...keys.bundles(), "compare", target, base] as const,
  bundleSearch: (query: string, params: BundleSearchParams) => [...keys.bundles(), "search", query, params] as const,
};
