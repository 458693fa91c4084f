/**
 * Response types of the API, inferred from the schemas, and a compile-time check that each
 * equals the type the `shared/viewer` function behind the route returns: if either side
 * changes alone, `tsc` fails here.
 */
import type { Static } from "typebox";
import type * as Viewer from "../../shared/viewer/index.js";
import type { Browse, FileContent, FileTree, FileTreeNode, FilesystemMeta } from "./filesystem.js";
import type { Entries, SlicePage, SnapshotFiles, SnapshotMeta } from "./legacy.js";
import type { FileList, SessionFile, SessionNode, Timeline } from "./sessions.js";
import type { DiffStat, FileDiff, SliceDiff, SnapshotDiff } from "./diffs.js";
import type { SearchResult } from "./search.js";
import type { TimelineChanges, ToolCallFileDiff } from "./tool-calls.js";
import type { ErrorBody } from "./common.js";
import type * as Bundle from "../../shared/debug-bundle/index.js";
import type {
  BundleCompare,
  BundleFile,
  BundleGroups,
  BundleIntegrity,
  BundleList,
  BundleMeta,
  BundleRequest,
  BundleSearch,
  BundleSummary,
  Environment,
  LogFacets,
  LogPage,
  Meta,
  TranscriptFacets,
  TranscriptPage,
} from "./bundles.js";
import type { Run, RunList, RunSearchResult } from "./runs.js";

export type ErrorBodyResponse = Static<typeof ErrorBody>;
export type SnapshotMetaResponse = Static<typeof SnapshotMeta>;
export type EntriesResponse = Static<typeof Entries>;
export type SlicePageResponse = Static<typeof SlicePage>;
export type SnapshotFilesResponse = Static<typeof SnapshotFiles>;
export type FileListResponse = Static<typeof FileList>;
export type SessionFileResponse = Static<typeof SessionFile>;
export type SessionNodeResponse = Static<typeof SessionNode>;
export type TimelineResponse = Static<typeof Timeline>;
export type FilesystemMetaResponse = Static<typeof FilesystemMeta>;
export type FileTreeResponse = Static<typeof FileTree>;
export type FileTreeNodeResponse = Static<typeof FileTreeNode>;
export type BrowseResponse = Static<typeof Browse>;
export type FileContentResponse = Static<typeof FileContent>;
export type SnapshotDiffResponse = Static<typeof SnapshotDiff>;
export type FileDiffResponse = Static<typeof FileDiff>;
export type SliceDiffResponse = Static<typeof SliceDiff>;
export type SearchResponse = Static<typeof SearchResult>;
export type TimelineChangesResponse = Static<typeof TimelineChanges>;
export type ToolCallFileDiffResponse = Static<typeof ToolCallFileDiff>;
export type DiffStatResponse = Static<typeof DiffStat>;
export type RunListResponse = Static<typeof RunList>;
export type RunResponse = Static<typeof Run>;
export type RunSearchResponse = Static<typeof RunSearchResult>;

export type MetaResponse = Static<typeof Meta>;
export type BundleMetaResponse = Static<typeof BundleMeta>;
export type LogPageResponse = Static<typeof LogPage>;
export type LogEntryResponse = LogPageResponse["entries"][number];
export type LogFacetsResponse = Static<typeof LogFacets>;
export type TranscriptPageResponse = Static<typeof TranscriptPage>;
export type TranscriptEntryResponse = TranscriptPageResponse["entries"][number];
export type TranscriptFacetsResponse = Static<typeof TranscriptFacets>;
export type EnvironmentResponse = Static<typeof Environment>;
export type BundleFileResponse = Static<typeof BundleFile>;
export type BundleRequestResponse = Static<typeof BundleRequest>;
export type BundleIntegrityResponse = Static<typeof BundleIntegrity>;
export type BundleSummaryResponse = Static<typeof BundleSummary>;
export type BundleListResponse = Static<typeof BundleList>;
export type BundleGroupsResponse = Static<typeof BundleGroups>;
export type BundleCompareResponse = Static<typeof BundleCompare>;
export type BundleSearchResponse = Static<typeof BundleSearch>;

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

export type ContractChecks = [
  Assert<Equal<SnapshotMetaResponse, Viewer.SnapshotMetaView>>,
  Assert<Equal<EntriesResponse, Viewer.EntryView[]>>,
  Assert<Equal<SlicePageResponse, Viewer.SlicePageView>>,
  Assert<Equal<SnapshotFilesResponse, Viewer.SnapshotFileView[]>>,
  Assert<Equal<FileListResponse, Viewer.FileListView>>,
  Assert<Equal<SessionNodeResponse, Viewer.SessionNodeView>>,
  Assert<Equal<TimelineResponse, Viewer.TimelineView>>,
  Assert<Equal<FilesystemMetaResponse, Viewer.FilesystemMetaView>>,
  Assert<Equal<FileTreeResponse, Viewer.FileTreeEntryView[]>>,
  Assert<Equal<FileTreeNodeResponse, Viewer.FileTreeNodeView>>,
  Assert<Equal<FileContentResponse, Viewer.FileContentView>>,
  Assert<Equal<SnapshotDiffResponse, Viewer.SnapshotDiffView>>,
  Assert<Equal<FileDiffResponse, Viewer.FileDiffView>>,
  Assert<Equal<SliceDiffResponse, Viewer.SliceDiffView>>,
  Assert<Equal<SearchResponse, Viewer.SearchView>>,
  Assert<Equal<TimelineChangesResponse, Viewer.TimelineChangesView>>,
  Assert<Equal<ToolCallFileDiffResponse, Viewer.ToolCallFileDiffView>>,
  Assert<Equal<MetaResponse, Viewer.SnapshotMetaView | Bundle.BundleMetaView>>,
  Assert<Equal<BundleMetaResponse, Bundle.BundleMetaView>>,
  Assert<Equal<LogPageResponse, Bundle.LogPageView>>,
  Assert<Equal<LogFacetsResponse, Bundle.LogFacetsView>>,
  Assert<Equal<TranscriptPageResponse, Bundle.TranscriptPageView>>,
  Assert<Equal<TranscriptFacetsResponse, Bundle.TranscriptFacetsView>>,
  Assert<Equal<EnvironmentResponse, Bundle.EnvironmentView>>,
  Assert<Equal<BundleFileResponse, Bundle.BundleFileView>>,
  Assert<Equal<BundleIntegrityResponse, Bundle.BundleIntegrityView>>,
  Assert<Equal<BundleSummaryResponse, Bundle.BundleSummaryView>>,
  Assert<Equal<BundleListResponse, Bundle.BundleListItemView[]>>,
  Assert<Equal<BundleGroupsResponse, Bundle.BundleGroupView[]>>,
  Assert<Equal<BundleCompareResponse, Bundle.BundleCompareView>>,
  Assert<Equal<BundleSearchResponse, Bundle.BundleSearchView>>,
  Assert<Equal<DiffStatResponse, Viewer.DiffStatView>>,
  Assert<Equal<RunListResponse, Viewer.RunListView>>,
  Assert<Equal<RunResponse, Viewer.RunView>>,
  Assert<Equal<RunSearchResponse, Viewer.RunSearchView>>,
];
