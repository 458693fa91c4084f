// Public API of shared/viewer: the computation behind every viewer route, browser-safe
// (re-exported by shared/index.ts and shared/browser.ts).
export type * from "./types.js";
export type { FileSource, FileIndexEntry } from "./file-source.js";
export { virtualFileSource } from "./file-source.js";
export { MARKDOWN_KEY, MAX_MARKDOWN_CHARS, looksLikeMarkdown, isSafeLink, renderMarkdown, enrichMarkdown } from "./markdown.js";
export { MAX_PRETTY_DEPTH, prettyJson } from "./json-text.js";
export type { IndexedSnapshotLine, SlicePageOptions } from "./snapshot-view.js";
export { validationErrorText, snapshotMeta, snapshotEntries, slicePage, lazySlicePage, slicePageLength } from "./snapshot-view.js";
export type { SessionFileInput } from "./session-list.js";
export { lineErrorView, sessionFileView } from "./session-list.js";
export type { TimelineInput } from "./timeline.js";
export { buildTimeline, compareTimes } from "./timeline.js";
export type { FileContentOptions } from "./file-content.js";
export { MAX_VIEW_BYTES, imageMimeType, decodeText, fileContent, splitLinesKeepEnds, countLines, toBase64 } from "./file-content.js";
export { flatFileTree, flatFileTreeJson, buildFileTree } from "./file-tree.js";
export type { TextDiffOptions, TextDiffResult } from "./text-diff.js";
export { diffText, replacementHunk, toHunkView } from "./text-diff.js";
export type { IndexedSource, FileDiffOptions, SliceDiffOptions } from "./snapshot-diff.js";
export { diffFileLists, diffSourceFile, diffSliceSummaries, diffSlice } from "./snapshot-diff.js";
export type { SearchOptions } from "./search.js";
export { searchSnapshot } from "./search.js";
export type { ArchiveCandidates } from "./workspace-archives.js";
export { archiveCandidates, archiveFileName, adjacentArchiveName } from "./workspace-archives.js";
export type { ToolCallDiffContext, ToolCallDiffOptions } from "./tool-call-changes.js";
export { timelineChanges, snapshotAfter, toolCallFileDiff } from "./tool-call-changes.js";
export type { ArchiveManifestRead, ArchiveManifestSummaryView, FilesystemMetaInput } from "./filesystem-meta.js";
export { archiveManifestSummary, filesystemMetaView } from "./filesystem-meta.js";
