// Public API of shared/archive (re-exported by shared/index.ts).
export * from "./limits.js";
export { FILES_PREFIX, checkRelativePath, decodeEntryName, findGitMetadataSegment, isGitMetadataSegment, toFilesEntryName, validateEntryName } from "./entry-names.js";
export type { EntryName, EntryNameLimits } from "./entry-names.js";
export { MANIFEST_NAME, MANIFEST_VERSION, WINK_METADATA_NAME, buildManifest, formatCreatedAt, parseManifest, serializeManifest } from "./manifest.js";
export type { ArchiveManifest, ManifestFileRecord, ManifestInput, ManifestSource } from "./manifest.js";
export { diffFileIndexes } from "./index-diff.js";
export type { FileIndexEntry } from "./index-diff.js";
export { diffArchives } from "./archive-diff.js";
export type { ArchiveFileList } from "./archive-diff.js";
export { sanitizeMode } from "./zip-format.js";
export { ArchiveReader, openArchive } from "./reader.node.js";
export type { ArchiveFileEntry, ArchiveVariant, OpenArchiveOptions, ReadFileOptions } from "./reader.node.js";
export { DEFAULT_COMPRESSION_LEVEL, writeArchive } from "./writer.node.js";
export type { ArchiveSourceEntry, WriteArchiveOptions } from "./writer.node.js";
export { extractArchive } from "./extract.node.js";
export type { ExtractArchiveOptions } from "./extract.node.js";
