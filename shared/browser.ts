/**
 * The browser-safe part of the public API (every name here is also exported by index.ts):
 * errors, paths and globs, archive entry rules, session file parsing, snapshot diffs and
 * search, debug bundles. Type-checked without Node types (web/tsconfig.json), so a Node
 * import here fails the build.
 */
export { ArchiveError, BackendUnavailableError, DirectoryNotEmptyError, ERROR_CODES, FileExistsError, FileNotFoundError, FilesystemError, InvalidArgumentError, IsADirectoryError, NoSpaceError, NotADirectoryError, OperationTimeoutError, PermissionDeniedError, SessionLoadError, SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError, SourceError, StorageIOError, SymlinkLoopError, WinkError, hasErrorCode } from "./errors.js";
export type * from "./errors.js";
export { isWithin, joinPath, normalizePath, validatePath } from "./filesystem/paths.js";
export type * from "./filesystem/paths.js";
export { GLOB_SYNTAXES, globMatcher } from "./filesystem/glob.js";
export type * from "./filesystem/glob.js";
export { DEFAULT_ARCHIVE_LIMITS, FILES_PREFIX, MANIFEST_NAME, MANIFEST_VERSION, WINK_METADATA_NAME, diffArchives, parseManifest, validateEntryName } from "./archive/browser.js";
export type * from "./archive/browser.js";
export { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_LINE_BYTES, FILESYSTEM_SNAPSHOT_REF_TYPE, LazyJsonArray, SNAPSHOT_SCHEMA_VERSION, Session, buildSessionTree, dumpsPython, extractVirtualFiles, findFilesystemSnapshotRef, parseJsonLinesText, parsePythonJson, parsePythonJsonLossless, parseSessionText, pythonIsoTimestamp, strictJsonChunks, toStrictJson } from "./session/browser.js";
export type * from "./session/browser.js";
export { buildTimeline, diffText, diffWorkspaces, searchSnapshot } from "./viewer/index.js";
export type * from "./viewer/index.js";
export { BUNDLE_MEMBERS, DEFAULT_DEBUG_BUNDLE_LIMITS, DebugBundle, compareBundles, groupBundles, looksLikeDebugBundle, parseBundleManifest, searchBundles } from "./debug-bundle/index.js";
export type * from "./debug-bundle/index.js";
export { readToolCallChanges } from "./undo/browser.js";
export type * from "./undo/browser.js";
