/**
 * The browser-safe part of the public API (every name here, type or value, is also exported
 * by index.ts): errors, paths and globs, archive entry rules, session file parsing, debug
 * bundles. Type-checked without Node types (web/tsconfig.json), so a Node import here fails
 * the build; the viewer's model (`viewer-model.ts`) is browser-safe as a whole.
 */
export { ArchiveError, BackendUnavailableError, DirectoryNotEmptyError, ERROR_CODES, FileExistsError, FileNotFoundError, FilesystemError, InvalidArgumentError, IsADirectoryError, NoSpaceError, NotADirectoryError, OperationTimeoutError, PermissionDeniedError, SessionLoadError, SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError, SourceError, StorageIOError, SymlinkLoopError, WinkError, hasErrorCode } from "./errors.js";
export type { ArchiveErrorCode, ErrorCode, ErrorData, SerializedError, SnapshotErrorCode, SourceErrorCode } from "./errors.js";
export { isWithin, joinPath, normalizePath, validatePath } from "./filesystem/paths.js";
export type { PathLimits, ResolveOptions } from "./filesystem/paths.js";
export { GLOB_SYNTAXES, globMatcher } from "./filesystem/glob.js";
export type { GlobMatcher, GlobSyntax } from "./filesystem/glob.js";
export { DEFAULT_ARCHIVE_LIMITS, FILES_PREFIX, MANIFEST_NAME, MANIFEST_VERSION, WINK_METADATA_NAME, diffArchives, parseManifest, validateEntryName } from "./archive/browser.js";
export type { ArchiveFileList, ArchiveLimits, ArchiveManifest, EntryName, EntryNameLimits, ManifestFileRecord } from "./archive/browser.js";
export { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_LINE_BYTES, FILESYSTEM_SNAPSHOT_REF_TYPE, LazyJsonArray, SNAPSHOT_SCHEMA_VERSION, Session, buildSessionTree, dumpsPython, extractVirtualFiles, findFilesystemSnapshotRef, parseJsonLinesText, parsePythonJson, parsePythonJsonLossless, parseSessionText, pythonIsoTimestamp, strictJsonChunks, toStrictJson } from "./session/browser.js";
export type { DumpsPythonOptions, FilesystemSnapshotRefInfo, JsonArray, JsonLineRecord, JsonLineResult, JsonLinesContents, JsonObject, JsonValue, PythonJsonParseOptions, SessionFileContents, SessionLineError, SessionLineErrorKind, SessionOptions, SessionReadOptions, SessionSlice, SessionSnapshot, SessionTree, SessionTreeInput, SessionTreeNode, SliceHeader, SliceKind, SliceWriteOptions, SnapshotEnvelope, SnapshotLineResult, StrictJsonChunkOptions, StrictJsonOptions, VirtualFile } from "./session/browser.js";
export { BUNDLE_MEMBERS, DEFAULT_DEBUG_BUNDLE_LIMITS, DebugBundle, looksLikeDebugBundle, parseBundleManifest } from "./debug-bundle/index.js";
export type { BundleManifest, BundleMemberName, BundleSession, BundleSessionEntry, BundleStatus, DebugBundleLimits, LogQuery, OpenDebugBundleOptions, ParsedBundleManifest, TranscriptQuery } from "./debug-bundle/index.js";
export { readToolCallChanges } from "./undo/browser.js";
export type { BodyLoader, FileChangeKind, FileSide, ReadToolCallChangesOptions, ToolCallChanges, ToolCallChangesResult, ToolCallFileChange, UndoEntry, UndoManifest, UndoPathState, UndoSnapshotKind } from "./undo/browser.js";
