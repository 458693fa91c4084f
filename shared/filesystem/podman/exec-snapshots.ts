/**
 * Native snapshots of the exec-based `PodmanFilesystem`, for containers without a bind mount:
 * everything happens inside the container, driven through the exec helper, with only the
 * tools a busybox rootfs has (no git there).
 *
 * - snapshot: `cp -a` of the root (the helper's reserved names left out) into
 *   `<store>/.tmp-<id>/tree`, then the record is written beside it and the directory renamed to
 *   `<store>/<id>` — a snapshot is either whole and listed, or absent;
 * - restore: the tree is copied into a staged directory in the root and swapped in under the
 *   helper's journal, like an archive import: all-or-nothing, files created since are gone;
 * - diff: both sides' trees are walked (stat only); files whose size and mode agree are then
 *   compared in the container by SHA-256, one `sha256sum` per side and batch (a process per
 *   file would cost far more than the hashing).
 *
 * The store (default `<tempDir>/wink-snapshots/<hash of the root>`) lies outside the root, so
 * tools and agent writes cannot reach it through the filesystem. A snapshot costs a full copy
 * of the workspace inside the container (no copy-on-write in a busybox container); retention
 * (default: the spec's 10, tagged ones kept) bounds how many copies exist.
 */
import { createHash, randomUUID } from "node:crypto";
import { hasErrorCode, InvalidArgumentError, SnapshotCreationError, SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError } from "../../errors.js";
import { DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, type SnapshotRetentionPolicy } from "../snapshot-retention.js";
import type { FilesystemDiff, FilesystemSnapshot, SnapshotOptions } from "../snapshot-contract.js";
import type { WalkEntry } from "../driver.js";
import { comparePaths } from "../paths.js";
import type { PodmanExecDriver } from "./exec-driver.js";
import { parseScan } from "./exec-driver.js";

export const EXEC_SNAPSHOT_STRATEGY = "exec-copy";

export interface ExecSnapshotOptions {
  /** Directory in the container holding the snapshots (default `<tempDir>/wink-snapshots/<hash of the root>`). */
  readonly snapshotDir?: string;
  /** Snapshots kept after each new one (default: the spec's 10, tagged ones kept); null keeps every snapshot. */
  readonly retention?: SnapshotRetentionPolicy | null;
}

/** Files compared per `cmpmany` request. */
const CMP_BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isRecord(value: unknown): value is FilesystemSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.snapshotId === "string" && UUID.test(r.snapshotId) && typeof r.createdAt === "string" && r.backend === "podman" && r.strategy === EXEC_SNAPSHOT_STRATEGY && typeof r.storagePath === "string";
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The default store of a root: one directory per root, so instances on other roots never meet. */
export function defaultExecSnapshotDir(tempDir: string, root: string): string {
  return `${tempDir}/wink-snapshots/${createHash("sha256").update(root).digest("hex").slice(0, 16)}`;
}

interface Leaf {
  readonly size: number;
  readonly mode: number | null;
}

/** Regular files of a scan, by path. */
function leaves(entries: readonly WalkEntry[]): Map<string, Leaf> {
  const files = new Map<string, Leaf>();
  for (const entry of entries) if (entry.kind === "file") files.set(entry.path, { size: entry.size, mode: entry.mode });
  return files;
}

export class ExecSnapshots {
  readonly snapshotDir: string;
  private current: string | null = null;
  private held: FilesystemSnapshot[] | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly retention: SnapshotRetentionPolicy | null;

  constructor(
    private readonly driver: PodmanExecDriver,
    options: ExecSnapshotOptions = {},
  ) {
    this.snapshotDir = (options.snapshotDir ?? defaultExecSnapshotDir(driver.tempDir, driver.root)).replace(/\/+$/, "");
    if (!this.snapshotDir.startsWith("/") || /[\u0000-\u001f\u007f]/.test(this.snapshotDir) || this.snapshotDir.split("/").some((s) => s === "." || s === "..")) {
      throw new InvalidArgumentError(`snapshotDir must be an absolute, normalised container path: ${JSON.stringify(options.snapshotDir)}`, { snapshotDir: options.snapshotDir ?? null });
    }
    if (this.snapshotDir === driver.root || this.snapshotDir.startsWith(`${driver.root}/`) || driver.root.startsWith(`${this.snapshotDir}/`)) {
      throw new InvalidArgumentError(`snapshotDir ${this.snapshotDir} must lie outside the workdir ${driver.root} (and not contain it)`, { snapshotDir: this.snapshotDir, workdir: driver.root });
    }
    this.retention = options.retention === undefined ? DEFAULT_RETENTION_POLICY : options.retention;
  }

  get currentSnapshotId(): string | null {
    return this.current;
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Copy the workspace into the store. */
  snapshot(options: SnapshotOptions = {}): Promise<FilesystemSnapshot> {
    return this.serial(async () => {
      const snapshotId = randomUUID();
      const createdAt = new Date().toISOString();
      let record: FilesystemSnapshot;
      try {
        const scan = await this.driver.helperRequest("snapshot", [this.driver.root, this.snapshotDir, snapshotId], { action: "snapshot" });
        const files = leaves(parseScan(scan.body, `${this.snapshotDir}/.tmp-${snapshotId}/tree`));
        record = {
          snapshotId,
          createdAt,
          parentId: this.current,
          tag: options.tag ?? null,
          fileCount: files.size,
          totalBytes: [...files.values()].reduce((sum, file) => sum + file.size, 0),
          backend: "podman",
          strategy: EXEC_SNAPSHOT_STRATEGY,
          commitRef: snapshotId,
          rootPath: this.driver.root,
          storagePath: `${this.snapshotDir}/${snapshotId}`,
        };
        const json = Buffer.from(JSON.stringify(record), "utf8");
        await this.driver.helperRequest("snapcommit", [this.snapshotDir, snapshotId, String(json.length)], { action: "commit a snapshot", payload: { size: json.length, source: json } });
      } catch (error) {
        await this.driver.helperRequest("snapdrop", [this.snapshotDir, snapshotId], { action: "discard a snapshot" }).catch(() => undefined);
        throw new SnapshotCreationError(`Failed to create snapshot of ${this.driver.root} in container ${this.driver.container}: ${message(error)}`, { root: this.driver.root }, { cause: error });
      }
      this.current = snapshotId;
      if (this.retention !== null) await this.applyRetention(record, this.retention);
      return record;
    });
  }

  private async applyRetention(record: FilesystemSnapshot, policy: SnapshotRetentionPolicy): Promise<void> {
    this.held ??= (await this.readRecords()).filter((held) => held.rootPath === this.driver.root && held.storagePath === `${this.snapshotDir}/${held.snapshotId}`);
    if (!this.held.some((held) => held.snapshotId === record.snapshotId)) this.held.push(record);
    const pruned = selectSnapshotsToPrune(this.held, policy, { protect: [record.snapshotId] });
    if (pruned.length === 0) return;
    await this.driver.helperRequest("snapdrop", [this.snapshotDir, ...pruned.map((snapshot) => snapshot.snapshotId)], { action: "release snapshots" });
    const gone = new Set(pruned.map((snapshot) => snapshot.snapshotId));
    this.held = this.held.filter((held) => !gone.has(held.snapshotId));
  }

  /** The store and name of one of our snapshots; SnapshotIncompatibleError for any other kind. */
  private locate(snapshot: FilesystemSnapshot): { store: string; name: string } {
    if (snapshot.backend !== "podman" || snapshot.strategy !== EXEC_SNAPSHOT_STRATEGY) {
      throw new SnapshotIncompatibleError(`A ${snapshot.backend}/${snapshot.strategy} snapshot cannot be used with an exec-based Podman filesystem`, {
        snapshotId: snapshot.snapshotId,
        backend: snapshot.backend,
        strategy: snapshot.strategy,
      });
    }
    const storage = snapshot.storagePath ?? "";
    const slash = storage.lastIndexOf("/");
    const store = storage.slice(0, slash);
    const name = storage.slice(slash + 1);
    if (slash <= 0 || name !== snapshot.snapshotId || !UUID.test(name) || /[\u0000-\u001f\u007f]/.test(store) || store.split("/").some((s) => s === "." || s === "..")) {
      throw new SnapshotIncompatibleError(`Snapshot ${snapshot.snapshotId} names no exec snapshot storage (${JSON.stringify(snapshot.storagePath ?? null)})`, { snapshotId: snapshot.snapshotId });
    }
    return { store, name };
  }

  /** Make the workspace exactly the snapshot's state, all-or-nothing. */
  restore(snapshot: FilesystemSnapshot): Promise<void> {
    return this.serial(async () => {
      const { store, name } = this.locate(snapshot);
      try {
        await this.driver.replaceTreeInContainer(async (stage) => {
          await this.driver.helperRequest("snaprestore", [this.driver.root, store, name, stage], { action: "restore a snapshot" });
        });
      } catch (error) {
        const reason = hasErrorCode(error, "ENOENT") ? `unknown snapshot: ${store}/${name} does not exist in container ${this.driver.container} (released, or taken elsewhere)` : message(error);
        throw new SnapshotRestoreError(`Failed to restore snapshot ${snapshot.snapshotId}: ${reason}`, { snapshotId: snapshot.snapshotId, storagePath: snapshot.storagePath ?? null }, { cause: error });
      }
      this.current = snapshot.snapshotId;
    });
  }

  private async treeEntries(snapshot: FilesystemSnapshot): Promise<{ dir: string; files: Map<string, Leaf> }> {
    const { store, name } = this.locate(snapshot);
    const dir = `${store}/${name}/tree`;
    try {
      return { dir, files: leaves(await this.driver.walkDirectory(dir, "read a snapshot")) };
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) throw new SnapshotNotFoundError(snapshot.snapshotId, `Unknown snapshot: ${snapshot.snapshotId} (${store}/${name} does not exist)`);
      throw error;
    }
  }

  /** Files added, modified (bytes or permission bits) and deleted from `base` to `target` (default: now), sorted. */
  diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null = null): Promise<FilesystemDiff> {
    return this.serial(async () => {
      const from = await this.treeEntries(base);
      const to = target === null ? { dir: this.driver.root, files: leaves(await this.collect(this.driver.walk(""))) } : await this.treeEntries(target);
      const added: string[] = [];
      const modified: string[] = [];
      const deleted: string[] = [];
      const candidates: string[] = [];
      for (const [path, leaf] of to.files) {
        const before = from.files.get(path);
        if (before === undefined) added.push(path);
        else if (before.size !== leaf.size || before.mode !== leaf.mode) modified.push(path);
        else candidates.push(path);
      }
      for (const path of from.files.keys()) if (!to.files.has(path)) deleted.push(path);
      for (let at = 0; at < candidates.length; at += CMP_BATCH) {
        const batch = candidates.slice(at, at + CMP_BATCH);
        // A name with a newline cannot travel to the helper: it counts as changed.
        const sendable = batch.filter((path) => !path.includes("\n"));
        modified.push(...batch.filter((path) => path.includes("\n")));
        if (sendable.length === 0) continue;
        // "./" first: a file named "-" must never read as standard input.
        const response = await this.driver.helperRequest("cmpmany", [from.dir, to.dir, ...sendable.map((path) => `./${path}`)], { action: "compare snapshot files" });
        for (const line of response.body.toString("latin1").split("\n")) if (line !== "") modified.push(sendable[Number(line)] as string);
      }
      const sorted = (paths: string[]): string[] => paths.sort(comparePaths);
      return { added: sorted(added), modified: sorted(modified), deleted: sorted(deleted), unchangedCount: to.files.size - added.length - modified.length };
    });
  }

  private async collect(entries: AsyncIterable<WalkEntry>): Promise<WalkEntry[]> {
    const out: WalkEntry[] = [];
    for await (const entry of entries) out.push(entry);
    return out;
  }

  /** Records in the store, oldest first (records of other roots sharing the store included). */
  private async readRecords(): Promise<FilesystemSnapshot[]> {
    const response = await this.driver.helperRequest("snaplist", [this.snapshotDir], { action: "list snapshots" });
    const records: FilesystemSnapshot[] = [];
    for (const text of response.body.toString("utf8").split("\u0000")) {
      if (text === "") continue;
      try {
        const parsed: unknown = JSON.parse(text);
        if (isRecord(parsed)) records.push(parsed);
      } catch {
        // a damaged record is not a snapshot
      }
    }
    return records.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.snapshotId < b.snapshotId ? -1 : 1));
  }

  /** Snapshots the store holds, oldest first. */
  list(): Promise<FilesystemSnapshot[]> {
    return this.serial(() => this.readRecords());
  }

  /** Free snapshots' storage (they can no longer be restored); false when none was held. */
  drop(snapshotId: string): Promise<boolean> {
    return this.serial(async () => {
      if (!UUID.test(snapshotId)) return false;
      const existed = (await this.readRecords()).some((record) => record.snapshotId === snapshotId);
      await this.driver.helperRequest("snapdrop", [this.snapshotDir, snapshotId], { action: "release a snapshot" });
      this.held = this.held?.filter((held) => held.snapshotId !== snapshotId) ?? null;
      return existed;
    });
  }

  /** Remove the whole store. Idempotent. */
  cleanup(): Promise<void> {
    return this.serial(async () => {
      await this.driver.helperRequest("snapclean", [this.snapshotDir], { action: "remove snapshots" });
      this.held = null;
      this.current = null;
    });
  }
}
