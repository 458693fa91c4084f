/**
 * Live reload for a remote store (`--poll SECONDS`): no directory to watch, so the listing
 * is read again at the interval the user set. A session file or bundle whose size, mtime
 * or ETag changed loses its index; a workspace archive whose version changed is closed and
 * reopened on next use. Where listings carry no ETags (HTTP directory listings), the files
 * the viewer holds an index of are also revalidated (`If-None-Match`), one small request
 * each. A failed poll changes nothing that is served: it is reported (`health`) and the
 * next poll tries again.
 */
import { WinkError } from "../../shared/errors.js";
import type { ArchiveCache } from "./archive-cache.js";
import type { ChangeNotice } from "./directory-watcher.js";
import type { RemoteFiles } from "./remote-files.js";
import type { SnapshotDirectory } from "./snapshot-directory.js";

/** The store as the last poll found it. */
export interface StoreHealth {
  readonly ok: boolean;
  /** The failure's stable code (`E_SOURCE_*`) and message, when the last poll failed. */
  readonly code: string | null;
  readonly detail: string | null;
  /** When the last poll ended (ISO 8601), or null before the first. */
  readonly checkedAt: string | null;
}

export class RemotePoller {
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #closed = false;
  #health: StoreHealth = { ok: true, code: null, detail: null, checkedAt: null };

  constructor(
    private readonly directory: SnapshotDirectory,
    private readonly files: RemoteFiles,
    private readonly archives: ArchiveCache,
    private readonly notify: (notice: ChangeNotice) => void,
    private readonly options: { intervalMs: number },
  ) {}

  get health(): StoreHealth {
    return this.#health;
  }

  start(): void {
    if (this.#closed || this.#timer !== null) return;
    this.#timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.#timer.unref();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
  }

  /** Polls now (what the timer does); one poll at a time. */
  async check(): Promise<void> {
    while (this.#running !== null) await this.#running;
    this.#running = this.#check().finally(() => (this.#running = null));
    return this.#running;
  }

  async #check(): Promise<void> {
    if (this.#closed) return;
    const wasOk = this.#health.ok;
    let notice: ChangeNotice;
    try {
      notice = await this.#poll();
      this.#health = { ok: true, code: null, detail: null, checkedAt: new Date().toISOString() };
    } catch (error) {
      const code = error instanceof WinkError ? error.code : "E_SOURCE_FAILED";
      this.#health = { ok: false, code, detail: error instanceof Error ? error.message : String(error), checkedAt: new Date().toISOString() };
      // Tell the pages once, when the store starts failing (they show it); nothing served changes.
      if (wasOk && !this.#closed) this.notify({ added: [], changed: [], removed: [], archives: [] });
      return;
    }
    const count = notice.added.length + notice.changed.length + notice.removed.length + notice.archives.length;
    if (!this.#closed && (count > 0 || !wasOk)) this.notify(notice);
  }

  async #poll(): Promise<ChangeNotice> {
    const before = this.files.archiveVersions();
    const changes = await this.directory.refresh();
    const after = this.files.archiveVersions();
    const archives = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));
    for (const key of archives) this.archives.invalidate(this.files.idOf(key));
    const changed = [...changes.changed];
    if (!this.files.source.driver.capabilities.listEtags) {
      for (const record of this.directory.files()) {
        if (record.kind !== "session" || record.index === null || changes.changed.includes(record.path) || changes.added.includes(record.path)) continue;
        if (await this.files.isCurrent(record.path, record.index)) continue;
        this.directory.forgetIndex(record);
        changed.push(record.path);
      }
    }
    return { added: changes.added, changed, removed: changes.removed, archives };
  }
}
