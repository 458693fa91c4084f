// Public API of shared/archive (re-exported by shared/index.ts): the browser-safe part plus
// the Node reader, writer and importer.
export * from "./browser.js";
export { ArchiveReader, openArchive, openArchiveSource } from "./reader.node.js";
export type { ArchiveByteSource, ArchiveFileEntry, ArchiveVariant, ManifestCheck, OpenArchiveOptions, OpenArchiveSourceOptions, ReadFileOptions } from "./reader.node.js";
export { DEFAULT_COMPRESSION_LEVEL, writeArchive } from "./writer.node.js";
export type { ArchiveSourceEntry, WriteArchiveOptions } from "./writer.node.js";
export { extractArchive } from "./extract.node.js";
export type { ExtractArchiveOptions } from "./extract.node.js";
