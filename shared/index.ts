/**
 * wink-debug/shared — the library agents (and the viewer) are built on.
 *
 * protocol → backends → archives and snapshots → undo → tool handlers → session files;
 * sources (local folders, HTTP and S3 stores read by ranges) beside them.
 *
 * The public API, listed name by name on purpose: what a user of the agent library needs.
 * The viewer's model (its views of runs, timelines, diffs and bundles, and the computations
 * that make them) is `wink-debug/viewer` (`viewer-model.ts`): an agent builder never needs it.
 * Helpers the modules share (staging prefixes, line decoders, encoders, the viewer's page
 * builders) stay internal; server/ and web/ import them from their module paths. Types
 * likewise: the Filesystem protocol and its drivers' contract, errors, the options and results
 * of the functions and classes exported here, the session shapes. `index.test.ts` snapshots
 * the lists, so an API change shows up in review.
 */
// Errors: one class per condition, each with a stable code (docs/errors.md).
export { ArchiveError, BackendUnavailableError, DirectoryNotEmptyError, ERROR_CODES, FileExistsError, FileNotFoundError, FilesystemError, InvalidArgumentError, IsADirectoryError, NoSpaceError, NotADirectoryError, OperationTimeoutError, PermissionDeniedError, SessionLoadError, SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError, SourceError, StorageIOError, SymlinkLoopError, WinkError, hasErrorCode } from "./errors.js";
export type { ArchiveErrorCode, ErrorCode, ErrorData, SerializedError, SnapshotErrorCode, SourceErrorCode } from "./errors.js";
// The Filesystem protocol's backends, their limits, paths and globs (docs/filesystem.md).
export { HostFilesystem, InMemoryFilesystem, PodmanFilesystem, Podman, READ_ENTIRE_FILE, DEFAULT_FILESYSTEM_LIMITS, DEFAULT_READ_LIMIT, MAX_GREP_MATCHES, GLOB_SYNTAXES, globMatcher, normalizePath, joinPath, validatePath, isWithin, recoverTreeChanges, reapOrphanedContainers } from "./filesystem/index.js";
export type { ArchiveSummary, ByteReader, ByteWriter, ContainerExecOptions, ContainerExecResult, DeleteOptions, DriverEntry, DriverStat, DriverWriteOptions, EntryKind, ExecTransportKind, ExportArchiveOptions, FileEntry, FileSink, FileStat, Filesystem, FilesystemDriver, FilesystemLimits, GlobMatch, GlobMatcher, GlobOptions, GlobSyntax, GrepCandidatesQuery, GrepMatch, GrepOptions, HostFilesystemOptions, ImportArchiveOptions, InMemoryFilesystemOptions, MkdirOptions, PathLimits, PodmanContainerOptions, PodmanFilesystemOptions, PodmanOptions, ReadBytesOptions, ReadBytesResult, ReadOptions, ReadResult, ResolveOptions, TextReader, TreeRecoveryResult, TreeTransaction, WalkEntry, WorkspaceMount, WriteMode, WriteOptions, WriteResult } from "./filesystem/index.js";
// `.fs.zip` archives: write, open, extract, compare (docs/archive-format.md).
export { writeArchive, openArchive, openArchiveSource, extractArchive, diffArchives, ArchiveReader, DEFAULT_ARCHIVE_LIMITS, DEFAULT_COMPRESSION_LEVEL, MANIFEST_NAME, MANIFEST_VERSION, FILES_PREFIX, WINK_METADATA_NAME, parseManifest, validateEntryName } from "./archive/index.js";
export type { ArchiveByteSource, ArchiveFileEntry, ArchiveFileList, ArchiveLimits, ArchiveManifest, ArchiveSourceEntry, ArchiveVariant, EntryName, EntryNameLimits, ExtractArchiveOptions, ManifestFileRecord, OpenArchiveOptions, OpenArchiveSourceOptions, ReadFileOptions, WriteArchiveOptions } from "./archive/index.js";
// Snapshots of a workspace: host strategies, archive-backed snapshots, retention.
export { HostSnapshots, HOST_SNAPSHOT_STRATEGIES, detectHostSnapshotStrategy, ArchiveSnapshotManager, DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, exportArchiveAtomically, isSnapshotable, isSnapshotRecord, releaseSnapshotStorage, SnapshotStore } from "./snapshots/index.js";
export type { FilesystemDiff, FilesystemSnapshot, HostRestoreOptions, HostSnapshotOptions, HostSnapshotStrategyName, OperationStats, PruneSelectionOptions, SnapshotBackend, SnapshotInfo, SnapshotOptions, SnapshotReleaser, SnapshotRetentionPolicy, SnapshotStoreOptions, SnapshotableFilesystem } from "./snapshots/index.js";
// Undo: tool calls recorded with their changes, read back, served over ACP (docs/undo.md).
export { UndoStore, CapturingFilesystem, invokeToolWithUndo, WorkspaceChangeTracker, readToolCallChanges, readToolCallChangesFromStore, AcpUndoHandler, serveAcpUndoStdio, undoSessionCapabilities, ACP_PROTOCOL_VERSION, UNDO_STATE_DIR_NAME } from "./undo/index.js";
export type { AcpStdioOptions, AcpUndoHandlerOptions, BodyLoader, CaptureBinding, ChangeTrackingStrategy, FileChangeKind, FileSide, JsonRpcError, JsonRpcId, JsonRpcNotification, JsonRpcResponse, MutationIntent, ReadToolCallChangesOptions, RegisterOptions, RestoreResult, ToolCallChanges, ToolCallChangesResult, ToolCallFileChange, ToolCallOptions, TrackOptions, TurnRestoreResult, UndoBackend, UndoEntry, UndoManifest, UndoPathState, UndoSnapshotInfo, UndoSnapshotKind, UndoStoreOptions, WorkspaceChanges } from "./undo/index.js";
// Agent tools over a Filesystem.
export { FILESYSTEM_TOOLS, readFileTool, writeFileTool, editFileTool, rmTool, lsTool, globTool, grepTool, createShellTool, defineTool, ok, fail } from "./tools/index.js";
export type { CommandRunner, EditFileValue, GlobValue, GrepValue, LsEntry, ReadFileValue, RmValue, ShellParams, ShellToolOptions, ShellValue, ToolContext, ToolDefinition, ToolParametersSchema, ToolResult, ToolSpec, WriteFileValue } from "./tools/index.js";
// Workspaces: a filesystem with mounts, in memory, on the host or in a container.
export { Workspace, InMemoryWorkspace, HostWorkspace, ContainerWorkspace, PodmanSandbox, hydrateHostMounts, reapOrphanedSandboxes, DEFAULT_MOUNT_MAX_BYTES } from "./workspace/index.js";
export type { ContainerWorkspaceOptions, ExportSnapshotOptions, FilesystemSnapshotRef, HostMountConfig, HostWorkspaceOptions, HydrateOptions, MountSummary, PodmanSandboxOptions, SandboxSnapshotStrategy, WorkspaceOptions } from "./workspace/index.js";
// Session files: the writer, the readers, Python-compatible JSON (docs/session-format.md).
export { Session, dumpSession, dumpSessionTree, dumpsPython, pythonIsoTimestamp, parsePythonJson, parsePythonJsonLossless, toStrictJson, strictJsonChunks, readSessionFile, scanSessionFile, readSnapshotAt, parseSessionText, parseJsonLinesText, readJsonLinesFile, buildSessionTree, findFilesystemSnapshotRef, extractVirtualFiles, snapshotWithFilesystem, restoreWithFilesystem, rollbackWithFilesystem, LazyJsonArray, FILESYSTEM_SNAPSHOT_REF_TYPE, SNAPSHOT_SCHEMA_VERSION, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_JSON_DEPTH } from "./session/index.js";
export type { ArchiveExporter, CoordinatedSnapshot, CoordinatedSnapshotOptions, DumpSessionOptions, DumpSessionTreeOptions, DumpsPythonOptions, FilesystemSnapshotRefInfo, JsonArray, JsonLineRecord, JsonLineResult, JsonLinesContents, JsonObject, JsonValue, NativeSnapshotTarget, PythonJsonParseOptions, ReadSnapshotAtOptions, SessionFileContents, SessionFileIndex, SessionIndexEntry, SessionLineError, SessionLineErrorKind, SessionOpenOptions, SessionOptions, SessionReadOptions, SessionScanOptions, SessionSlice, SessionSnapshot, SessionTree, SessionTreeInput, SessionTreeNode, SliceHeader, SliceKind, SliceWriteOptions, SnapshotEnvelope, SnapshotLineResult, StrictJsonChunkOptions, StrictJsonOptions, VirtualFile } from "./session/index.js";
// Sources: local folders, HTTP and S3 stores read by ranges (docs/remote-sources.md).
export { openSource, isRemoteTarget, redactUrl, Source, RandomAccessReader, RangeCache, LineIndex, INDEX_FILE_NAME, renderIndexFile, parseIndexFile, DEFAULT_RANGE_CACHE_BYTES, DEFAULT_RETRY_POLICY } from "./remote/index.js";
export type { ByteRange, CallOptions, DriverBody, DriverCapabilities, DriverListOptions, DriverReadOptions, DriverStatOptions, LineIndexOptions, LineSpan, ListPage, ObjectInfo, OpenSourceOptions, SkippedFolder, RangeCacheOptions, RangeRead, RangeStream, ReaderOptions, RetryPolicy, S3Credentials, SourceDriver, SourceListOptions, SourceOptions, SourceReadOptions, SourceStats } from "./remote/index.js";
// WINK debug bundles.
export { DebugBundle, looksLikeDebugBundle, parseBundleManifest, DEFAULT_DEBUG_BUNDLE_LIMITS, BUNDLE_MEMBERS } from "./debug-bundle/index.js";
export type { BundleManifest, BundleMemberName, BundleSession, BundleSessionEntry, BundleStatus, DebugBundleLimits, LogQuery, OpenDebugBundleOptions, ParsedBundleManifest, TranscriptQuery } from "./debug-bundle/index.js";
