/**
 * A lazy, validating reader of `.fs.zip` archives in Node. Opening reads the central
 * directory only (plus `manifest.json`, unless deferred), validates every entry (names,
 * duplicates, conflicts, overlaps, methods, encryption, symlinks and special files, ZIP64
 * consistency) and keeps the file open for `readFile`, which reads one entry with one
 * positional read. The checks are the shared archive policy (`catalog.ts` at open,
 * `entry-checks.ts` for each entry read), the same the in-browser reader applies.
 *
 * The bytes come from a file (`openArchive`) or from any ranged byte source
 * (`openArchiveSource`: a remote object read by range requests, through `shared/remote`'s
 * `RandomAccessReader`), with the same checks.
 *
 * Two layouts are read: the "files" variant (`manifest.json` + `files/<path>`) and the
 * "root-metadata" variant some WINK builds wrote (entries at the root + `_wink_metadata.json`).
 */
import { ArchiveError, FileNotFoundError, InvalidArgumentError, IsADirectoryError } from "../errors.js";
import { displayPath } from "../filesystem/paths.js";
import { openNamedFile, type OpenedRegularFile } from "../filesystem/open-regular.node.js";
import { checkManifest, readArchiveCatalog, withArchivePath, type ArchiveCatalog, type ManifestCheck } from "./catalog.js";

export { withArchivePath } from "./catalog.js";
import { corrupt, truncated, type CentralEntry, type ReadRange } from "./central-directory.js";
import { checkEntryLimits, checkLocalHeader, locateEntry, localHeaderLength, trailerAllowance } from "./entry-checks.js";
import { handleRange, readEntryData, streamEntryData } from "./entry-data.node.js";
import { checkOverlaps, sortByOffset } from "./entry-set.js";
import type { ArchiveFileEntry, FileIndex } from "./file-index.js";
import type { ArchiveVariant } from "./layout.js";
import { resolveArchiveLimits, type ArchiveLimits } from "../filesystem/archive-limits.js";
import type { ArchiveManifest } from "./manifest.js";
import { LOCAL_HEADER_SIZE } from "./zip-format.js";

export type { ArchiveFileEntry } from "./file-index.js";
export type { ManifestCheck } from "./catalog.js";
export type { ArchiveVariant } from "./layout.js";

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
  /**
   * How to open the file. The default opens it read-only without blocking on a FIFO and
   * checks that a regular file was opened (a final symlink is followed: the caller named
   * it). A server reading archives from a directory others write to passes
   * `openRegularFile` with `root` (no symlink, same inode as its lstat, under the root).
   */
  openFile?: (path: string) => Promise<OpenedRegularFile>;
}

export interface ReadFileOptions {
  /** Refuse entries declaring more bytes than this (at most, and by default, `limits.maxFileBytes`). */
  maxBytes?: number;
}

/** An entry opened for streaming: its declared size and its checked content. */
export interface EntryStream {
  readonly size: number;
  /** The content in chunks; size and CRC-32 are checked before the last chunk is given. */
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** The archive file as it was opened (from `fstat` of the open descriptor; zeros where a byte source has none). */
export interface ArchiveFileStats {
  readonly size: number;
  readonly mtimeMs: number;
  readonly dev: number;
  readonly ino: number;
}

/**
 * An archive's bytes other than a local file: `size` and exact ranged reads (a remote
 * object's `RandomAccessReader` is one). Reads that cannot be served throw (a changed object
 * throws its source's error; nothing here retries).
 */
export interface ArchiveByteSource {
  readonly size: number;
  readonly mtimeMs?: number | null;
  read(position: number, length: number): Promise<Uint8Array>;
  /** Release what the source holds (called by the reader's `close`). */
  close?(): Promise<void>;
}

export type OpenArchiveSourceOptions = Omit<OpenArchiveOptions, "openFile">;

interface ReaderInternals {
  closed: boolean;
  readonly archivePath: string;
  /** The archive's bytes: the open descriptor's, or a byte source's. */
  readonly range: ReadRange;
  readonly release: () => Promise<void>;
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



/** An open `.fs.zip` archive (see `openArchive`). Call `close()` when done. */
export class ArchiveReader {
  readonly archivePath: string;
  readonly variant: ArchiveVariant;
  readonly limits: ArchiveLimits;
  /** Size of the archive file in bytes. */
  readonly archiveSize: number;
  /** The archive file as opened: a cache compares it with a later `lstat` to see a replaced file. */
  readonly fileStats: ArchiveFileStats;
  readonly #index: FileIndex;
  readonly #catalog: ArchiveCatalog;
  /** The manifest check made at open, or null while it is deferred. */
  #check: ManifestCheck | null = null;
  #files: readonly ArchiveFileEntry[] | null = null;
  #heldBytes = 0;

  /** Use `openArchive` or `openArchiveSource`. */
  private constructor(archivePath: string, limits: ArchiveLimits, stats: ArchiveFileStats, bytes: { range: ReadRange; release: () => Promise<void> }, catalog: ArchiveCatalog) {
    this.archivePath = archivePath;
    this.limits = limits;
    this.archiveSize = catalog.fileSize;
    this.fileStats = stats;
    this.variant = catalog.variant;
    this.#index = catalog.index;
    this.#catalog = catalog;
    internals.set(this, { closed: false, archivePath, ...bytes, dataEnd: catalog.dataEnd, index: catalog.index, directoryEntries: catalog.directoryEntries });
  }

  /** @internal Opens and validates; see `openArchive`. */
  static async open(archivePath: string, options: OpenArchiveOptions = {}): Promise<ArchiveReader> {
    // ENOENT, or EACCES for what is not a regular file (a FIFO is refused, never waited on).
    const opened = await (options.openFile ?? openNamedFile)(archivePath);
    const { size, mtimeMs, dev, ino } = opened.stats;
    if (size > WHOLE_ARCHIVE_MAX_BYTES) return ArchiveReader.#validate(archivePath, { size, mtimeMs, dev, ino }, { range: handleRange(opened.handle), release: () => opened.handle.close() }, options);
    // The central directory is read from the archive's last 128 KiB, which for a small archive
    // (a debug bundle: 14–300 KB) is all of it; each member read then read its bytes again.
    let bytes: Uint8Array;
    try {
      bytes = await handleRange(opened.handle)(0, size);
    } catch (error) {
      throw withArchivePath(error, archivePath);
    } finally {
      await opened.handle.close();
    }
    const held = ArchiveReader.#validate(archivePath, { size, mtimeMs, dev, ino }, { range: bytesRange(bytes), release: () => Promise.resolve() }, options);
    return held.then((reader) => {
      reader.#heldBytes = size;
      return reader;
    });
  }

  /**
   * Bytes of the archive this reader holds: all of a small one (read whole at open, its
   * descriptor closed then; its members are read from memory, as they were at open), else 0.
   */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** @internal Validates an archive read through a byte source; see `openArchiveSource`. */
  static fromSource(name: string, source: ArchiveByteSource, options: OpenArchiveSourceOptions = {}): Promise<ArchiveReader> {
    const stats = { size: source.size, mtimeMs: source.mtimeMs ?? 0, dev: 0, ino: 0 };
    return ArchiveReader.#validate(name, stats, { range: (position, length) => source.read(position, length), release: () => source.close?.() ?? Promise.resolve() }, options);
  }

  static async #validate(archivePath: string, stats: ArchiveFileStats, bytes: { range: ReadRange; release: () => Promise<void> }, options: OpenArchiveSourceOptions): Promise<ArchiveReader> {
    const limits = resolveArchiveLimits(options.limits);
    try {
      const catalog = await readArchiveCatalog(bytes.range, stats.size, limits);
      if (catalog.manifestEntry === null && options.requireManifest) {
        throw new ArchiveError("E_ARCHIVE_MANIFEST", `Archive has no ${catalog.manifestName}: ${displayPath(archivePath)}`, { entry: catalog.manifestName, archive: archivePath });
      }
      const reader = new ArchiveReader(archivePath, limits, stats, bytes, catalog);
      if (options.requireManifest || !options.deferManifest) reader.#check = await reader.#checkManifest();
      return reader;
    } catch (error) {
      await bytes.release();
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
    const entry = this.#catalog.manifestEntry;
    const { range, dataEnd } = internalsOf(this);
    if (entry !== null) checkEntryLimits(entry, this.limits.maxManifestBytes, this.limits);
    const bytes = entry === null ? null : await readEntryData(range, entry, dataEnd);
    return checkManifest(this.#catalog, bytes, this.limits);
  }

  /** The file at a workspace-relative path, or undefined. */
  getFile(path: string): ArchiveFileEntry | undefined {
    const at = this.#index.indexOf(path);
    return at === -1 ? undefined : this.#index.file(at);
  }

  /** The central record of the file at `path`; ENOENT (EISDIR for a recorded directory) when there is none. */
  #entryAt(path: string): CentralEntry {
    const { index } = internalsOf(this);
    const at = index.indexOf(path);
    if (at === -1) {
      const directories = this.#check?.directories ?? this.#catalog.explicitDirectories;
      if (directories.includes(path)) throw new IsADirectoryError(path);
      throw new FileNotFoundError(path);
    }
    return index.entry(at);
  }

  /**
   * Content of one file: one read of its local header, data and data descriptor, checked
   * against the central directory, inflated with an output cap and CRC-checked. Throws
   * ENOENT (EISDIR for a recorded directory; with `deferManifest`, only directory entries
   * count until the manifest is read), `E_ARCHIVE_LIMIT` when it declares more than
   * `maxBytes` or its compression ratio is above the limit, and `E_ARCHIVE_*` errors naming
   * the entry.
   */
  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    const entry = this.#entryAt(path);
    checkEntryLimits(entry, this.#maxBytes(options), this.limits);
    const { range, dataEnd } = internalsOf(this);
    return readEntryData(range, entry, dataEnd);
  }

  /**
   * One file as a stream, for answers too big to hold (downloads): the same checks as
   * `readFile` before the first byte (limits, local header, data descriptor), then the
   * content in chunks, its size and CRC-32 checked before the last chunk is given.
   */
  async openStream(path: string, options: ReadFileOptions = {}): Promise<EntryStream> {
    const entry = this.#entryAt(path);
    checkEntryLimits(entry, this.#maxBytes(options), this.limits);
    const { range, dataEnd } = internalsOf(this);
    const { dataStart } = await locateEntry(range, entry, dataEnd, false);
    const stillOpen = (): void => void internalsOf(this);
    async function* chunks(): AsyncGenerator<Uint8Array> {
      stillOpen();
      yield* streamEntryData(range, entry, dataStart);
    }
    return { size: entry.size, chunks: chunks() };
  }

  /** A caller may read less than `maxFileBytes`, never more. */
  #maxBytes(options: ReadFileOptions): number {
    return Math.min(options.maxBytes ?? Number.POSITIVE_INFINITY, this.limits.maxFileBytes);
  }

  /** Close the archive file (or release its byte source). Idempotent. */
  async close(): Promise<void> {
    const state = internals.get(this) as ReaderInternals;
    if (state.closed) return;
    state.closed = true;
    await state.release();
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

/**
 * Open an archive read through a byte source (a remote object's ranges): the same checks as
 * `openArchive`, the end record and central directory read first, members only when asked
 * for. `name` names the archive in messages and errors (a URL, never with credentials).
 */
export function openArchiveSource(name: string, source: ArchiveByteSource, options?: OpenArchiveSourceOptions): Promise<ArchiveReader> {
  return ArchiveReader.fromSource(name, source, options);
}

/** Archives up to this size are read whole when opened from a file (see `ArchiveReader.heldBytes`): the central directory's tail read takes that much anyway. */
export const WHOLE_ARCHIVE_MAX_BYTES = 128 * 1024;

/** A `ReadRange` over an archive's bytes held in memory (copies: a caller may keep or change what it is given). */
function bytesRange(bytes: Uint8Array): ReadRange {
  return (position, length) => {
    if (position + length > bytes.length) truncated(bytes.length);
    return Promise.resolve(Buffer.from(bytes.subarray(position, position + length)));
  };
}

/** Window of one batched read of local headers. */
const HEADER_WINDOW_BYTES = 256 * 1024;
const HEADER_SLACK = 64;

/**
 * Read every local header (and data descriptor) of `entries` with few large reads, check
 * each against its central record and check that no entry's exact byte range overlaps the
 * next. Returns where each entry's data starts.
 */
export async function locateAllData(reader: ArchiveReader, entries: readonly CentralEntry[]): Promise<Map<CentralEntry, number>> {
  const { range, dataEnd } = internalsOf(reader);
  const sorted = sortByOffset(entries);
  const starts = new Map<CentralEntry, number>();
  const ends = new Map<CentralEntry, number>();
  const guessEnd = (e: CentralEntry): number => Math.min(e.localHeaderOffset + LOCAL_HEADER_SIZE + e.nameLength + e.extraLength + HEADER_SLACK, dataEnd);
  // Entries without a data descriptor whose whole local header is in a window are checked
  // from it; the others (descriptors, long headers) are located one by one.
  for (let i = 0; i < sorted.length; ) {
    const windowStart = (sorted[i] as CentralEntry).localHeaderOffset;
    let windowEnd = guessEnd(sorted[i] as CentralEntry);
    let j = i + 1;
    for (; j < sorted.length && guessEnd(sorted[j] as CentralEntry) - windowStart <= HEADER_WINDOW_BYTES; j++) {
      windowEnd = Math.max(windowEnd, guessEnd(sorted[j] as CentralEntry));
    }
    const window = await range(windowStart, windowEnd - windowStart);
    for (let k = i; k < j; k++) {
      const entry = sorted[k] as CentralEntry;
      const header = window.subarray(entry.localHeaderOffset - windowStart);
      const length = header.length >= LOCAL_HEADER_SIZE ? localHeaderLength(header, entry) : Number.POSITIVE_INFINITY;
      if (length <= header.length && trailerAllowance(entry) === 0) {
        checkLocalHeader(header.subarray(0, length), entry);
        if (entry.localHeaderOffset + length + entry.compressedSize > dataEnd) corrupt("Entry data extends past the data area", { entry: entry.name });
        starts.set(entry, entry.localHeaderOffset + length);
        ends.set(entry, entry.localHeaderOffset + length + entry.compressedSize);
      } else {
        const located = await locateEntry(range, entry, dataEnd, false);
        starts.set(entry, located.dataStart);
        ends.set(entry, located.end);
      }
    }
    i = j;
  }
  checkOverlaps(sorted, (e) => ends.get(e) as number, dataEnd);
  return starts;
}

/** Threshold under which an entry is read and inflated in one piece rather than streamed. */
export const WHOLE_READ_MAX_BYTES = 4 * 1024 * 1024;

/** Raw bytes of the archive (entry data located by `locateAllData`), with one read. */
export async function readLocatedRegion(reader: ArchiveReader, start: number, length: number): Promise<Buffer> {
  const bytes = await internalsOf(reader).range(start, length);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Content of an entry whose data start is known, as checked chunks (large entries). */
export function streamLocatedEntry(reader: ArchiveReader, entry: CentralEntry, dataStart: number): AsyncGenerator<Buffer> {
  return streamEntryData(internalsOf(reader).range, entry, dataStart);
}
