/**
 * wink-debug/viewer — the viewer's model, browser-safe: what the viewer shows of a run (its
 * timeline, snapshots, files, diffs and searches) and of WINK debug bundles (their summary,
 * logs, transcript, groups, comparisons, searches), as view types and the computations that
 * make them, and the viewer server's HTTP contract (its route table, `routeUrl` to build a
 * request, the live-reload events), so a client can ask a wink-debug server as the web app does.
 * Built on `wink-debug/shared`; `index.test.ts` snapshots the lists.
 */
export { diffWorkspaces, diffText, searchSnapshot, buildTimeline } from "./viewer/index.js";
export type { BrowseView, ChangeKind, DiffEngine, DiffStatView, EntryView, ErrorBodyView, FileChangeStatus, FileChangeView, FileContentView, FileDiffView, FileListView, FileSource, FileStatView, FileStream, FileTreeEntryView, FileTreeNodeView, FilesDiffView, FilesystemMetaView, FilesystemSourceKind, HunkView, LineErrorView, RenameDetectionView, RunErrorView, RunFailureView, RunListView, RunPanelView, RunSearchGroupView, RunSearchSkippedFileView, RunSearchView, RunSessionView, RunSnapshotView, RunSourceKind, RunSourceView, RunSpawnView, RunStatsView, RunStoreView, RunSummaryView, RunView, SearchHitView, SearchOptions, SearchSkippedFileView, SearchView, SessionFileView, SessionNodeView, SliceChangeStatus, SliceChangeView, SliceDiffView, SliceItemChangeView, SliceKindView, SlicePageView, SliceSummaryView, SnapshotDiffView, SnapshotFileView, SnapshotMetaView, SnapshotRefView, TextDiffOptions, TextDiffResult, TimelineArgumentView, TimelineChangesView, TimelineErrorSource, TimelineErrorView, TimelineEventKind, TimelineEventView, TimelineInput, TimelineView, ToolCallAfterSource, ToolCallChangeKind, ToolCallChangesView, ToolCallFileDiffView, ToolCallFileView, ToolCallSideView, ToolStatsView, TurnSourceView, TurnView, UndoPathKindView } from "./viewer/index.js";
export { groupBundles, compareBundles, searchBundles } from "./debug-bundle/index.js";
export type { BundleCompareView, BundleErrorView, BundleFileView, BundleGroupView, BundleIntegrityView, BundleListItemView, BundleMetaView, BundleRequestView, BundleSearchHitView, BundleSearchOptions, BundleSearchScope, BundleSearchView, BundleSessionLineView, BundleSummaryView, EnvironmentView, FacetCountView, LogEntryView, LogFacetsView, LogPageView, MetricComparisonView, TranscriptEntryView, TranscriptFacetsView, TranscriptPageView } from "./debug-bundle/index.js";
export { VIEWER_ROUTES, LIVE_EVENTS, routeUrl } from "./viewer/routes/index.js";
export type { ChangeNotice, LiveEventName, LiveEvents, RouteEntry, RouteInput, RouteResponse, ViewerRouteName, ViewerRoutes } from "./viewer/routes/index.js";
