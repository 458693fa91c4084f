// Public API of shared/viewer: the computation behind every viewer route, browser-safe
// (re-exported by shared/index.ts and shared/browser.ts).
export type * from "./types.js";
export type { FileSource, FileIndexEntry, FileStream } from "./file-source.js";
export { virtualFileSource } from "./file-source.js";
export { MARKDOWN_KEY, MAX_MARKDOWN_CHARS, looksLikeMarkdown, isSafeLink, renderMarkdown, enrichMarkdown } from "./markdown.js";
export { MAX_PRETTY_DEPTH, prettyJson } from "./json-text.js";
export type { EntryRange, IndexedSnapshotLine, SlicePageOptions } from "./snapshot-view.js";
export { validationErrorText, snapshotMeta, snapshotEntries, snapshotEntriesJson, lazySnapshotEntries, slicePage, lazySlicePage, slicePageLength } from "./snapshot-view.js";
export type { SessionFileInput, SessionFilePage } from "./session-list.js";
export { DEFAULT_LISTED_ERRORS, DEFAULT_LISTED_SESSIONS, lineErrorView, sessionFileView } from "./session-list.js";
export type { TimelineInput } from "./timeline.js";
export { buildTimeline, compareTimes, keyArgument, sessionEvents } from "./timeline.js";
export type { DerivedTurns } from "./turns.js";
export { deriveTurns, opensTurn, turnAt } from "./turns.js";
export { buildRun, buildRunSliced, buildSessionListsSliced, isOtherJsonDocument, latestLines, latestLinesSliced, placeholderRunSummary, runLinesOf, runSummary } from "./run-model.js";
export type { RunInput, RunLines, RunLineShape, RunSessionLists } from "./run-model.js";
export { RUN_FAILURE_LIMIT, RUN_FAILURE_PAGE_LIMIT, RUN_LIST_BUDGET, RUN_LIST_FLOOR, RUN_LIST_LIMIT, RUN_SESSION_PAGE_LIMIT, boundedRun, runFailurePage, runSessionPage, sessionListsPage } from "./run-bounds.js";
export { MAX_TEMPLATE_CHARS, MAX_TEMPLATED_CHARS, PLACEHOLDERS, callSignature, messageTemplate, runErrorSignature } from "./failure-signature.js";
export type { FailureReportOptions } from "./failure-groups.js";
export { MAX_GROUP_ARGUMENTS, failureReport, failureSignature, groupFailures, notLoadedDigest, reportSignatures, runDigest } from "./failure-groups.js";
export type { RunPage, RunPageQuery } from "./run-page.js";
export { pageOfRuns, timeBound } from "./run-page.js";
export type { LandingProbe } from "./landing-run.js";
export { LANDING_LOOKAHEAD_RUNS, landingRun } from "./landing-run.js";
export type { RunSearchOptions, RunSearchSession } from "./run-search.js";
export { searchRun } from "./run-search.js";
export type { TextMatch, TextMatcher } from "./text-matcher.js";
export { createMatcher } from "./text-matcher.js";
export type { ChunkCounts } from "./similarity.js";
export { MAX_SCORE, chunkCounts, similarityScore, scorePercent, percentScore } from "./similarity.js";
export type { RenameOptions } from "./rename-detection.js";
export { detectRenames } from "./rename-detection.js";
export type { DiffStatOptions, LineCounter, LineCounts } from "./diff-stat.js";
export { countChangedLines, diffStats } from "./diff-stat.js";
export type { FileContentOptions } from "./file-content.js";
export { MAX_VIEW_BYTES, imageMimeType, decodeText, fileContent, splitLinesKeepEnds, countLines, toBase64 } from "./file-content.js";
export { flatFileTree, flatFileTreeJson, buildFileTree } from "./file-tree.js";
export type { TextDiffOptions, TextDiffResult } from "./text-diff.js";
export { diffText, replacementHunk, toHunkView } from "./text-diff.js";
export type { IndexedSource, FileDiffOptions, FileDiffPlan, SliceDiffOptions, DiffSides } from "./snapshot-diff.js";
export { diffFileContents, diffFileLists, diffWorkspaces, diffSourceFile, diffSliceSummaries, diffSlice, planFileDiff, readFileDiffContents } from "./snapshot-diff.js";
export type { SearchOptions } from "./search.js";
export { searchSnapshot } from "./search.js";
export type { ArchiveCandidates } from "./workspace-archives.js";
export { archiveCandidates, archiveFileName, adjacentArchiveName } from "./workspace-archives.js";
export type { ToolCallDiffContext, ToolCallDiffOptions } from "./tool-call-changes.js";
export { timelineChanges, snapshotAfter, toolCallFileDiff } from "./tool-call-changes.js";
export type { ArchiveManifestRead, ArchiveManifestSummaryView, FilesystemMetaInput } from "./filesystem-meta.js";
export { archiveManifestSummary, filesystemMetaView } from "./filesystem-meta.js";

// What server/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export type { ServerErrorCode } from "./server-errors.js";
export { SERVER_ERROR_CODES, ServerError, badRequest, notFound } from "./server-errors.js";
export type { ResolvedWorkspace } from "./workspace-resolve.js";
export { bundleWorkspace, resolveWorkspace, workspaceMetaView } from "./workspace-resolve.js";

// What web/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export { crc32 } from "./crc32.js";
export type { UnifiedDiffFile } from "./unified-diff.js";
export { parseUnifiedDiff } from "./unified-diff.js";

// What web/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export type { RunView } from "./types.js";
export type { AlignableCall, AlignmentKind, AlignmentRow, CallAlignment } from "./call-alignment.js";
export { MAX_ALIGNMENT_CELLS, alignCalls } from "./call-alignment.js";
export type { EvalDigest, EvalOverview, EvalPlace } from "./eval-summary.js";
export { evalSummary, failureOccurrences, placeFromPath, summaryOf } from "./eval-summary.js";
export type { EvalFilter } from "./eval-runs.js";
export { EVAL_RUN_PAGE, evalRunPage, filterRuns } from "./eval-runs.js";
export type { OutcomeFigures } from "./outcome-text.js";
export { outcomeText } from "./outcome-text.js";
export type { RunIndexRow, RunIndexRowKind } from "./run-index-rows.js";
export { RUN_INDEX_FORMAT, RUN_INDEX_VERSION, epochMicros, runIndexRows } from "./run-index-rows.js";
