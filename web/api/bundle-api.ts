/**
 * WINK debug bundles as the views will read them: one interface (`Api.bundles`), answered
 * by a wink-debug server (`bundle-http.ts`) or in the page from dropped or bundled files
 * (`local-bundles.ts`, the same shared reader the server runs). A bundle is named by its
 * `file` (as `/api/files` lists it); it is also a session file of two lines (1 before the
 * run, 2 after), so the session, timeline, slice, workspace and diff calls of `Api` work
 * on it unchanged.
 */
import type { LogQuery, TranscriptQuery } from "../../shared/debug-bundle/index.js";
import type * as B from "../../shared/debug-bundle/index.js";

export type BundleCompareResponse = B.BundleCompareView;
export type BundleFileResponse = B.BundleFileView;
export type BundleGroupsResponse = B.BundleGroupView[];
export type BundleIntegrityResponse = B.BundleIntegrityView;
export type BundleListResponse = B.BundleListItemView[];
export type BundleMetaResponse = B.BundleMetaView;
export type BundleRequestResponse = B.BundleRequestView;
export type BundleSearchResponse = B.BundleSearchView;
export type BundleSummaryResponse = B.BundleSummaryView;
export type EnvironmentResponse = B.EnvironmentView;
export type LogEntryResponse = B.LogEntryView;
export type LogFacetsResponse = B.LogFacetsView;
export type LogPageResponse = B.LogPageView;
export type TranscriptEntryResponse = B.TranscriptEntryView;
export type TranscriptFacetsResponse = B.TranscriptFacetsView;
export type TranscriptPageResponse = B.TranscriptPageView;

/** Filters of a logs page: WINK's, plus a time window and a time to jump to (ISO-8601). Omitted `limit`: every matching record. */
export type LogsParams = LogQuery;

/** Filters of a transcript page (WINK's). */
export type TranscriptParams = TranscriptQuery;

/** The JSON members served as written (null when the bundle has none). */
export type BundleMemberKind = "manifest" | "config" | "metrics" | "error" | "run-context" | "eval" | "prompt-overrides";

export type BundleSearchScope = "logs" | "transcript" | "members" | "slices" | "files";

export interface BundleSearchParams {
  /** The bundle the search starts from (needed for `within: "bundle" | "group"`). */
  readonly file?: string;
  readonly within?: "bundle" | "group" | "all";
  readonly scopes?: readonly BundleSearchScope[];
  readonly limit?: number;
  /** The query is a regular expression (case-sensitive; the server allows linear-time ones only). */
  readonly regex?: boolean;
}

export interface BundleApi {
  /** Every bundle, newest first (WINK's `/api/bundles`). */
  list(): Promise<B.BundleListItemView[]>;
  /** Bundles grouped by request (retries, iterations), each with its summary. */
  groups(): Promise<B.BundleGroupView[]>;
  /** The run at a glance: status, error with traceback, ids, attempt/iteration, metrics, integrity. */
  summary(file: string): Promise<B.BundleSummaryView>;
  /** WINK's bundle meta with the default session line's fields. */
  meta(file: string): Promise<B.BundleMetaView>;
  logs(file: string, params?: LogsParams): Promise<B.LogPageView>;
  logFacets(file: string): Promise<B.LogFacetsView>;
  transcript(file: string, params?: TranscriptParams): Promise<B.TranscriptPageView>;
  transcriptFacets(file: string): Promise<B.TranscriptFacetsView>;
  environment(file: string): Promise<B.EnvironmentView>;
  request(file: string): Promise<B.BundleRequestView>;
  /** A JSON member as written, or null when the bundle has none. */
  member(file: string, kind: BundleMemberKind): Promise<unknown>;
  /** Every member's path (relative to `debug_bundle/`). */
  members(file: string): Promise<string[]>;
  /** One member by what it holds (WINK's `/api/files/{path}`). */
  memberFile(file: string, member: string): Promise<B.BundleFileView>;
  /** Reads every member with a checksum and says which match. */
  integrity(file: string): Promise<B.BundleIntegrityView>;
  /** Two bundles side by side; without `base`, the previous run of `target`'s request. */
  compare(target: string, base?: string): Promise<B.BundleCompareView>;
  search(query: string, params?: BundleSearchParams): Promise<B.BundleSearchView>;
}
