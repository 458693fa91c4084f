/**
 * wink-debug/shared — the library agents and the viewer are built on.
 *
 * protocol → backends → archives and snapshots → undo → tool handlers → session files;
 * sources (local folders, HTTP and S3 stores read by ranges) beside them.
 *
 * The public API, listed name by name on purpose: what a user of the library needs. Helpers
 * the modules share (staging prefixes, line decoders, encoders, the viewer's page builders)
 * stay internal; server/ and web/ import them from their module paths. Types are re-exported
 * whole (`export type *`): they cost nothing at run time. `index.test.ts` snapshots the list,
 * so an API change shows up in review.
 */
// Errors: one class per condition, each with a stable code (docs/errors.md).
export { ArchiveError, BackendUnavailableError, DirectoryNotEmptyError, ERROR_CODES, FileExistsError, FileNotFoundError, FilesystemError, InvalidArgumentError, IsADirectoryError, NoSpaceError, NotADirectoryError, OperationTimeoutError, PermissionDeniedError, SessionLoadError, SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError, SourceError, StorageIOError, SymlinkLoopError, WinkError, hasErrorCode } from "./errors.js";
export type * from "./errors.js";
// The Filesystem protocol's backends, their limits, paths and globs (docs/filesystem.md).
export { HostFilesystem, InMemoryFilesystem, PodmanFilesystem, Podman, READ_ENTIRE_FILE, DEFAULT_FILESYSTEM_LIMITS, DEFAULT_READ_LIMIT, MAX_GREP_MATCHES, GLOB_SYNTAXES, globMatcher, normalizePath, joinPath, validatePath, isWithin, recoverTreeChanges, reapOrphanedContainers } from "./filesystem/index.js";
export type * from "./filesystem/index.js";
// `.fs.zip` archives: write, open, extract, compare (docs/archive-format.md).
export { writeArchive, openArchive, openArchiveSource, extractArchive, diffArchives, ArchiveReader, DEFAULT_ARCHIVE_LIMITS, DEFAULT_COMPRESSION_LEVEL, MANIFEST_NAME, MANIFEST_VERSION, FILES_PREFIX, WINK_METADATA_NAME, parseManifest, validateEntryName } from "./archive/index.js";
export type * from "./archive/index.js";
// Snapshots of a workspace: host strategies, archive-backed snapshots, retention.
export { HostSnapshots, HOST_SNAPSHOT_STRATEGIES, detectHostSnapshotStrategy, ArchiveSnapshotManager, DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, exportArchiveAtomically, isSnapshotable, isSnapshotRecord, releaseSnapshotStorage } from "./snapshots/index.js";
export type * from "./snapshots/index.js";
// Undo: tool calls recorded with their changes, read back, served over ACP (docs/undo.md).
export { UndoStore, CapturingFilesystem, invokeToolWithUndo, WorkspaceChangeTracker, readToolCallChanges, readToolCallChangesFromStore, AcpUndoHandler, serveAcpUndoStdio, undoSessionCapabilities, ACP_PROTOCOL_VERSION, UNDO_STATE_DIR_NAME } from "./undo/index.js";
export type * from "./undo/index.js";
// Agent tools over a Filesystem.
export { FILESYSTEM_TOOLS, readFileTool, writeFileTool, editFileTool, rmTool, lsTool, globTool, grepTool, createShellTool, defineTool, ok, fail } from "./tools/index.js";
export type * from "./tools/index.js";
// Workspaces: a filesystem with mounts, in memory, on the host or in a container.
export { Workspace, InMemoryWorkspace, HostWorkspace, ContainerWorkspace, PodmanSandbox, hydrateHostMounts, reapOrphanedSandboxes, DEFAULT_MOUNT_MAX_BYTES } from "./workspace/index.js";
export type * from "./workspace/index.js";
// Session files: the writer, the readers, Python-compatible JSON (docs/session-format.md).
export { Session, dumpSession, dumpSessionTree, dumpsPython, pythonIsoTimestamp, parsePythonJson, parsePythonJsonLossless, toStrictJson, strictJsonChunks, readSessionFile, scanSessionFile, readSnapshotAt, parseSessionText, parseJsonLinesText, readJsonLinesFile, buildSessionTree, findFilesystemSnapshotRef, extractVirtualFiles, snapshotWithFilesystem, restoreWithFilesystem, rollbackWithFilesystem, LazyJsonArray, FILESYSTEM_SNAPSHOT_REF_TYPE, SNAPSHOT_SCHEMA_VERSION, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_JSON_DEPTH } from "./session/index.js";
export type * from "./session/index.js";
// Comparing and searching snapshots (the rest of the viewer model is the server's and the web's, imported from shared/viewer).
export { diffWorkspaces, diffText, searchSnapshot, buildTimeline } from "./viewer/index.js";
export type * from "./viewer/index.js";
// Sources: local folders, HTTP and S3 stores read by ranges (docs/remote-sources.md).
export { openSource, isRemoteTarget, redactUrl, Source, RandomAccessReader, RangeCache, LineIndex, INDEX_FILE_NAME, renderIndexFile, parseIndexFile, DEFAULT_RANGE_CACHE_BYTES, DEFAULT_RETRY_POLICY } from "./remote/index.js";
export type * from "./remote/index.js";
// WINK debug bundles.
export { DebugBundle, looksLikeDebugBundle, parseBundleManifest, DEFAULT_DEBUG_BUNDLE_LIMITS, BUNDLE_MEMBERS, groupBundles, compareBundles, searchBundles } from "./debug-bundle/index.js";
export type * from "./debug-bundle/index.js";
