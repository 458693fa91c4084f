// The browser-safe part of shared/archive (re-exported by shared/browser.ts): entry-name
// rules, manifest parsing/building, limits and index diffs. No Node built-ins.
export * from "../filesystem/archive-limits.js";
export { FILES_PREFIX, checkRelativePath, decodeEntryName, findGitMetadataSegment, isGitMetadataSegment, toFilesEntryName, validateEntryName } from "./entry-names.js";
export type { EntryName, EntryNameLimits } from "./entry-names.js";
export { MANIFEST_NAME, MANIFEST_VERSION, WINK_METADATA_NAME, buildManifest, formatCreatedAt, parseManifest, serializeManifest } from "./manifest.js";
export type { ArchiveManifest, ManifestFileRecord, ManifestInput, ManifestSource } from "./manifest.js";
export { diffFileIndexes } from "./index-diff.js";
export type { FileIndexEntry } from "./index-diff.js";
export { diffArchives } from "./archive-diff.js";
export type { ArchiveFileList } from "./archive-diff.js";
export { sanitizeMode } from "./zip-format.js";
