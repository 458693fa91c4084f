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

// What web/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export type { ArchiveCatalog } from "./catalog.js";
export { checkManifest, readArchiveCatalog, withArchivePath } from "./catalog.js";
export type { CentralEntry, ReadRange } from "./central-directory.js";
export { corrupt, memoryRange } from "./central-directory.js";
export { checkEntryLimits, checkInflated, inflatedTooMuch, locateEntry } from "./entry-checks.js";
export { CENTRAL_HEADER_SIZE, EOCD_SIZE, LOCAL_HEADER_SIZE, METHOD_DEFLATE, METHOD_STORED, SIG_CENTRAL_HEADER, SIG_EOCD, SIG_LOCAL_HEADER, U32_MAX } from "./zip-format.js";
