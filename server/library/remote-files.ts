/**
 * A remote store served like a local folder: an S3 bucket (or prefix) or an HTTP folder,
 * read through one `Source` (shared/remote).
 *
 * - Listing pages through `source.listPages` (a "/" delimiter unless recursive), keeping
 *   the workspace archives seen so a snapshot's archive is found without a request.
 * - A session file is indexed with one ranged stream of the object, pinned to the version
 *   (ETag) its `open` saw, one line held at a time; its lines are then read by range
 *   through a `RandomAccessReader` of that version (the shared block cache), never the
 *   whole object again. The index belongs to that version: when the object changes, a read
 *   fails with `E_SOURCE_CHANGED`, which the directory turns into a new index.
 * - Workspace archives and debug bundles are opened by range: one suffix read (the end
 *   record and, usually, the whole central directory, with the object's size and ETag), the
 *   rest of the directory if it is bigger, then only the members asked for — all pinned to
 *   that ETag, through the archive policy every reader applies (`openArchiveSource`).
 * - With a cache directory (`--cache-dir`), the index is kept there by the object's ETag, so a
 *   later process indexes an unchanged session file without reading it.
 * - Bundle candidates are not sniffed at listing (a request per `.zip`, thousands of them in
 *   an eval farm's bucket): a `.zip` that is not a debug bundle says so when it is opened.
 */
import path from "node:path";
import { SourceError } from "../../shared/errors.js";
import type { ArchiveLimits, ArchiveReader } from "../../shared/archive/index.js";
import { openArchiveSource } from "../../shared/archive/index.js";
import type { ObjectInfo, RandomAccessReader, SkippedFolder, Source } from "../../shared/remote/index.js";
import type { CompactSessionIndex, LineLocation, SessionFileIndex, SessionLinesIndex, WholeSessionFile } from "../../shared/session/index.js";
import { SessionLines, SessionIndexBuilder, indexSessionBytes, linesOfChunks, EventLoopSlices } from "../../shared/session/index.js";
import type { ArchiveStatus, FoundFile, ListOptions, ServedFiles } from "./served-files.js";
import { MAX_DEPTH, SKIPPED_DIRECTORIES, inUndoStore, kindOf } from "./served-files.js";

const ARCHIVE = /\.fs\.zip$/i;
/** The first read of an archive: its end record and, for up to ~1,000 files, its whole central directory. */
const ARCHIVE_TAIL_BYTES = 128 * 1024;

/** True for a key the local walk would have reached: no hidden or skipped folder, not too deep. */
function reachable(key: string, recursive: boolean): boolean {
  const folders = key.split("/").slice(0, -1);
  if (folders.length === 0) return true;
  if (!recursive || folders.length > MAX_DEPTH) return false;
  return folders.every((name) => !name.startsWith(".") && !SKIPPED_DIRECTORIES.has(name));
}

/** Bumped when what a session index holds changes: a stored index of another format is not found. */
const INDEX_FORMAT = "v2";

/** A session index as the cache directory holds it (its entries as objects, the format of `INDEX_FORMAT`). */
type StoredIndex = Pick<SessionFileIndex, "lineCount" | "entries" | "errors" | "errorCount">;

/** A session index the cache directory held (its checksum already checked), or null when it is not one. */
function storedIndex(bytes: Uint8Array | null): StoredIndex | null {
  if (bytes === null) return null;
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as Partial<StoredIndex> | null;
    if (value === null || typeof value !== "object" || !Number.isSafeInteger(value.lineCount) || !Array.isArray(value.entries) || !Array.isArray(value.errors) || !Number.isSafeInteger(value.errorCount)) return null;
    return value as StoredIndex;
  } catch {
    return null;
  }
}

function isChanged(error: unknown): boolean {
  return error instanceof SourceError && error.code === "E_SOURCE_CHANGED";
}

export class RemoteFiles implements ServedFiles {
  readonly remote = true;
  readonly indexEverything = false;
  /** Workspace archives of the last listing, by key. */
  #archives = new Map<string, ObjectInfo>();
  /** The reader (one version of the object) each index was built from. */
  readonly #readers = new WeakMap<CompactSessionIndex, RandomAccessReader>();
  /** Keys by the identity `idOf` gave them (caches above are keyed by identities). */
  readonly #keys = new Map<string, string>();

  constructor(readonly source: Source) {}

  get kind(): "s3" | "http" {
    return this.source.driver.name === "s3" ? "s3" : "http";
  }

  get root(): string {
    return this.source.location;
  }

  idOf(relative: string): string {
    const id = this.source.describe(relative);
    this.#keys.set(id, relative);
    return id;
  }

  /**
   * The archive (or bundle) at `id` (from `idOf`), opened by range. An object replaced
   * between the tail read and the directory's is opened again, once.
   */
  async openArchive(id: string, limits: Partial<ArchiveLimits> | undefined): Promise<ArchiveReader> {
    const key = this.#keys.get(id);
    if (key === undefined) throw new SourceError("E_SOURCE_NOT_FOUND", `Not a listed object of ${this.root}: ${id}`, { url: id });
    for (let attempt = 0; ; attempt++) {
      try {
        const reader = await this.source.open(key, { tail: ARCHIVE_TAIL_BYTES });
        const bytes = { size: reader.size, mtimeMs: reader.mtimeMs, read: (position: number, length: number) => reader.read(position, length) };
        return await openArchiveSource(id, bytes, { deferManifest: true, ...(limits === undefined ? {} : { limits }) });
      } catch (error) {
        if (attempt > 0 || !isChanged(error)) throw error;
      }
    }
  }

  /** Versions of the workspace archives the last listing saw (key → ETag, else size and mtime). */
  archiveVersions(): Map<string, string> {
    return new Map([...this.#archives].map(([key, info]) => [key, info.etag ?? `${info.size}:${info.mtimeMs ?? ""}`]));
  }

  async list(options: ListOptions): Promise<Map<string, FoundFile>> {
    const found = new Map<string, FoundFile>();
    const archives = new Map<string, ObjectInfo>();
    let pages = 0;
    let objects = 0;
    const skippedFolders: SkippedFolder[] = [];
    for await (const page of this.source.listPages("", options.recursive ? {} : { delimiter: "/" })) {
      pages++;
      objects += page.objects.length;
      skippedFolders.push(...(page.skippedFolders ?? []));
      for (const info of page.objects) {
        if (!reachable(info.key, options.recursive) || inUndoStore(info.key)) continue;
        const name = path.posix.basename(info.key);
        if (ARCHIVE.test(name)) {
          archives.set(info.key, info);
          continue;
        }
        const kind = kindOf(name, options.bundles);
        if (kind === null) continue;
        const mtimeMs = info.mtimeMs ?? 0;
        found.set(info.key, { absolutePath: this.idOf(info.key), kind, size: info.size, mtimeMs, ctimeMs: mtimeMs, version: info.etag });
      }
      options.onProgress?.({ pages, objects, done: false, skippedFolders: [...skippedFolders] });
    }
    this.#archives = archives;
    options.onProgress?.({ pages, objects, done: true, skippedFolders });
    return found;
  }

  async scanSession(relative: string, found: FoundFile): Promise<CompactSessionIndex> {
    // An object replaced between the stat and the stream is indexed again, once.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#scan(relative, found);
      } catch (error) {
        if (attempt > 0 || !isChanged(error)) throw error;
      }
    }
  }

  /**
   * `scanSession` from one request for the whole object (a suffix read of the size the listing
   * gave: no HEAD before it), its bytes kept for the lines read next: streaming it, then
   * reading its latest line by range, read a one-line object (most of an eval's) twice. Null
   * when it is larger than `maxBytes` or is no longer the size listed (scan it then).
   */
  async readSession(relative: string, found: FoundFile, maxBytes: number): Promise<WholeSessionFile | null> {
    if (found.size > maxBytes || found.size === 0) return null;
    const reader = await this.source.open(relative, { tail: found.size });
    if (reader.size !== found.size) return null;
    const read = await reader.read(0, reader.size);
    const bytes = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
    const stored = await this.#storedIndex(relative, reader);
    if (stored !== null) return { index: this.#indexOf(found, reader, stored), bytes, parsed: new Map() };
    const indexed = await indexSessionBytes(bytes);
    return { index: this.#indexOf(found, reader, this.#storeIndex(relative, reader, indexed.lines)), bytes: indexed.bytes, parsed: indexed.parsed };
  }

  /** The cache directory's key for the index of this version (its ETag) of `relative`; null without a cache directory or an ETag. */
  #indexIdentity(relative: string, reader: RandomAccessReader): string | null {
    if (reader.etag === null || this.source.disk === null) return null;
    return `session-index\u0000${INDEX_FORMAT}\u0000${this.source.location}\u0000${relative}\u0000${reader.etag}`;
  }

  /** With a cache directory, the index of this version (its ETag) built by an earlier process. */
  async #storedIndex(relative: string, reader: RandomAccessReader): Promise<SessionLinesIndex | null> {
    const identity = this.#indexIdentity(relative, reader);
    const stored = identity === null ? null : storedIndex(await (this.source.disk as NonNullable<Source["disk"]>).get(identity));
    if (stored === null) return null;
    const { entries, ...rest } = stored;
    return { ...rest, lines: SessionLines.from(entries) };
  }

  #storeIndex(relative: string, reader: RandomAccessReader, scanned: SessionLinesIndex): SessionLinesIndex {
    const identity = this.#indexIdentity(relative, reader);
    if (identity !== null) {
      const toStore: StoredIndex = { lineCount: scanned.lineCount, entries: scanned.lines.toArray(), errors: scanned.errors, errorCount: scanned.errorCount };
      (this.source.disk as NonNullable<Source["disk"]>).put(identity, new TextEncoder().encode(JSON.stringify(toStore)));
    }
    return scanned;
  }

  /** The index of `reader`'s version, its lines read through that reader from now on. */
  #indexOf(found: FoundFile, reader: RandomAccessReader, scanned: SessionLinesIndex): CompactSessionIndex {
    const index: CompactSessionIndex = {
      path: found.absolutePath,
      sizeBytes: reader.size,
      mtimeMs: reader.mtimeMs ?? found.mtimeMs,
      // An object has no device or inode: its version is the reader's ETag (lines are read through that reader).
      dev: 0,
      ino: 0,
      ...scanned,
    };
    this.#readers.set(index, reader);
    return index;
  }

  async #scan(relative: string, found: FoundFile): Promise<CompactSessionIndex> {
    const reader = await this.source.open(relative);
    let scanned = await this.#storedIndex(relative, reader);
    if (scanned === null) {
      const builder = new SessionIndexBuilder();
      if (reader.size > 0) {
        const stream = await this.source.stream(relative, { offset: 0, length: reader.size }, { etag: reader.etag });
        // Chunks of an object that arrived already are split without waiting: slices of ~20 ms keep other requests answered.
        const slices = new EventLoopSlices();
        for await (const line of linesOfChunks(stream.chunks)) {
          builder.add(line);
          if (slices.due()) await slices.pause();
        }
      }
      scanned = this.#storeIndex(relative, reader, { lineCount: builder.lineCount, lines: builder.lines.seal(), errors: builder.errors, errorCount: builder.errorCount });
    }
    return this.#indexOf(found, reader, scanned);
  }

  async readLine(_relative: string, index: CompactSessionIndex, location: LineLocation): Promise<Uint8Array | null> {
    const reader = this.#readers.get(index);
    if (reader === undefined) return null;
    try {
      return await reader.read(location.byteOffset, location.byteLength);
    } catch (error) {
      if (isChanged(error)) return null;
      throw error;
    }
  }

  /** Whether the object `index` was built from is still the current version (one conditional request). */
  async isCurrent(relative: string, index: CompactSessionIndex): Promise<boolean> {
    const reader = this.#readers.get(index);
    if (reader === undefined) return true;
    try {
      return (await this.source.revalidate({ key: relative, size: reader.size, etag: reader.etag, mtimeMs: reader.mtimeMs })) === null;
    } catch (error) {
      if (error instanceof SourceError && error.code === "E_SOURCE_NOT_FOUND") return false;
      throw error;
    }
  }

  async sniffBundle(): Promise<boolean> {
    return true;
  }

  async archiveStatus(relative: string): Promise<ArchiveStatus> {
    return this.#archives.has(relative) ? "file" : "missing";
  }

  close(): Promise<void> {
    return this.source.close();
  }
}
