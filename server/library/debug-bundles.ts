/**
 * The served directory's WINK debug bundles, opened through the archive cache (central
 * directory first, one positional read per member, the archive limits and name checks) and
 * read with the shared bundle reader. What a bundle's reader derives (log index, transcript,
 * session) is counted in the server's one memory budget (`--memory`), weighed again each
 * time it keeps more, and let go of — least recently used first, whatever cache holds the
 * rest — when the budget is full: the next request reads the bundle again. A reopened
 * archive is a new source, so a changed bundle is read again. Nothing is written next to a
 * bundle.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { BUNDLE_SNIFF_BYTES, DebugBundle, looksLikeDebugBundle } from "../../shared/debug-bundle/index.js";
import type { BundleSession, DebugBundleLimits, Sha256 } from "../../shared/debug-bundle/index.js";
import { SessionLoadError } from "../../shared/errors.js";
import type { OpenedRegularFile } from "../../shared/filesystem/index.js";
import { openNamedFile } from "../../shared/filesystem/index.js";
import type { SessionSnapshot } from "../../shared/session/index.js";
import type { FileSource } from "../../shared/viewer/index.js";
import type { ArchiveCache } from "./archive-cache.js";
import { MemoryBudget, WeightedCache } from "./weighted-cache.js";

/** node:crypto's SHA-256 (Web Crypto in Node took ~30x longer on a 3 MB log). */
export const nodeSha256: Sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");


/**
 * True when the file at `absolutePath` starts like a debug bundle (one small read; false when
 * unreadable or not a regular file). A server sniffing the folder it serves passes its
 * checked opener (`SnapshotDirectory.openFile`: no symlink, the inode its lstat saw, inside the root).
 */
export async function sniffDebugBundle(absolutePath: string, openFile: (file: string) => Promise<OpenedRegularFile> = openNamedFile): Promise<boolean> {
  let handle;
  try {
    ({ handle } = await openFile(absolutePath));
  } catch {
    return false;
  }
  try {
    const head = new Uint8Array(BUNDLE_SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return looksLikeDebugBundle(head.subarray(0, bytesRead));
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/** A `.zip` that may be a bundle (workspace archives are `*.fs.zip`). */
export function isBundleCandidate(name: string): boolean {
  return /\.zip$/i.test(name) && !/\.fs\.zip$/i.test(name);
}

export interface DebugBundlesOptions {
  limits?: Partial<DebugBundleLimits>;
  /**
   * The server's memory budget, shared with its other caches: what each open bundle's
   * reader keeps (`DebugBundle.retainedBytes`) is counted in it. Default: a budget of
   * 64 MiB of its own.
   */
  memory?: MemoryBudget;
}

/** A reader and the archive source it reads (a reopened archive is a new source: the reader is not reused). */
interface OpenReader {
  readonly source: FileSource;
  readonly reader: Promise<DebugBundle>;
  /** The reader once open (for its weight). */
  bundle: DebugBundle | null;
}

/** What a reader weighs before it has read anything (listing, manifest, summary). */
const OPEN_READER_BYTES = 32 * 1024;

export class DebugBundles {
  readonly #archives: ArchiveCache;
  readonly #limits: Partial<DebugBundleLimits>;
  /** One reader per bundle path, weighed by what it keeps. */
  readonly #readers: WeightedCache<string, OpenReader>;

  constructor(archives: ArchiveCache, options: DebugBundlesOptions = {}) {
    this.#archives = archives;
    this.#limits = options.limits ?? {};
    this.#readers = new WeightedCache(options.memory ?? new MemoryBudget(64 * 1024 * 1024));
  }

  /** The bundle at `absolutePath`, shown as `relativePath`. Throws the archive's or the manifest's error. */
  async open(absolutePath: string, relativePath: string): Promise<DebugBundle> {
    const { source } = await this.#archives.source(absolutePath, path.posix.basename(relativePath));
    const known = this.#readers.get(absolutePath);
    if (known !== undefined && known.source === source) return known.reader;
    let entry: OpenReader | null = null;
    const reweigh = () => {
      // Only while this reader is the one cached (an evicted or replaced one weighs nothing here).
      if (entry?.bundle != null && this.#readers.get(absolutePath) === entry) this.#readers.set(absolutePath, entry, Math.max(OPEN_READER_BYTES, entry.bundle.retainedBytes));
    };
    const reader = DebugBundle.open(source, { path: relativePath, limits: this.#limits, sha256: nodeSha256, onGrow: reweigh });
    const opened: OpenReader = { source, reader, bundle: null };
    entry = opened;
    this.#readers.set(absolutePath, opened, OPEN_READER_BYTES);
    reader.then(
      (bundle) => {
        opened.bundle = bundle;
        reweigh();
      },
      () => {
        if (this.#readers.get(absolutePath) === opened) this.#readers.delete(absolutePath);
      },
    );
    return reader;
  }

  /** Bytes the open readers are counted for (in the shared budget). */
  get weight(): number {
    return this.#readers.weight;
  }

  /** Forgets a bundle that changed on disk (its archive is reopened on next use). */
  forget(absolutePath: string): void {
    this.#readers.delete(absolutePath);
    this.#archives.invalidate(absolutePath);
  }

  /** The bundle's session (before = line 1, after = line 2), for the session machinery. */
  async session(absolutePath: string, relativePath: string): Promise<BundleSession> {
    const bundle = await this.open(absolutePath, relativePath);
    return bundle.session();
  }

  /** One session line parsed (the bundle keeps it). */
  async snapshot(absolutePath: string, relativePath: string, lineNumber: number): Promise<SessionSnapshot> {
    const session = await this.session(absolutePath, relativePath);
    const snapshot = session.snapshot(lineNumber);
    if (snapshot === undefined) {
      const error = session.errors.find((candidate) => candidate.lineNumber === lineNumber);
      throw new SessionLoadError(error === undefined ? `Unknown line_number: ${lineNumber}` : `Line ${lineNumber} of ${relativePath} does not load: ${error.reason}`, { path: relativePath, lineNumber });
    }
    return snapshot;
  }
}
