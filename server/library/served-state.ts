/**
 * What the server serves, opened before any route exists: the target (a local folder or a
 * remote store), the memory budget, the archive and bundle readers, the listing and the
 * current snapshot (the newest file's first line, or the file the target named). The CLI's
 * first stage opens it to answer the first `/api/meta`, and `buildApp` builds the routes on
 * it (tests and `buildApp` alone open it there).
 */
import type { DebugBundleLimits } from "../../shared/debug-bundle/index.js";
import { SessionLoadError, WinkError } from "../../shared/errors.js";
import { ArchiveCache } from "./archive-cache.js";
import type { ArchiveCacheOptions } from "./archive-cache.js";
import { DebugBundles } from "./debug-bundles.js";
import type { RemoteTargetOptions } from "./open-target.js";
import { openTarget } from "./open-target.js";
import { RemoteFiles } from "./remote-files.js";
import type { ListingProgress, ServedFiles } from "./served-files.js";
import { SnapshotDirectory } from "./snapshot-directory.js";
import { ViewerState, noRunsFound } from "./viewer-state.js";
import { MemoryBudget } from "./weighted-cache.js";

/** The default cache budget: a 25 MB session line parsed (counted 1.5×) and room for archives and files beside it. */
export const DEFAULT_MEMORY_BYTES = 96 * 1024 * 1024;

export interface ServedStateOptions {
  /** A directory, a session file or bundle, or a remote store's URL (see `AppOptions.path`). */
  path: string;
  remote?: RemoteTargetOptions;
  /** Told after each page of the first listing (a remote store lists in pages). */
  onListing?: (progress: ListingProgress) => void;
  /** Include session files in subdirectories. */
  recursive?: boolean;
  archiveCache?: Omit<ArchiveCacheOptions, "memory" | "root">;
  bundleLimits?: Partial<DebugBundleLimits>;
  /** Bytes all caches may keep together (default {@link DEFAULT_MEMORY_BYTES}). */
  memoryBytes?: number;
  /**
   * Make a file current (default true): the newest that loads, or the one the target names.
   * False for a reader of every run (`wink-debug failures`), to whom a folder whose runs all
   * fail to load is still a folder of runs; a target without any still fails.
   */
  pickCurrent?: boolean;
}

export interface ServedState {
  readonly memory: MemoryBudget;
  readonly files: ServedFiles;
  readonly archives: ArchiveCache;
  readonly bundles: DebugBundles;
  readonly state: ViewerState;
  /** The file the target named (relative to the root), or null for a folder. */
  readonly preferred: string | null;
}

/**
 * Opens the target (listing only: nothing is parsed but the envelopes of the file to show
 * first). Throws `SessionLoadError` when the path does not exist or holds no session file
 * that loads, a store's own error (`E_SOURCE_*`) when it cannot be read.
 */
export async function openServedState(options: ServedStateOptions): Promise<ServedState> {
  const memory = new MemoryBudget(options.memoryBytes ?? DEFAULT_MEMORY_BYTES);
  const target = await openTarget(options.path, memory, options.remote);
  const { files } = target;
  // A remote store's archives and bundles are opened by range (end record, directory, then members).
  const archives = new ArchiveCache({ ...options.archiveCache, memory, ...(files instanceof RemoteFiles ? { openRemote: (id, limits) => files.openArchive(id, limits) } : { root: files.root }) });
  const bundles = new DebugBundles(archives, { memory, ...(options.bundleLimits === undefined ? {} : { limits: options.bundleLimits }) });
  try {
    const directory = await SnapshotDirectory.open(files, { recursive: options.recursive ?? false, bundles, memory, ...(options.onListing === undefined ? {} : { onListing: options.onListing }) });
    const state = new ViewerState(directory, archives, target.displayRoot, bundles);
    if (target.preferred !== null) {
      if (directory.get(target.preferred) === undefined) throw new SessionLoadError(`Not a session file (.jsonl or .json) or a WINK debug bundle (.zip): ${target.shown}`, { path: target.shown });
      if (options.pickCurrent !== false) await state.initialize(target.preferred);
    } else if (options.pickCurrent !== false) {
      await state.initialize();
    } else if (directory.files().length === 0) {
      throw new SessionLoadError(noRunsFound(target.displayRoot, directory.recursive), { path: target.shown });
    }
    return { memory, files, archives, bundles, state, preferred: target.preferred };
  } catch (error) {
    await archives.close();
    await files.close();
    // A store's failure keeps its code (E_SOURCE_*): the CLI and tests tell them apart.
    throw error instanceof WinkError ? error : new SessionLoadError(error instanceof Error ? error.message : String(error), { path: target.shown }, { cause: error });
  }
}

/** Closes what {@link openServedState} opened (when no app took it over: an app closes it on `close()`). */
export async function closeServedState(served: ServedState): Promise<void> {
  served.state.directory.close();
  await Promise.all([served.archives.close(), served.files.close()]);
}
