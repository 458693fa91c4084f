/**
 * WINK debug bundles as the views read them: the bundle routes asked by name (`Api.ask`),
 * answered by a wink-debug server (`HttpApi`) or in the page from dropped or bundled files
 * (`LocalApi` through `local-bundles.ts`, the same shared reader the server runs). A bundle is named by its
 * `file` (as `/api/files` lists it); it is also a session file of two lines (1 before the
 * run, 2 after), so the session, timeline, slice, workspace and diff calls of `Api` work
 * on it unchanged.
 */
import type * as B from "../../shared/debug-bundle/index.js";
import type { AskedRouteName, RouteParams } from "./routes.js";

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

/** Filters of a logs page (the route's request without `file`): WINK's, as lists, plus a time window and a time to jump to (ISO-8601). Omitted `limit`: every matching record. */
export type LogsParams = Omit<RouteParams<"bundleLogs">, "file">;

/** Filters of a transcript page (WINK's, as lists). */
export type TranscriptParams = Omit<RouteParams<"bundleTranscript">, "file">;

/** The JSON members served as written (null when the bundle has none). */
export type BundleMemberKind = "manifest" | "config" | "metrics" | "error" | "run-context" | "eval" | "prompt-overrides";

/** The route that answers each JSON member as written. */
export const BUNDLE_MEMBER_ROUTES = {
  manifest: "bundleManifest",
  config: "bundleConfig",
  metrics: "bundleMetrics",
  error: "bundleError",
  "run-context": "bundleRunContext",
  eval: "bundleEval",
  "prompt-overrides": "bundlePromptOverrides",
} as const satisfies Record<BundleMemberKind, AskedRouteName>;

export type BundleSearchScope = "logs" | "transcript" | "members" | "slices" | "files";

/** A search of the bundles without its query (`q`): `in` needs `file` unless it is `all`; `scope` a list of `BundleSearchScope`. */
export type BundleSearchParams = Omit<RouteParams<"bundleSearch">, "q">;
