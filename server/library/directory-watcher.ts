/**
 * Live reload: watches the served directory and, when session files or archives appear,
 * change or disappear, updates the directory listing, forgets stale archives and tells
 * listeners which files changed. Events are debounced (an agent writing a file in several
 * steps gives one notification). Where `fs.watch` is unavailable it polls instead.
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";
import path from "node:path";
import type { ArchiveCache } from "./archive-cache.js";
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
}

export class DirectoryWatcher {
  #watcher: FSWatcher | null = null;
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
    if (this.#poll !== null) clearInterval(this.#poll);
    if (this.#timer !== null) clearTimeout(this.#timer);
  }

  /** Checks the directory now (also what polling does). */
  async check(): Promise<void> {
    while (this.#running !== null) await this.#running;
    this.#running = this.#check().finally(() => (this.#running = null));
    return this.#running;
  }

  #fallBackToPolling(): void {
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#poll !== null || this.#closed) return;
    this.#poll = setInterval(() => void this.check(), this.options.pollMs ?? 2000);
    this.#poll.unref();
  }

  #onEvent(name: string | Buffer | null): void {
    const file = name === null ? "" : name.toString();
    if (file.endsWith(".zip")) this.#archives.add(file.split(path.sep).join("/"));
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.check(), this.options.debounceMs ?? 150);
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    if (this.#closed) return;
    const changes = await this.directory.refresh();
    const archives = [...this.#archives];
    this.#archives.clear();
    for (const archive of archives) this.archives.invalidate(path.join(this.directory.root, archive));
    if (changes.added.length + changes.changed.length + changes.removed.length + archives.length === 0) return;
    await this.directory.indexAll();
    if (!this.#closed) this.notify({ ...changes, archives });
  }
}
