/**
 * The per-tool-call undo stores next to session files, read-only and confined: the store of
 * session S in `<dir>/X.jsonl` is `<dir>/undo/snapshots/S/` (docs/undo.md). Only real
 * directories and regular files are read — a symlink anywhere on the way (the store's
 * directories, a snapshot directory, a manifest, a body) is treated as absent — and session
 * ids that cannot name a directory (`..`, `/`, …) have no store.
 */
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { UNDO_BODIES_DIR, UNDO_MANIFEST_NAME, UNDO_SNAPSHOTS_DIR, isUndoBodyHash, isValidUndoSessionId, UNDO_STATE_DIR_NAME, readToolCallChanges } from "../../shared/undo/index.js";
import type { BodyLoader, ToolCallChangesResult } from "../../shared/undo/index.js";
import { readRegularFile } from "../../shared/filesystem/index.js";

/** A session's undo store as read: the changes by tool call (no contents) and a loader for its bodies. */
export interface UndoSessionStore {
  readonly changes: ToolCallChangesResult;
  readonly loadBody: BodyLoader;
}

export interface UndoStoresOptions {
  /** Largest manifest read (default 16 MiB). */
  maxManifestBytes?: number;
  /** Largest body read (default 64 MiB). */
  maxBodyBytes?: number;
  /** Only files under this directory (a real path) are read: the served root. */
  root?: string;
}

/** How long a read store is reused without looking at the disk again (as resolved workspaces). */
const STORE_TTL_MS = 1000;
const MAX_CACHED_STORES = 64;
/**
 * A regular file's bytes, or null when it is not one (a symlink, a FIFO — never waited on —
 * or a file swapped since its lstat), lies outside `root`, or is larger than `maxBytes`.
 */
async function readStoreFile(file: string, maxBytes: number, root: string | undefined): Promise<Buffer | null> {
  const read = await readRegularFile(file, { maxBytes, ...(root === undefined ? {} : { root }) }).catch(() => null);
  return read === null ? null : read.bytes;
}

async function isRealDirectory(directory: string): Promise<boolean> {
  const stats = await lstat(directory).catch(() => null);
  return stats !== null && stats.isDirectory();
}

export class UndoStores {
  readonly #maxManifestBytes: number;
  readonly #maxBodyBytes: number;
  readonly #root: string | undefined;
  readonly #cache = new Map<string, { at: number; value: Promise<UndoSessionStore | null> }>();
  /** The last read of each store, reused while its manifests have not changed. */
  readonly #lastRead = new Map<string, { signature: string; value: UndoSessionStore }>();

  constructor(options: UndoStoresOptions = {}) {
    this.#maxManifestBytes = options.maxManifestBytes ?? 16 * 1024 * 1024;
    this.#maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
    this.#root = options.root;
  }

  /**
   * The undo store of `sessionId` next to the session file at `sessionFilePath` (an absolute
   * path found by walking the served directory), or null when there is none.
   */
  async session(sessionFilePath: string, sessionId: string): Promise<UndoSessionStore | null> {
    if (!isValidUndoSessionId(sessionId)) return null;
    const directory = path.join(path.dirname(sessionFilePath), UNDO_STATE_DIR_NAME, UNDO_SNAPSHOTS_DIR, sessionId);
    const now = Date.now();
    const hit = this.#cache.get(directory);
    if (hit !== undefined && now - hit.at < STORE_TTL_MS) return hit.value;
    const value = this.#read(directory);
    this.#cache.delete(directory);
    this.#cache.set(directory, { at: now, value });
    value.catch(() => this.#cache.delete(directory));
    if (this.#cache.size > MAX_CACHED_STORES) {
      const oldest = this.#cache.keys().next();
      if (oldest.done !== true) this.#cache.delete(oldest.value);
    }
    return value;
  }

  async #read(directory: string): Promise<UndoSessionStore | null> {
    // The session file's directory holds no symlink (the directory walk never follows one), so
    // a store whose real path differs from its path was reached through a symlink.
    const real = await realpath(directory).catch(() => null);
    if (real !== directory || !(await isRealDirectory(directory))) return null;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return null;
    }
    const names = entries
      .filter((entry) => entry.name !== UNDO_BODIES_DIR && !entry.name.startsWith(".") && entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const bodies = path.join(directory, UNDO_BODIES_DIR);
    const [stats, bodiesReadable] = await Promise.all([inBatches(names, (name) => lstat(path.join(directory, name, UNDO_MANIFEST_NAME)).catch(() => null)), isRealDirectory(bodies)]);
    // Manifests are replaced by rename, so an unchanged (inode, size, mtime) list is an unchanged store.
    const signature = `${bodiesReadable}\n${names.map((name, index) => `${name}:${fingerprint(stats[index] ?? null)}`).join("\n")}`;
    const known = this.#lastRead.get(directory);
    if (known !== undefined && known.signature === signature) return known.value;

    const problems: string[] = [];
    const root = this.#root;
    const texts = await inBatches(names, async (name, index) => {
      const stat = stats[index];
      // A snapshot directory without a manifest is a crashed capture (the store cleans it up on load).
      if (stat === null || stat === undefined) return null;
      const bytes = stat.isFile() ? await readStoreFile(path.join(directory, name, UNDO_MANIFEST_NAME), this.#maxManifestBytes, root) : null;
      if (bytes === null) problems.push(`${name}/${UNDO_MANIFEST_NAME} is not a regular file of at most ${this.#maxManifestBytes} bytes`);
      return bytes?.toString("utf8") ?? null;
    });
    const maxBodyBytes = this.#maxBodyBytes;
    const loadBody: BodyLoader = async (hash) => {
      if (!bodiesReadable || !isUndoBodyHash(hash)) return null;
      const bytes = await readStoreFile(path.join(bodies, hash), maxBodyBytes, root);
      return bytes === null ? null : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    };
    const changes = await readToolCallChanges(
      texts.filter((text): text is string => text !== null),
      loadBody,
      { withContent: false },
    );
    const value = { changes: { ...changes, problems: [...changes.problems, ...problems.map((message) => ({ where: path.basename(directory), message }))] }, loadBody };
    this.#lastRead.delete(directory);
    this.#lastRead.set(directory, { signature, value });
    if (this.#lastRead.size > MAX_CACHED_STORES) {
      const oldest = this.#lastRead.keys().next();
      if (oldest.done !== true) this.#lastRead.delete(oldest.value);
    }
    return value;
  }
}

function fingerprint(stats: Stats | null): string {
  return stats === null ? "-" : `${stats.isFile() ? "f" : "o"}${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** `work` over `items`, a few at a time (a store of thousands of calls opens no thousands of files at once). */
async function inBatches<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, size = 32): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map((item, offset) => work(item, start + offset)))));
  }
  return results;
}
