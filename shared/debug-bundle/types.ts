/**
 * The JSON shapes of everything read from WINK debug bundles, derived from their TypeBox
 * schemas (`schemas.ts`, where the fields are documented): exactly what the HTTP API sends and
 * what the web app computes in the browser from a dropped bundle.
 */
import type { Static } from "typebox";
import type * as S from "./schemas.js";

/** `{name, count}`: one value of a facet. */
export type FacetCountView = Static<typeof S.FacetCount>;
/** One record of `logs/app.jsonl` (WINK's six keys, plus where it is). */
export type LogEntryView = Static<typeof S.LogEntry>;
/** `/api/logs`. */
export type LogPageView = Static<typeof S.LogPage>;
/** `/api/logs/facets`. */
export type LogFacetsView = Static<typeof S.LogFacets>;
/** One transcript entry: WINK's row, the tool pairing and where it was read. */
export type TranscriptEntryView = Static<typeof S.TranscriptEntry>;
/** `/api/transcript`. */
export type TranscriptPageView = Static<typeof S.TranscriptPage>;
/** `/api/transcript/facets`. */
export type TranscriptFacetsView = Static<typeof S.TranscriptFacets>;
/** WINK's `/api/files/{path}`: one member by what it holds (images by extension, `.md` rendered, JSON parsed). */
export type BundleFileView = Static<typeof S.BundleFile>;
/** `/api/environment` (WINK's shape; every part null when not captured). */
export type EnvironmentView = Static<typeof S.Environment>;
/** `/api/request`: the request's input and output as written. */
export type BundleRequestView = Static<typeof S.BundleRequest>;
/** `error.json`, with the traceback both as written (one string per frame) and joined. */
export type BundleErrorView = Static<typeof S.BundleError>;
/** The manifest's checksums against the members read so far (or all, after a full check). */
export type BundleIntegrityView = Static<typeof S.BundleIntegrity>;
/** One of the bundle's two session snapshots. */
export type BundleSessionLineView = Static<typeof S.BundleSessionLine>;
/** The run a bundle records, at a glance: what the run-centred views show first. */
export type BundleSummaryView = Static<typeof S.BundleSummary>;
/** WINK's `/api/meta` for a bundle, with the snapshot fields of our `/api/meta` (null without a session). */
export type BundleMetaView = Static<typeof S.BundleMeta>;
/** `/api/bundles`: a bundle of the served directory (WINK's shape; `path` relative to it). */
export type BundleListItemView = Static<typeof S.BundleListItem>;
/** The bundles of one request, in run order. */
export type BundleGroupView = Static<typeof S.BundleGroup>;
/** One metric of two bundles side by side. */
export type MetricComparisonView = Static<typeof S.MetricComparison>;
/** Two bundles compared: status, metrics, workspace and session state. */
export type BundleCompareView = Static<typeof S.BundleCompare>;
/** A search hit in one bundle. */
export type BundleSearchHitView = Static<typeof S.BundleSearchHit>;
/** `/api/bundles/search`. */
export type BundleSearchView = Static<typeof S.BundleSearch>;
