/**
 * Where the run index of a target is kept between processes (docs/eval.md "The run index"):
 * one JSON file per target, named by a hash of the target's root and recursive flag, in the
 * user's cache directory (`$XDG_CACHE_HOME/wink-debug`, else `~/.cache/wink-debug`) for a
 * local folder, or in `--cache-dir` for a remote store. Never beside the runs: the folder of
 * runs may be shared, read-only, or somebody else's.
 *
 * The file is a cache: one that is missing, corrupt, of another format or written by another
 * version of wink-debug is ignored (and rewritten on the next save), never an error. A folder
 * that cannot be made private (0700) is not used.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RunDigestView } from "../../shared/viewer/index.js";

/** The file's `format`; `version` changes whenever its shape does. */
export const RUN_INDEX_FORMAT = "wink-debug-run-index";
export const RUN_INDEX_VERSION = 1;

/** One run as the index keeps it: the version of its file it was read from, and its digest. */
export interface RunIndexEntry {
  /** Relative to the target (POSIX separators): the run list's path. */
  readonly run: string;
  readonly mtimeMs: number;
  /** The file's size; null when the source of the entry did not record it. */
  readonly size: number | null;
  /** A remote object's ETag (null for a local file). */
  readonly version: string | null;
  readonly digest: RunDigestView;
}

export interface RunIndexStore {
  /** The file the index is kept in. */
  readonly file: string;
  /** The entries saved, or null when there is no usable file. */
  load(): Promise<RunIndexEntry[] | null>;
  /** Replaces the file's content (temp file + rename: a reader never sees half a file). */
  save(entries: readonly RunIndexEntry[]): Promise<void>;
}

/** The user's cache directory for wink-debug: `$XDG_CACHE_HOME/wink-debug` (an absolute one), else `~/.cache/wink-debug`. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec: a relative path is invalid and is ignored.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache");
  return path.join(base, "wink-debug");
}

/**
 * Where a target's run index is kept: for a local folder the user's cache directory, for a
 * remote store its `--cache-dir` (null without one: a remote store is never cached
 * unasked), and nowhere (null) with `--no-cache`. The viewer and the commands choose alike,
 * so each reads what the other kept.
 */
export function runIndexDir(target: { readonly remote: boolean; readonly cacheDir?: string | undefined; readonly cache: boolean }, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!target.cache) return null;
  return target.remote ? (target.cacheDir ?? null) : userCacheDir(env);
}

/** The index file of `root` (a local folder's real path, or a store's URL without credentials) in `dir`. */
export function runIndexFile(dir: string, root: string, recursive: boolean): string {
  const hash = createHash("sha256").update(`${root}\u0000${recursive ? "recursive" : "flat"}`).digest("hex").slice(0, 32);
  return path.join(dir, `run-index-${hash}.json`);
}

interface SavedIndex {
  readonly format: typeof RUN_INDEX_FORMAT;
  readonly version: typeof RUN_INDEX_VERSION;
  /** The wink-debug that wrote it: digests of another version may be shaped or counted differently. */
  readonly producer: string;
  readonly root: string;
  readonly recursive: boolean;
  readonly entries: readonly RunIndexEntry[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Enough of an entry's shape that answers built from it cannot throw (the digest was written by this same version). */
function isEntry(value: unknown): value is RunIndexEntry {
  if (!isObject(value) || typeof value.run !== "string" || typeof value.mtimeMs !== "number") return false;
  if (value.size !== null && typeof value.size !== "number") return false;
  if (value.version !== null && typeof value.version !== "string") return false;
  const digest = value.digest;
  return isObject(digest) && digest.run === value.run && typeof digest.outcome === "string" && typeof digest.modified_at === "string" && Array.isArray(digest.failures) && digest.failures.every(isObject);
}

/**
 * Makes `dir` (and what is missing above it) with mode 0700; true when it is a folder of this
 * user's that nobody else may write. Any other answer is "do not keep the index there".
 */
async function privateDir(dir: string): Promise<boolean> {
  try {
    const created = await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is masked by the umask, and only the last folder is ours to tighten.
    if (created !== undefined) await chmod(dir, 0o700);
    const info = await lstat(dir);
    const uid = process.getuid?.() ?? null;
    return info.isDirectory() && (uid === null || info.uid === uid) && (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * The store of `root`'s index in `dir`, as wink-debug `producer` (its version: a file another
 * version wrote is read again, not trusted) keeps it. `dir` is made private (0700) on first
 * save; when it cannot be, `onUnusable` hears why once and nothing is written.
 */
export function runIndexStore(dir: string, root: string, recursive: boolean, producer: string, onUnusable?: (message: string) => void): RunIndexStore {
  const file = runIndexFile(dir, root, recursive);
  let usable: Promise<boolean> | null = null;
  const ready = (): Promise<boolean> => {
    usable ??= privateDir(dir).then((ok) => {
      if (!ok) onUnusable?.(`the run index is not kept: ${dir} cannot be made a private folder of this user's`);
      return ok;
    });
    return usable;
  };
  return {
    file,
    async load() {
      let saved: unknown;
      try {
        saved = JSON.parse(await readFile(file, "utf8"));
      } catch {
        return null;
      }
      if (!isObject(saved) || saved.format !== RUN_INDEX_FORMAT || saved.version !== RUN_INDEX_VERSION || saved.producer !== producer) return null;
      if (saved.root !== root || saved.recursive !== recursive || !Array.isArray(saved.entries)) return null;
      return saved.entries.filter(isEntry);
    },
    async save(entries) {
      if (!(await ready())) return;
      const content: SavedIndex = { format: RUN_INDEX_FORMAT, version: RUN_INDEX_VERSION, producer, root, recursive, entries };
      const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        const handle = await open(temp, "wx", 0o600);
        try {
          await handle.writeFile(JSON.stringify(content));
        } finally {
          await handle.close();
        }
        await rename(temp, file);
      } catch {
        // A full disk or a vanished folder loses the cache, not the answer.
        await unlink(temp).catch(() => undefined);
      }
    },
  };
}
