/**
 * A lazy, validating reader of `.fs.zip` archives. Opening reads the central directory only
 * (plus `manifest.json`), validates every entry (names, duplicates, conflicts, overlaps,
 * methods, encryption, symlinks and special files, ZIP64 consistency) and keeps the file
 * open for `readFile`, which reads one entry with one positional read.
 *
 * Two layouts are read: the "files" variant (`manifest.json` + `files/<path>`) and the
 * "root-metadata" variant some WINK builds wrote (entries at the root + `_wink_metadata.json`).
 */
import { open, type FileHandle } from "node:fs/promises";
import { ArchiveError, FileNotFoundError, InvalidArgumentError, IsADirectoryError, type ArchiveErrorCode } from "../errors.js";
import { comparePaths, displayPath } from "../filesystem/paths.js";
import { readAt, readCentralDirectory, type CentralDirectory, type CentralEntry } from "./central-directory.node.js";
import { checkLocalHeader, localHeaderLength, locateData, readEntryData, streamEntryData } from "./entry-data.node.js";
import { FILES_PREFIX } from "./entry-names.js";
import { checkOverlaps, indexEntries, sortByOffset } from "./entry-set.js";
import { resolveArchiveLimits, type ArchiveLimits } from "./limits.js";
import { MANIFEST_NAME, WINK_METADATA_NAME, parseManifest, type ArchiveManifest, type ManifestSource } from "./manifest.js";
import { LOCAL_HEADER_SIZE } from "./zip-format.js";

/** "files": `manifest.json` + `files/…`; "root-metadata": root entries + `_wink_metadata.json`. */
export type ArchiveVariant = "files" | "root-metadata";

/** A file of the archive, as the central directory describes it. */
export interface ArchiveFileEntry {
  /** Path relative to the workspace root (no `files/` prefix). */
  readonly path: string;
  /** The entry's name in the archive. */
  readonly entryName: string;
  readonly size: number;
  readonly compressedSize: number;
  readonly crc32: number;
  /** Permission bits as stored (not yet sanitised), or null when the archive has none. */
  readonly mode: number | null;
  readonly mtimeMs: number | null;
}

export interface OpenArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  /** Refuse an archive without a manifest (import does). Default false: `manifest` is null and a warning says why. */
  requireManifest?: boolean;
}

export interface ReadFileOptions {
  /** Refuse entries declaring more bytes than this (default `limits.maxFileBytes`). */
  maxBytes?: number;
}

interface ReaderInternals {
  closed: boolean;
  readonly archivePath: string;
  readonly handle: FileHandle;
  readonly directory: CentralDirectory;
  /** Central entries of `files`, in the same order. */
  readonly fileEntries: readonly CentralEntry[];
  /** Entry name (without a directory's "/") → entry, for all entries. */
  readonly byName: ReadonlyMap<string, CentralEntry>;
  /** What `files` paths are prefixed with in entry names. */
  readonly prefix: string;
}

const internals = new WeakMap<ArchiveReader, ReaderInternals>();

/** The open state of a reader (for import); throws once it is closed. Not part of the public API. */
export function internalsOf(reader: ArchiveReader): ReaderInternals {
  const state = internals.get(reader) as ReaderInternals;
  if (state.closed) throw new InvalidArgumentError(`Archive is closed: ${displayPath(state.archivePath)}`, { archive: state.archivePath });
  return state;
}

/** Files and directories of one variant, with what was left out. */
interface Layout {
  variant: ArchiveVariant;
  manifestEntry: CentralEntry | null;
  files: CentralEntry[];
  directories: string[];
  ignored: string[];
  relative: (entry: CentralEntry) => string;
}

function pickLayout(entries: readonly CentralEntry[], byPath: ReadonlyMap<string, CentralEntry>): Layout {
  const asFile = (name: string): CentralEntry | null => {
    const entry = byPath.get(name);
    return entry !== undefined && !entry.isDirectory ? entry : null;
  };
  const manifest = asFile(MANIFEST_NAME);
  const metadata = asFile(WINK_METADATA_NAME);
  const filesPrefixed = entries.length > 0 && entries.every((e) => e.name.startsWith(FILES_PREFIX));
  const layout: Layout = { variant: "files", manifestEntry: manifest, files: [], directories: [], ignored: [], relative: (e) => e.path.slice(FILES_PREFIX.length) };
  if (manifest === null && (metadata !== null || (!filesPrefixed && entries.length > 0))) {
    layout.variant = "root-metadata";
    layout.manifestEntry = metadata;
    layout.relative = (e) => e.path;
  }
  for (const entry of entries) {
    if (entry === layout.manifestEntry) continue;
    if (layout.variant === "files" && !entry.name.startsWith(FILES_PREFIX)) {
      layout.ignored.push(entry.name);
      continue;
    }
    const path = layout.relative(entry);
    if (entry.isDirectory) {
      if (path !== "") layout.directories.push(path);
    } else layout.files.push(entry);
  }
  return layout;
}

function manifestWarnings(manifest: ArchiveManifest, files: readonly ArchiveFileEntry[], byRelative: ReadonlyMap<string, ArchiveFileEntry>): string[] {
  const warnings: string[] = [];
  let totalBytes = 0;
  for (const file of files) totalBytes += file.size;
  if (manifest.fileCount !== files.length) warnings.push(`${manifest.source} says ${manifest.fileCount} files, the archive holds ${files.length}`);
  if (manifest.totalBytes !== totalBytes) warnings.push(`${manifest.source} says ${manifest.totalBytes} bytes, the archive's files hold ${totalBytes}`);
  for (const record of manifest.files ?? []) {
    const file = byRelative.get(record.path);
    if (file === undefined) warnings.push(`${manifest.source} lists ${displayPath(record.path)}, which the archive does not hold`);
    else if (file.size !== record.sizeBytes) warnings.push(`${manifest.source} lists ${displayPath(record.path)} with ${record.sizeBytes} bytes, the archive holds ${file.size}`);
  }
  return warnings;
}

/** Refuse manifest directories that are, or lie below, a file of the archive. */
function checkManifestDirectories(manifest: ArchiveManifest, byRelative: ReadonlyMap<string, ArchiveFileEntry>): void {
  for (const directory of manifest.directories ?? []) {
    for (let end = directory.length; end > 0; end = directory.lastIndexOf("/", end - 1)) {
      const file = byRelative.get(directory.slice(0, end));
      if (file !== undefined) {
        throw new ArchiveError("E_ARCHIVE_MANIFEST", `Invalid ${manifest.source}: directory ${displayPath(directory)} conflicts with file ${displayPath(file.entryName)}`, {
          entry: manifest.source,
          field: "directories",
          conflictsWith: file.entryName,
        });
      }
    }
  }
}

/** `error` with `data.archive` set when it is an ArchiveError that does not name its archive yet. */
export function withArchivePath(error: unknown, archivePath: string): unknown {
  if (!(error instanceof ArchiveError) || typeof error.data.archive === "string") return error;
  return new ArchiveError(error.code as ArchiveErrorCode, error.message, { ...error.data, archive: archivePath }, { cause: error });
}

/** An open `.fs.zip` archive (see `openArchive`). Call `close()` when done. */
export class ArchiveReader {
  readonly archivePath: string;
  readonly variant: ArchiveVariant;
  /** The validated manifest (`manifest.json` or `_wink_metadata.json`), or null when the archive has none. */
  readonly manifest: ArchiveManifest | null;
  /** Things a viewer may show: missing manifest, counts that disagree, ignored entries. */
  readonly warnings: readonly string[];
  /** Files in central-directory order. */
  readonly files: readonly ArchiveFileEntry[];
  /** Directories the archive records explicitly (directory entries and the manifest's `directories`), sorted. */
  readonly directories: readonly string[];
  readonly limits: ArchiveLimits;
  /** Size of the archive file in bytes. */
  readonly archiveSize: number;
  readonly #byRelative: ReadonlyMap<string, ArchiveFileEntry>;

  /** Use `openArchive`. */
  private constructor(
    archivePath: string,
    limits: ArchiveLimits,
    handle: FileHandle,
    directory: CentralDirectory,
    byName: ReadonlyMap<string, CentralEntry>,
    layout: Layout,
    manifest: ArchiveManifest | null,
  ) {
    this.archivePath = archivePath;
    this.limits = limits;
    this.archiveSize = directory.fileSize;
    this.variant = layout.variant;
    this.manifest = manifest;
    const files: ArchiveFileEntry[] = [];
    const byRelative = new Map<string, ArchiveFileEntry>();
    for (const entry of layout.files) {
      const file: ArchiveFileEntry = {
        path: layout.relative(entry),
        entryName: entry.name,
        size: entry.size,
        compressedSize: entry.compressedSize,
        crc32: entry.crc32,
        mode: entry.mode,
        mtimeMs: entry.mtimeMs,
      };
      files.push(file);
      byRelative.set(file.path, file);
    }
    this.files = files;
    this.#byRelative = byRelative;
    const warnings: string[] = [];
    if (manifest === null) warnings.push(`Archive has no ${layout.variant === "files" ? MANIFEST_NAME : WINK_METADATA_NAME}`);
    else {
      checkManifestDirectories(manifest, byRelative);
      warnings.push(...manifestWarnings(manifest, files, byRelative));
    }
    if (layout.ignored.length > 0) {
      const shown = layout.ignored.slice(0, 5).map(displayPath).join(", ");
      warnings.push(`Ignored ${layout.ignored.length} entr${layout.ignored.length === 1 ? "y" : "ies"} outside ${FILES_PREFIX}: ${shown}${layout.ignored.length > 5 ? ", …" : ""}`);
    }
    this.warnings = warnings;
    this.directories = [...new Set([...layout.directories, ...(manifest?.directories ?? [])])].sort(comparePaths);
    const prefix = layout.variant === "files" ? FILES_PREFIX : "";
    internals.set(this, { closed: false, archivePath, handle, directory, fileEntries: layout.files, byName, prefix });
  }

  /** @internal Opens and validates; see `openArchive`. */
  static async open(archivePath: string, options: OpenArchiveOptions = {}): Promise<ArchiveReader> {
    const limits = resolveArchiveLimits(options.limits);
    let handle: FileHandle;
    try {
      handle = await open(archivePath, "r");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") throw new FileNotFoundError(archivePath);
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new ArchiveError("E_ARCHIVE_CORRUPT", `Not a regular file: ${displayPath(archivePath)}`, { archive: archivePath });
      const directory = await readCentralDirectory(handle, stat.size, limits);
      const byPath = indexEntries(directory.entries);
      checkOverlaps(sortByOffset(directory.entries), (e) => e.localHeaderOffset + LOCAL_HEADER_SIZE + e.nameLength + e.compressedSize, directory.offset);
      const layout = pickLayout(directory.entries, byPath);
      let manifest: ArchiveManifest | null = null;
      if (layout.manifestEntry !== null) {
        const source = layout.manifestEntry.name as ManifestSource;
        const bytes = await readEntryData(handle, layout.manifestEntry, directory.offset, limits.maxManifestBytes);
        manifest = parseManifest(bytes, source, limits);
      } else if (options.requireManifest) {
        const expected = layout.variant === "files" ? MANIFEST_NAME : WINK_METADATA_NAME;
        throw new ArchiveError("E_ARCHIVE_MANIFEST", `Archive has no ${expected}: ${displayPath(archivePath)}`, { entry: expected, archive: archivePath });
      }
      return new ArchiveReader(archivePath, limits, handle, directory, byPath, layout, manifest);
    } catch (error) {
      await handle.close();
      throw withArchivePath(error, archivePath);
    }
  }

  /** The file at a workspace-relative path, or undefined. */
  getFile(path: string): ArchiveFileEntry | undefined {
    return this.#byRelative.get(path);
  }

  /**
   * Content of one file: one read of its local header and data, inflated with an output cap
   * and CRC-checked. Throws ENOENT (EISDIR for a recorded directory), `E_ARCHIVE_LIMIT` when
   * it declares more than `maxBytes`, and `E_ARCHIVE_*` errors naming the entry.
   */
  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    const { handle, directory, byName, prefix } = internalsOf(this);
    const entry = this.#byRelative.has(path) ? byName.get(prefix + path) : undefined;
    if (entry === undefined) {
      if (this.directories.includes(path)) throw new IsADirectoryError(path);
      throw new FileNotFoundError(path);
    }
    return readEntryData(handle, entry, directory.offset, options.maxBytes ?? this.limits.maxFileBytes);
  }

  /** Close the archive file. Idempotent. */
  async close(): Promise<void> {
    const state = internals.get(this) as ReaderInternals;
    if (state.closed) return;
    state.closed = true;
    await state.handle.close();
  }
}

/**
 * Open a `.fs.zip` archive: reads and validates the central directory (and manifest) only.
 * Throws `ArchiveError` naming the entry for anything unsafe or inconsistent, ENOENT when
 * the file does not exist.
 */
export function openArchive(archivePath: string, options?: OpenArchiveOptions): Promise<ArchiveReader> {
  return ArchiveReader.open(archivePath, options);
}

/** Window of one batched read of local headers. */
const HEADER_WINDOW_BYTES = 256 * 1024;
const HEADER_SLACK = 64;

/**
 * Read every local header of `entries` with few large reads, check each against its central
 * record and check that no entry's exact byte range overlaps the next. Returns where each
 * entry's data starts.
 */
export async function locateAllData(reader: ArchiveReader, entries: readonly CentralEntry[]): Promise<Map<CentralEntry, number>> {
  const { handle, directory } = internalsOf(reader);
  const sorted = sortByOffset(entries);
  const starts = new Map<CentralEntry, number>();
  const guessEnd = (e: CentralEntry): number => Math.min(e.localHeaderOffset + LOCAL_HEADER_SIZE + e.nameLength + e.extraLength + HEADER_SLACK, directory.offset);
  for (let i = 0; i < sorted.length; ) {
    const windowStart = (sorted[i] as CentralEntry).localHeaderOffset;
    let windowEnd = guessEnd(sorted[i] as CentralEntry);
    let j = i + 1;
    for (; j < sorted.length && guessEnd(sorted[j] as CentralEntry) - windowStart <= HEADER_WINDOW_BYTES; j++) {
      windowEnd = Math.max(windowEnd, guessEnd(sorted[j] as CentralEntry));
    }
    const window = await readAt(handle, windowEnd - windowStart, windowStart);
    for (let k = i; k < j; k++) {
      const entry = sorted[k] as CentralEntry;
      const header = window.subarray(entry.localHeaderOffset - windowStart);
      const length = header.length >= LOCAL_HEADER_SIZE ? localHeaderLength(header, entry) : Number.POSITIVE_INFINITY;
      if (length <= header.length) {
        checkLocalHeader(header, entry);
        starts.set(entry, entry.localHeaderOffset + length);
      } else starts.set(entry, await locateData(handle, entry, directory.offset));
    }
    i = j;
  }
  checkOverlaps(sorted, (e) => (starts.get(e) as number) + e.compressedSize, directory.offset);
  return starts;
}

/** Threshold under which an entry is read and inflated in one piece rather than streamed. */
export const WHOLE_READ_MAX_BYTES = 4 * 1024 * 1024;

/** Raw bytes of the archive (entry data located by `locateAllData`), with one read. */
export function readLocatedRegion(reader: ArchiveReader, start: number, length: number): Promise<Buffer> {
  const { handle } = internalsOf(reader);
  return readAt(handle, length, start);
}

/** Content of an entry whose data start is known, as checked chunks (large entries). */
export function streamLocatedEntry(reader: ArchiveReader, entry: CentralEntry, dataStart: number): AsyncGenerator<Buffer> {
  const { handle } = internalsOf(reader);
  return streamEntryData(handle, entry, dataStart);
}
