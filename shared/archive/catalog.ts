/**
 * The archive-level half of the archive policy: what is checked when an archive is opened,
 * before any entry is read, by every reader (the server's reader and import in Node, the
 * in-browser reader). Browser-safe: bytes come through a `ReadRange`.
 *
 * Opening reads the central directory and checks every record (`central-directory.ts`),
 * refuses duplicates and file/directory conflicts, checks that no entry's data can overlap
 * the next one's header (a lower bound; import and reads check the exact ranges), and sorts
 * the entries into their layout (`layout.ts`). A defect here refuses the whole archive;
 * defects of one entry's data (limits, local header, data descriptor, CRC) refuse that entry
 * when it is read (`entry-checks.ts`), and import reads every entry first.
 */
import { ArchiveError, type ArchiveErrorCode } from "../errors.js";
import { comparePaths, displayPath } from "../filesystem/paths.js";
import { readCentralDirectory, type CentralEntry, type ReadRange } from "./central-directory.js";
import { FILES_PREFIX } from "./entry-names.js";
import { checkOverlaps, indexEntries, sortByOffset } from "./entry-set.js";
import { FileIndex } from "./file-index.js";
import { pickLayout, type ArchiveVariant } from "./layout.js";
import type { ArchiveLimits } from "../filesystem/archive-limits.js";
import { parseManifest, type ArchiveManifest, type ManifestSource } from "./manifest.js";
import { LOCAL_HEADER_SIZE } from "./zip-format.js";

/** An opened archive's validated structure. */
export interface ArchiveCatalog {
  readonly fileSize: number;
  /** Where entry data must end: the offset of the central directory. */
  readonly dataEnd: number;
  readonly variant: ArchiveVariant;
  /** The workspace files, in columns. */
  readonly index: FileIndex;
  /** The file the variant takes its manifest from. */
  readonly manifestName: ManifestSource;
  readonly manifestEntry: CentralEntry | null;
  /** Central records of the layout's directory entries. */
  readonly directoryEntries: readonly CentralEntry[];
  /** Workspace paths of the directory entries, sorted. */
  readonly explicitDirectories: readonly string[];
  /** Entries outside the layout: how many, and the first few names. */
  readonly ignoredCount: number;
  readonly ignored: readonly string[];
}

/** Read and check an archive's central directory and layout (see the module comment). */
export async function readArchiveCatalog(read: ReadRange, fileSize: number, limits: ArchiveLimits): Promise<ArchiveCatalog> {
  const directory = await readCentralDirectory(read, fileSize, limits);
  const byPath = indexEntries(directory.entries);
  checkOverlaps(sortByOffset(directory.entries), (e) => e.localHeaderOffset + LOCAL_HEADER_SIZE + e.nameLength + e.compressedSize, directory.offset);
  const layout = pickLayout(directory.entries, byPath);
  return {
    fileSize,
    dataEnd: directory.offset,
    variant: layout.variant,
    index: new FileIndex(layout.files, layout.prefix),
    manifestName: layout.manifestName,
    manifestEntry: layout.manifestEntry,
    directoryEntries: layout.directoryEntries,
    explicitDirectories: layout.directories.sort(comparePaths),
    ignoredCount: layout.ignored.length,
    ignored: layout.ignored.slice(0, 5),
  };
}

/** The manifest of an archive, checked against the archive's files. */
export interface ManifestCheck {
  /** The validated manifest (`manifest.json` or `_wink_metadata.json`), or null when the archive has none. */
  readonly manifest: ArchiveManifest | null;
  /** Things a viewer may show: missing manifest, counts that disagree, ignored entries. */
  readonly warnings: readonly string[];
  /** Directories the archive records explicitly (directory entries and the manifest's `directories`), sorted. */
  readonly directories: readonly string[];
}

function manifestWarnings(manifest: ArchiveManifest, index: FileIndex): string[] {
  const warnings: string[] = [];
  let totalBytes = 0;
  for (let i = 0; i < index.count; i++) totalBytes += index.size(i);
  if (manifest.fileCount !== index.count) warnings.push(`${manifest.source} says ${manifest.fileCount} files, the archive holds ${index.count}`);
  if (manifest.totalBytes !== totalBytes) warnings.push(`${manifest.source} says ${manifest.totalBytes} bytes, the archive's files hold ${totalBytes}`);
  for (const record of manifest.files ?? []) {
    const at = index.indexOf(record.path);
    if (at === -1) warnings.push(`${manifest.source} lists ${displayPath(record.path)}, which the archive does not hold`);
    else if (index.size(at) !== record.sizeBytes) warnings.push(`${manifest.source} lists ${displayPath(record.path)} with ${record.sizeBytes} bytes, the archive holds ${index.size(at)}`);
  }
  return warnings;
}

/** Refuse manifest directories that are, or lie below, a file of the archive. */
function checkManifestDirectories(manifest: ArchiveManifest, index: FileIndex): void {
  for (const directory of manifest.directories ?? []) {
    for (let end = directory.length; end > 0; end = directory.lastIndexOf("/", end - 1)) {
      const at = index.indexOf(directory.slice(0, end));
      if (at !== -1) {
        const entryName = index.prefix + directory.slice(0, end);
        throw new ArchiveError("E_ARCHIVE_MANIFEST", `Invalid ${manifest.source}: directory ${displayPath(directory)} conflicts with file ${displayPath(entryName)}`, {
          entry: manifest.source,
          field: "directories",
          conflictsWith: entryName,
        });
      }
    }
  }
}

/**
 * The manifest check of a catalog, given the manifest's bytes (null when the archive has
 * none). Refuses (`E_ARCHIVE_MANIFEST`) a manifest that is invalid or whose `directories`
 * clash with files; counts that disagree are warnings.
 */
export function checkManifest(catalog: ArchiveCatalog, bytes: Uint8Array | null, limits: ArchiveLimits): ManifestCheck {
  const warnings: string[] = [];
  let manifest: ArchiveManifest | null = null;
  if (bytes === null) warnings.push(`Archive has no ${catalog.manifestName}`);
  else {
    manifest = parseManifest(bytes, catalog.manifestName, limits);
    checkManifestDirectories(manifest, catalog.index);
    warnings.push(...manifestWarnings(manifest, catalog.index));
  }
  if (catalog.ignoredCount > 0) {
    const shown = catalog.ignored.map(displayPath).join(", ");
    warnings.push(`Ignored ${catalog.ignoredCount} entr${catalog.ignoredCount === 1 ? "y" : "ies"} outside ${FILES_PREFIX}: ${shown}${catalog.ignoredCount > 5 ? ", …" : ""}`);
  }
  const directories = manifest?.directories?.length ? [...new Set([...catalog.explicitDirectories, ...manifest.directories])].sort(comparePaths) : catalog.explicitDirectories;
  return { manifest, warnings, directories };
}

/** `error` with `data.archive` set when it is an ArchiveError that does not name its archive yet. */
export function withArchivePath(error: unknown, archivePath: string): unknown {
  if (!(error instanceof ArchiveError) || typeof error.data.archive === "string") return error;
  return new ArchiveError(error.code as ArchiveErrorCode, error.message, { ...error.data, archive: archivePath }, { cause: error });
}
