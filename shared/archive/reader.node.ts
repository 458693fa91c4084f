/**
 * A lazy, validating reader of `.fs.zip` archives. Opening reads the central directory only
 * (plus `manifest.json`, unless deferred), validates every entry (names, duplicates,
 * conflicts, overlaps, methods, encryption, symlinks and special files, ZIP64 consistency)
 * and keeps the file open for `readFile`, which reads one entry with one positional read.
 *
 * Two layouts are read: the "files" variant (`manifest.json` + `files/<path>`) and the
 * "root-metadata" variant some WINK builds wrote (entries at the root + `_wink_metadata.json`).
 */
import { open, type FileHandle } from "node:fs/promises";
import { ArchiveError, FileNotFoundError, InvalidArgumentError, IsADirectoryError, type ArchiveErrorCode } from "../errors.js";
import { comparePaths, displayPath } from "../filesystem/paths.js";
import { readAt, readCentralDirectory, type CentralEntry } from "./central-directory.node.js";
import { checkLocalHeader, localHeaderLength, locateData, readEntryData, streamEntryData } from "./entry-data.node.js";
import { FILES_PREFIX } from "./entry-names.js";
import { checkOverlaps, indexEntries, sortByOffset, type EntryLookup } from "./entry-set.js";
import { FileIndex, type ArchiveFileEntry } from "./file-index.js";
import { resolveArchiveLimits, type ArchiveLimits } from "./limits.js";
import { MANIFEST_NAME, WINK_METADATA_NAME, parseManifest, type ArchiveManifest, type ManifestSource } from "./manifest.js";
import { LOCAL_HEADER_SIZE } from "./zip-format.js";

export type { ArchiveFileEntry } from "./file-index.js";

/** "files": `manifest.json` + `files/…`; "root-metadata": root entries + `_wink_metadata.json`. */
export type ArchiveVariant = "files" | "root-metadata";

export interface OpenArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  /** Refuse an archive without a manifest (import does). Default false: `manifest` is null and a warning says why. */
  requireManifest?: boolean;
  /**
   * Do not read the manifest at open (default false). Listing and reading files then cost
   * the central directory alone (a writer's manifest lists every file with its SHA-256:
   * 1.7 MB for 10,000 files); `readManifest()` reads and checks it when it is wanted, and
   * `manifest`, `warnings` and `directories` throw. Ignored with `requireManifest`.
   */
  deferManifest?: boolean;
}

export interface ReadFileOptions {
  /** Refuse entries declaring more bytes than this (default `limits.maxFileBytes`). */
  maxBytes?: number;
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

interface ReaderInternals {
  closed: boolean;
  readonly archivePath: string;
  readonly handle: FileHandle;
  /** Where entry data must end: the offset of the central directory. */
  readonly dataEnd: number;
  readonly index: FileIndex;
  /** Central records of the layout's directory entries. */
  readonly directoryEntries: readonly CentralEntry[];
}

const internals = new WeakMap<ArchiveReader, ReaderInternals>();

/** The open state of a reader (for import); throws once it is closed. Not part of the public API. */
export function internalsOf(reader: ArchiveReader): ReaderInternals {
  const state = internals.get(reader) as ReaderInternals;
  if (state.closed) throw new InvalidArgumentError(`Archive is closed: ${displayPath(state.archivePath)}`, { archive: state.archivePath });
  return state;
}

/** Central records of every file, in central-directory order (rebuilt from the reader's columns). */
export function fileEntriesOf(reader: ArchiveReader): CentralEntry[] {
  const { index } = internalsOf(reader);
  return Array.from({ length: index.count }, (_, i) => index.entry(i));
}

/** Files and directories of one variant, with what was left out. */
interface Layout {
  variant: ArchiveVariant;
  manifestEntry: CentralEntry | null;
  files: CentralEntry[];
  directoryEntries: CentralEntry[];
  directories: string[];
  ignored: string[];
}

function pickLayout(entries: readonly CentralEntry[], byPath: EntryLookup<CentralEntry>): Layout {
  const asFile = (name: string): CentralEntry | null => {
    const entry = byPath(name);
    return entry !== undefined && !entry.isDirectory ? entry : null;
  };
  const manifest = asFile(MANIFEST_NAME);
  const metadata = asFile(WINK_METADATA_NAME);
  const filesPrefixed = entries.length > 0 && entries.every((e) => e.name.startsWith(FILES_PREFIX));
  const layout: Layout = { variant: "files", manifestEntry: manifest, files: [], directoryEntries: [], directories: [], ignored: [] };
  if (manifest === null && (metadata !== null || (!filesPrefixed && entries.length > 0))) {
    layout.variant = "root-metadata";
    layout.manifestEntry = metadata;
  }
  const prefixLength = layout.variant === "files" ? FILES_PREFIX.length : 0;
  for (const entry of entries) {
    if (entry === layout.manifestEntry) continue;
    if (layout.variant === "files" && !entry.name.startsWith(FILES_PREFIX)) {
      layout.ignored.push(entry.name);
      continue;
    }
    if (entry.isDirectory) {
      layout.directoryEntries.push(entry);
      const path = entry.path.slice(prefixLength);
      if (path !== "") layout.directories.push(path);
    } else layout.files.push(entry);
  }
  return layout;
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

/** `error` with `data.archive` set when it is an ArchiveError that does not name its archive yet. */
export function withArchivePath(error: unknown, archivePath: string): unknown {
  if (!(error instanceof ArchiveError) || typeof error.data.archive === "string") return error;
  return new ArchiveError(error.code as ArchiveErrorCode, error.message, { ...error.data, archive: archivePath }, { cause: error });
}

/** What the reader keeps to check its manifest later (or at open). */
interface ManifestSourceInfo {
  readonly entry: CentralEntry | null;
  readonly expected: ManifestSource;
  readonly explicitDirectories: readonly string[];
  /** Entries outside the layout: how many, and the first few names. */
  readonly ignoredCount: number;
  readonly ignored: readonly string[];
}

/** An open `.fs.zip` archive (see `openArchive`). Call `close()` when done. */
export class ArchiveReader {
  readonly archivePath: string;
  readonly variant: ArchiveVariant;
  readonly limits: ArchiveLimits;
  /** Size of the archive file in bytes. */
  readonly archiveSize: number;
  readonly #index: FileIndex;
  readonly #manifestSource: ManifestSourceInfo;
  /** The manifest check made at open, or null while it is deferred. */
  #check: ManifestCheck | null = null;
  #files: readonly ArchiveFileEntry[] | null = null;

  /** Use `openArchive`. */
  private constructor(archivePath: string, limits: ArchiveLimits, handle: FileHandle, archiveSize: number, dataEnd: number, layout: Layout) {
    this.archivePath = archivePath;
    this.limits = limits;
    this.archiveSize = archiveSize;
    this.variant = layout.variant;
    this.#index = new FileIndex(layout.files, layout.variant === "files" ? FILES_PREFIX : "");
    this.#manifestSource = {
      entry: layout.manifestEntry,
      expected: layout.variant === "files" ? MANIFEST_NAME : WINK_METADATA_NAME,
      explicitDirectories: layout.directories.sort(comparePaths),
      ignoredCount: layout.ignored.length,
      ignored: layout.ignored.slice(0, 5),
    };
    internals.set(this, { closed: false, archivePath, handle, dataEnd, index: this.#index, directoryEntries: layout.directoryEntries });
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
      if (layout.manifestEntry === null && options.requireManifest) {
        const expected = layout.variant === "files" ? MANIFEST_NAME : WINK_METADATA_NAME;
        throw new ArchiveError("E_ARCHIVE_MANIFEST", `Archive has no ${expected}: ${displayPath(archivePath)}`, { entry: expected, archive: archivePath });
      }
      const reader = new ArchiveReader(archivePath, limits, handle, stat.size, directory.offset, layout);
      if (options.requireManifest || !options.deferManifest) reader.#check = await reader.#checkManifest();
      return reader;
    } catch (error) {
      await handle.close();
      throw withArchivePath(error, archivePath);
    }
  }

  /** The check made at open; throws when this reader defers its manifest. */
  #checked(what: string): ManifestCheck {
    if (this.#check === null) {
      throw new InvalidArgumentError(`${what} of ${displayPath(this.archivePath)} is not read yet (opened with deferManifest): use readManifest()`, { archive: this.archivePath });
    }
    return this.#check;
  }

  /** The validated manifest (`manifest.json` or `_wink_metadata.json`), or null when the archive has none. */
  get manifest(): ArchiveManifest | null {
    return this.#checked("The manifest").manifest;
  }

  /** Things a viewer may show: missing manifest, counts that disagree, ignored entries. */
  get warnings(): readonly string[] {
    return this.#checked("The warnings").warnings;
  }

  /** Directories the archive records explicitly (directory entries and the manifest's `directories`), sorted. */
  get directories(): readonly string[] {
    return this.#checked("The directory list").directories;
  }

  /** Files in central-directory order (built on first use; `forEachFile` builds nothing). */
  get files(): readonly ArchiveFileEntry[] {
    if (this.#files === null) this.#files = Array.from({ length: this.#index.count }, (_, i) => this.#index.file(i));
    return this.#files;
  }

  /** Number of files. */
  get fileCount(): number {
    return this.#index.count;
  }

  /** Calls `visit` with each file's path, size and CRC-32, in central-directory order. */
  forEachFile(visit: (path: string, size: number, crc32: number) => void): void {
    const index = this.#index;
    for (let i = 0; i < index.count; i++) visit(index.path(i), index.size(i), index.crc32(i));
  }

  /**
   * The manifest checked against the files. Refuses (`E_ARCHIVE_MANIFEST`) a manifest that
   * is invalid or whose `directories` clash with files. A reader opened with
   * `deferManifest` reads it on every call and does not keep it.
   */
  async readManifest(): Promise<ManifestCheck> {
    if (this.#check !== null) return this.#check;
    internalsOf(this);
    try {
      return await this.#checkManifest();
    } catch (error) {
      throw withArchivePath(error, this.archivePath);
    }
  }

  async #checkManifest(): Promise<ManifestCheck> {
    const { entry, expected, explicitDirectories, ignoredCount, ignored } = this.#manifestSource;
    const { handle, dataEnd } = internalsOf(this);
    const warnings: string[] = [];
    let manifest: ArchiveManifest | null = null;
    if (entry === null) warnings.push(`Archive has no ${expected}`);
    else {
      const bytes = await readEntryData(handle, entry, dataEnd, this.limits.maxManifestBytes);
      manifest = parseManifest(bytes, entry.name as ManifestSource, this.limits);
      checkManifestDirectories(manifest, this.#index);
      warnings.push(...manifestWarnings(manifest, this.#index));
    }
    if (ignoredCount > 0) {
      const shown = ignored.map(displayPath).join(", ");
      warnings.push(`Ignored ${ignoredCount} entr${ignoredCount === 1 ? "y" : "ies"} outside ${FILES_PREFIX}: ${shown}${ignoredCount > 5 ? ", …" : ""}`);
    }
    const directories = manifest?.directories?.length ? [...new Set([...explicitDirectories, ...manifest.directories])].sort(comparePaths) : explicitDirectories;
    return { manifest, warnings, directories };
  }

  /** The file at a workspace-relative path, or undefined. */
  getFile(path: string): ArchiveFileEntry | undefined {
    const at = this.#index.indexOf(path);
    return at === -1 ? undefined : this.#index.file(at);
  }

  /**
   * Content of one file: one read of its local header and data, inflated with an output cap
   * and CRC-checked. Throws ENOENT (EISDIR for a recorded directory; with `deferManifest`,
   * only directory entries count until the manifest is read), `E_ARCHIVE_LIMIT` when it
   * declares more than `maxBytes`, and `E_ARCHIVE_*` errors naming the entry.
   */
  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    const { handle, dataEnd, index } = internalsOf(this);
    const at = index.indexOf(path);
    if (at === -1) {
      const directories = this.#check?.directories ?? this.#manifestSource.explicitDirectories;
      if (directories.includes(path)) throw new IsADirectoryError(path);
      throw new FileNotFoundError(path);
    }
    return readEntryData(handle, index.entry(at), dataEnd, options.maxBytes ?? this.limits.maxFileBytes);
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
 * Open a `.fs.zip` archive: reads and validates the central directory (and, unless
 * `deferManifest`, the manifest) only. Throws `ArchiveError` naming the entry for anything
 * unsafe or inconsistent, ENOENT when the file does not exist.
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
  const { handle, dataEnd } = internalsOf(reader);
  const sorted = sortByOffset(entries);
  const starts = new Map<CentralEntry, number>();
  const guessEnd = (e: CentralEntry): number => Math.min(e.localHeaderOffset + LOCAL_HEADER_SIZE + e.nameLength + e.extraLength + HEADER_SLACK, dataEnd);
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
      } else starts.set(entry, await locateData(handle, entry, dataEnd));
    }
    i = j;
  }
  checkOverlaps(sorted, (e) => (starts.get(e) as number) + e.compressedSize, dataEnd);
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
