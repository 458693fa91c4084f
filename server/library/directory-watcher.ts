/**
 * Live reload: watches the served directory and, when session files or archives appear,
 * change or disappear, updates the directory listing, forgets stale archives and tells
 * listeners which files changed. Events are debounced (an agent writing a file in several
 * steps gives one notification). Where `fs.watch` is unavailable it polls instead.
 *
 * A recursive watch on Linux is one inotify watch per folder listed, added as folders appear.
 * Node's own `fs.watch(…, { recursive: true })` there walks the tree synchronously at start and
 * also stat-polls every file (an EvalLoop of 10,000 runs blocked the server's start for over
 * a second, and a run written into a new folder was seen only by the next poll, seconds later).
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import type { ArchiveCache } from "./archive-cache.js";
import { listedFolder } from "./served-files.js";
import type { SnapshotDirectory } from "./snapshot-directory.js";

/** What changed, as the `change` server-sent event carries it (its shape: the route table's `ChangeEvent`). */
export type { ChangeNotice } from "../../shared/viewer/routes/index.js";
import type { ChangeNotice } from "../../shared/viewer/routes/index.js";

export interface DirectoryWatcherOptions {
  debounceMs?: number;
  /** Poll interval when `fs.watch` cannot be used (default 2 s). */
  pollMs?: number;
  /** Force polling (tests). */
  poll?: boolean;
  /** Watch each folder itself instead of `fs.watch`'s recursive mode (default: on Linux, where Node's polls every file). */
  perFolder?: boolean;
}

/** Paths named by events between two checks beyond which the whole directory is listed again. */
const MAX_NAMED = 256;

export class DirectoryWatcher {
  #watcher: FSWatcher | null = null;
  /** Per-folder mode: the watcher of each folder, by its path relative to the root ("" for the root). */
  readonly #folders = new Map<string, FSWatcher>();
  /**
   * Per-folder mode: the paths events named since the last check (relative, `/`), listed
   * again alone; null when a whole listing is due (an event without a name, too many paths).
   */
  #named: Set<string> | null = new Set();
  /** Files indexed after a change notice (the rest of the folder's), one pass at a time. */
  #indexingRest: Promise<void> | null = null;
  #poll: NodeJS.Timeout | null = null;
  #timer: NodeJS.Timeout | null = null;
  #archives = new Set<string>();
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly directory: SnapshotDirectory,
    private readonly archives: ArchiveCache,
    private readonly notify: (notice: ChangeNotice) => void,
    private readonly options: DirectoryWatcherOptions = {},
  ) {}

  start(): void {
    if (!this.options.poll) {
      if (this.directory.recursive && (this.options.perFolder ?? process.platform === "linux")) {
        if (this.#watchFolder("", 0)) void this.#watchBelow("", 0);
        else this.#fallBackToPolling();
        return;
      }
      try {
        this.#watcher = watch(this.directory.root, { recursive: this.directory.recursive, persistent: false }, (_event, name) => this.#onEvent(name));
        this.#watcher.on("error", () => this.#fallBackToPolling());
        return;
      } catch {
        // e.g. out of inotify watches: poll instead
      }
    }
    this.#fallBackToPolling();
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    for (const watcher of this.#folders.values()) watcher.close();
    this.#folders.clear();
    if (this.#poll !== null) clearInterval(this.#poll);
    if (this.#timer !== null) clearTimeout(this.#timer);
  }

  /** Checks the directory now, listing it whole (also what polling does). */
  async check(): Promise<void> {
    return this.#checkNow(true);
  }

  async #checkNow(whole: boolean): Promise<void> {
    while (this.#running !== null) await this.#running;
    const named = whole ? null : this.#named;
    this.#named = new Set();
    this.#running = this.#check(named).finally(() => (this.#running = null));
    return this.#running;
  }

  #fallBackToPolling(): void {
    this.#watcher?.close();
    this.#watcher = null;
    for (const watcher of this.#folders.values()) watcher.close();
    this.#folders.clear();
    if (this.#poll !== null || this.#closed) return;
    this.#poll = setInterval(() => void this.check(), this.options.pollMs ?? 2000);
    this.#poll.unref();
  }

  /** `named`: the path the event is about (relative, `/`), when a per-folder watcher knows it. */
  #onEvent(name: string | Buffer | null, named?: string): void {
    const file = name === null ? "" : name.toString();
    if (file.endsWith(".zip")) this.#archives.add(file.split(path.sep).join("/"));
    if (named === undefined || this.#named === null || this.#named.size >= MAX_NAMED) this.#named = null;
    else this.#named.add(named);
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#checkNow(false), this.options.debounceMs ?? 150);
    this.#timer.unref();
  }

  /** Watches one folder (relative to the root); false when it cannot be (then everything is polled). */
  #watchFolder(relative: string, depth: number): boolean {
    if (this.#closed || this.#folders.has(relative)) return true;
    try {
      const watcher = watch(path.join(this.directory.root, relative), { persistent: false }, (_event, name) => {
        if (name === null) return this.#onEvent(null);
        const child = relative === "" ? name.toString() : `${relative}/${name.toString()}`;
        this.#onEvent(child.split("/").join(path.sep), child);
        // A new folder is watched at once; one that went away (or was renamed) lets its watchers go.
        void this.#followFolder(child, name.toString(), depth + 1);
      });
      watcher.on("error", () => (relative === "" ? this.#fallBackToPolling() : this.#forgetFolder(relative)));
      this.#folders.set(relative, watcher);
      return true;
    } catch (error) {
      // Out of inotify watches (ENOSPC): poll instead. A folder that vanished meanwhile is just not watched.
      if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return false;
      this.#fallBackToPolling();
      return false;
    }
  }

  /** Watches the folders under `relative` that the listing goes into. */
  async #watchBelow(relative: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(path.join(this.directory.root, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (this.#closed || this.#poll !== null) return;
      if (!entry.isDirectory()) continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (!listedFolder(entry.name, child, depth)) continue;
      if (this.#watchFolder(child, depth + 1)) await this.#watchBelow(child, depth + 1);
    }
  }

  async #followFolder(child: string, name: string, depth: number): Promise<void> {
    if (this.#closed || this.#poll !== null || !listedFolder(name, child, depth - 1)) return;
    if (this.#folders.has(child)) {
      // Still there (an event about the folder itself, e.g. its time), or gone: its watchers go with it.
      if ((await readdir(path.join(this.directory.root, child)).catch(() => null)) === null) this.#forgetFolder(child);
      return;
    }
    // A folder, not a link to one (the listing does not follow links either).
    if ((await lstat(path.join(this.directory.root, child)).catch(() => null))?.isDirectory() !== true) return;
    // Files written into it before its watcher was there are found by the listing the event asked for.
    if (this.#watchFolder(child, depth)) await this.#watchBelow(child, depth);
  }

  #forgetFolder(relative: string): void {
    for (const [folder, watcher] of this.#folders) {
      if (relative !== "" && folder !== relative && !folder.startsWith(`${relative}/`)) continue;
      watcher.close();
      this.#folders.delete(folder);
    }
  }

  /** `named`: list only these paths again (what the events named); null: the whole directory. */
  async #check(named: ReadonlySet<string> | null): Promise<void> {
    if (this.#closed) return;
    // A run written into a folder of 10,000 is seen without listing them all (seconds on a loaded machine).
    const changes = (named === null ? null : await this.directory.refreshPaths([...named])) ?? (await this.directory.refresh());
    const archives = [...this.#archives];
    this.#archives.clear();
    for (const archive of archives) this.archives.invalidate(path.join(this.directory.root, archive));
    if (changes.added.length + changes.changed.length + changes.removed.length + archives.length === 0) return;
    // The files that changed are indexed before the notice (the pages ask for them next); the
    // rest of the folder's are not waited for: on a start of 10,000 runs that took minutes,
    // and the notice (the eval's new run) with it.
    await this.directory.indexFiles([...changes.added, ...changes.changed]);
    if (this.#closed) return;
    this.notify({ ...changes, archives });
    if (this.#indexingRest === null) this.#indexingRest = this.directory.indexAll().finally(() => (this.#indexingRest = null));
  }
}
