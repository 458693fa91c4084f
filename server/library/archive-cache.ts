/**
 * Open archives, kept open between requests: opening reads the central directory only (the
 * manifest is read when `/api/filesystem/meta` asks for it), and one file request then costs
 * one positional read and one inflate. Bounded by the number of open archives (file
 * descriptors) and, in the server's memory budget, by the bytes their indexes and the
 * inflated file contents kept take.
 *
 * The served directory may change under us: an archive is opened without following a
 * symlink or blocking on a FIFO, and only when the descriptor is the regular file its lstat
 * saw, inside the root (`openRegularFile`); everything is then read through that descriptor.
 * An archive is held to the file it was opened from (device, inode, size, mtime): every
 * listing and every member read checks that its path still names that file (one `lstat`),
 * and a read checks again after its bytes came, so an archive truncated, rewritten in place
 * or replaced under its name is opened again (with the same checks) and a member is always
 * all of one version, never the old directory over the new bytes. A remote archive's
 * identity is its ETag, checked by the store on every read (`E_SOURCE_CHANGED`).
 */
import { lstatSync, type Stats } from "node:fs";
import type { ArchiveLimits, ArchiveReader } from "../../shared/archive/index.js";
import { openArchive } from "../../shared/archive/index.js";
import { ArchiveError, SourceError } from "../../shared/errors.js";
import { openRegularFile } from "../../shared/filesystem/index.js";
import type { ArchiveManifestRead, FileIndexEntry, FileSource, FileStream } from "../../shared/viewer/index.js";
import { archiveManifestSummary } from "../../shared/viewer/index.js";
import { MemoryBudget, WeightedCache } from "./weighted-cache.js";

/** What `/api/filesystem/meta` shows of an archive's manifest, or why the manifest was refused. */
export type ManifestSummary = ArchiveManifestRead;

/** An open archive as the server uses it. */
export interface OpenedArchive {
  readonly source: FileSource;
  /** The manifest, read and checked on first use (then kept as this small summary). */
  readonly manifest: () => Promise<ManifestSummary>;
}

export interface ArchiveCacheOptions {
  /** Most archives open at once (default 8). */
  maxOpen?: number;
  /**
   * The server's memory budget, shared with its other caches: archive indexes (one bigger
   * than the whole budget is still kept, alone) and file contents (files over 1 MiB are not
   * kept) are counted in it. Default: a budget of 32 MiB of its own.
   */
  memory?: MemoryBudget;
  /** Archive limits (ratio, sizes…) over the defaults every reader applies. */
  limits?: Partial<ArchiveLimits>;
  /** Only archives under this directory (a real path) are opened: the served root. */
  root?: string;
  /**
   * Opens the archives of a remote store, named by their URL (`ServedFiles.idOf`), instead
   * of local paths. Their freshness is the store's listing and ETags (a changed object fails
   * with `E_SOURCE_CHANGED`), not an `lstat` per request.
   */
  openRemote?: (id: string, limits: Partial<ArchiveLimits> | undefined) => Promise<ArchiveReader>;
}

interface OpenArchive extends OpenedArchive {
  readonly reader: ArchiveReader;
  readonly list: (reopens: number) => Promise<FileIndexEntry[]>;
  readonly read: (path: string, maxBytes: number, options: { transient?: boolean } | undefined, reopens: number) => Promise<Uint8Array>;
  readonly stream: (path: string, maxBytes: number, reopens: number) => Promise<FileStream>;
}

/** Reopens in one request before a file that keeps changing is reported as such. */
const MAX_REOPENS = 3;
const CLOSE_DELAY_MS = 5000;
const MAX_CACHED_FILE_BYTES = 1024 * 1024;
// Measured: an open 10,000-entry archive holds ~1.1 MB in its reader and ~1 MB in the sorted file list.
const INDEX_BYTES_PER_ENTRY = 220;

/** What an archive cache found kept and had to read, since it was made (the metrics read it). */
export interface ArchiveCacheCounts {
  /** Archives asked for and found open (their central directory kept), or opened now. */
  indexHits: number;
  indexMisses: number;
  /** Members' contents found kept, or read from the archive now. */
  contentHits: number;
  contentMisses: number;
}

export class ArchiveCache {
  readonly counts: ArchiveCacheCounts = { indexHits: 0, indexMisses: 0, contentHits: 0, contentMisses: 0 };
  readonly #open: WeightedCache<string, OpenArchive>;
  readonly #openCount: WeightedCache<string, true>;
  readonly #opening = new Map<string, Promise<OpenArchive>>();
  readonly #contents: WeightedCache<string, Uint8Array>;
  readonly #memory: MemoryBudget;
  readonly #limits: Partial<ArchiveLimits> | undefined;
  readonly #root: string | undefined;
  readonly #openRemote: NonNullable<ArchiveCacheOptions["openRemote"]> | null;
  #closed = false;
  /** Every reader not closed yet (evicted ones close after a delay). */
  readonly #readers = new Set<ArchiveReader>();
  /** Each source's identity check (`isCurrent`). */
  readonly #checks = new WeakMap<FileSource, () => Promise<boolean>>();

  constructor(options: ArchiveCacheOptions = {}) {
    // Two bounds on one set: bytes (memory) and handles (file descriptors).
    this.#memory = options.memory ?? new MemoryBudget(32 * 1024 * 1024);
    this.#limits = options.limits;
    this.#root = options.root;
    this.#openRemote = options.openRemote ?? null;
    this.#open = new WeightedCache(this.#memory, (key, value) => this.#evicted(key, value));
    this.#openCount = new WeightedCache(options.maxOpen ?? 8, (key) => this.#open.delete(key));
    // Contents read once (a search scanning files, a file whose response is cached anyway) are not kept.
    this.#contents = new WeightedCache(this.#memory, undefined, { secondUseOf: 4096 });
  }

  /** The archive at `absolutePath` as a file source (opened on first use). */
  async source(absolutePath: string, label: string): Promise<OpenedArchive> {
    const open = await this.#get(absolutePath, label);
    return { source: open.source, manifest: open.manifest };
  }

  /**
   * False when `source` (from `source()`) is of an archive whose path now names another file:
   * for callers that keep a source, or answers computed from it, between requests.
   */
  async isCurrent(source: FileSource): Promise<boolean> {
    return (await this.#checks.get(source)?.()) ?? true;
  }

  /** Forgets an archive (it changed or disappeared). */
  invalidate(absolutePath: string): void {
    this.#openCount.delete(absolutePath);
    this.#open.delete(absolutePath);
    this.#contents.deleteWhere((key) => key.startsWith(`${absolutePath}\n`));
  }

  /** Closes every archive. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#opening.values()].map((pending) => pending.catch(() => null)));
    this.#openCount.clear();
    this.#open.clear();
    this.#contents.clear();
    await Promise.all([...this.#readers].map((reader) => reader.close().catch(() => undefined)));
    this.#readers.clear();
  }

  async #get(absolutePath: string, label: string): Promise<OpenArchive> {
    const cached = this.#open.get(absolutePath);
    if (cached !== undefined) {
      if (await this.#current(absolutePath, cached.reader)) {
        this.counts.indexHits++;
        return cached;
      }
      this.invalidate(absolutePath);
    }
    this.counts.indexMisses++;
    const running = this.#opening.get(absolutePath);
    if (running !== undefined) return running;
    const task = this.#openNow(absolutePath, label).finally(() => this.#opening.delete(absolutePath));
    this.#opening.set(absolutePath, task);
    return task;
  }

  /** True while `absolutePath` still names the file `reader` was opened from (a remote archive: its reads check the ETag). */
  async #current(absolutePath: string, reader: ArchiveReader): Promise<boolean> {
    if (this.#openRemote !== null) return true;
    // On the calling thread (see openRegularFile): a digest of a bundle checks its archive at every member read.
    let stats: Stats | null;
    try {
      stats = lstatSync(absolutePath);
    } catch {
      stats = null;
    }
    const opened = reader.fileStats;
    return stats !== null && stats.isFile() && stats.dev === opened.dev && stats.ino === opened.ino && stats.size === opened.size && stats.mtimeMs === opened.mtimeMs;
  }

  /** The archive opened again after it changed under `reader` (a bounded number of times per request). */
  async #reopened(absolutePath: string, label: string, reopens: number): Promise<OpenArchive> {
    if (reopens >= MAX_REOPENS) throw new ArchiveError("E_ARCHIVE_CORRUPT", `Archive ${label} keeps changing while it is read; try again`, { path: label });
    this.invalidate(absolutePath);
    return this.#get(absolutePath, label);
  }

  async #openNow(absolutePath: string, label: string): Promise<OpenArchive> {
    const root = this.#root;
    const reader =
      this.#openRemote !== null
        ? await this.#openRemote(absolutePath, this.#limits)
        : await openArchive(absolutePath, {
            deferManifest: true,
            ...(this.#limits === undefined ? {} : { limits: this.#limits }),
            openFile: (path) => openRegularFile(path, root === undefined ? {} : { root }),
          });
    this.#readers.add(reader);
    if (this.#closed) {
      await reader.close();
      throw new Error("The server is shutting down");
    }
    const entries: FileIndexEntry[] = [];
    reader.forEachFile((path, size, fingerprint) => entries.push({ path, size, fingerprint }));
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const contents = this.#contents;
    const current = () => this.#current(absolutePath, reader);
    // `reopens`: how many times this request found the archive changed (see #reopened).
    const list = async (reopens: number): Promise<FileIndexEntry[]> =>
      (await current()) ? entries : (await this.#reopened(absolutePath, label, reopens)).list(reopens + 1);
    const read = async (path: string, maxBytes: number, options: { transient?: boolean } | undefined, reopens: number): Promise<Uint8Array> => {
      if (!(await current())) return (await this.#reopened(absolutePath, label, reopens)).read(path, maxBytes, options, reopens + 1);
      const key = `${absolutePath}\n${path}`;
      const hit = contents.get(key);
      if (hit !== undefined) {
        this.counts.contentHits++;
        return hit;
      }
      this.counts.contentMisses++;
      let bytes: Uint8Array;
      try {
        bytes = await reader.readFile(path, { maxBytes });
      } catch (error) {
        // A remote object replaced since it was opened: drop its index and read the new version.
        if (!this.#changed(error)) throw error;
        return (await this.#reopened(absolutePath, label, reopens)).read(path, maxBytes, options, reopens + 1);
      }
      // Rewritten in place while read, the bytes may be the new file's under the old directory: read them again
      // (not for an archive held in memory: its bytes are all of the version opened).
      if (reader.heldBytes === 0 && !(await current())) return (await this.#reopened(absolutePath, label, reopens)).read(path, maxBytes, options, reopens + 1);
      if (options?.transient !== true && bytes.length <= MAX_CACHED_FILE_BYTES) contents.set(key, bytes, bytes.length);
      return bytes;
    };
    const stream = async (path: string, maxBytes: number, reopens: number): Promise<FileStream> => {
      // A stream checks each member's size and CRC-32 before its last chunk: a file rewritten mid-stream fails it.
      if (!(await current())) return (await this.#reopened(absolutePath, label, reopens)).stream(path, maxBytes, reopens + 1);
      return reader.openStream(path, { maxBytes }).catch(async (error: unknown) => {
        if (!this.#changed(error)) throw error;
        return (await this.#reopened(absolutePath, label, reopens)).stream(path, maxBytes, reopens + 1);
      });
    };
    const source: FileSource = {
      kind: "archive",
      label,
      list: () => list(0),
      read: (path, maxBytes, options) => read(path, maxBytes, options, 0),
      stream: (path, maxBytes) => stream(path, maxBytes, 0),
    };
    this.#checks.set(source, current);
    let summary: Promise<ManifestSummary> | null = null;
    const manifest = (): Promise<ManifestSummary> => (summary ??= summarizeManifest(reader));
    const open: OpenArchive = { reader, source, manifest, list, read, stream };
    // An archive bigger than the whole budget is kept alone rather than reopened per request.
    this.#open.set(absolutePath, open, Math.min(this.#memory.bytes, Math.max(1, reader.fileCount) * INDEX_BYTES_PER_ENTRY + reader.heldBytes));
    this.#openCount.set(absolutePath, true, 1);
    return open;
  }

  /** True for a remote archive that changed since it was opened (`E_SOURCE_CHANGED`): it is reopened. */
  #changed(error: unknown): boolean {
    return this.#openRemote !== null && error instanceof SourceError && error.code === "E_SOURCE_CHANGED";
  }

  #evicted(absolutePath: string, value: OpenArchive): void {
    this.#openCount.delete(absolutePath);
    // Requests may still be reading from it: close a little later.
    if (this.#closed) return; // close() closes every reader itself
    setTimeout(() => {
      this.#readers.delete(value.reader);
      void value.reader.close().catch(() => undefined);
    }, CLOSE_DELAY_MS).unref();
  }
}

/** The manifest fields the viewer shows; a refused manifest becomes an error message. */
async function summarizeManifest(reader: ArchiveReader): Promise<ManifestSummary> {
  try {
    const { manifest, warnings } = await reader.readManifest();
    return { manifest: manifest === null ? null : archiveManifestSummary(manifest, warnings), error: null };
  } catch (error) {
    return { manifest: null, error: error instanceof Error ? error.message : String(error) };
  }
}
