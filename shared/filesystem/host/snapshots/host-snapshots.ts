/**
 * `HostSnapshots`: native snapshots of a host directory, the object `HostFilesystem`
 * delegates `snapshot`/`restore`/`diff`/`cleanup` to. It owns the snapshot records'
 * bookkeeping (ids, parent chain, current snapshot) and one storage strategy:
 *
 * - `git` (default when git runs): an external bare repository, O(changes) snapshots;
 * - `reflink`: copy-on-write clones in a snapshot directory (btrfs, XFS, …);
 * - `copy`: plain copies of what changed, earlier snapshots' copies referenced for the rest;
 * - `archive`: a `.fs.zip` per snapshot through the filesystem's export/import.
 *
 * Operations on one instance run one at a time. A snapshot taken by any host strategy can
 * be restored by any instance (the record names its storage).
 *
 * Retention (default: the spec's `max_snapshots = 10`, tagged snapshots kept and counted)
 * runs after each snapshot: the oldest untagged snapshots of the storage — those of earlier
 * processes included — are released. With a `store`, the store's records are pruned instead.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";

import { SnapshotIncompatibleError } from "../../../errors.js";
import type { Filesystem } from "../../protocol.js";
import type { TreeApplyOptions } from "../tree-apply/index.js";
import { DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, type SnapshotRetentionPolicy } from "../../snapshot-retention.js";
import type { SnapshotStore } from "./snapshot-store.js";
import type { FilesystemDiff, FilesystemSnapshot, SnapshotOptions } from "../../snapshot-contract.js";
import { ArchiveSnapshotStrategy } from "./archive-strategy.js";
import { detectHostSnapshotStrategy } from "./detect-strategy.js";
import { DirectorySnapshotStrategy } from "./directory-strategy.js";
import { GitSnapshotStrategy } from "./git-strategy.js";
import { postponeWantedScanPool, scheduleWantedScanPool } from "./scan-pool.js";
import type { HostSnapshotStrategy, HostSnapshotStrategyName, OperationStats, ReleaseOptions, StrategyContext } from "./strategy.js";

export interface HostRestoreOptions {
  /** Restore a snapshot taken of another workspace (another `rootPath`) into this one. */
  readonly restoreIntoOtherWorkspace?: boolean;
}

export interface HostSnapshotOptions {
  /** Storage strategy; "auto" (default): git when it runs, else reflink when the filesystem clones, else copy. */
  readonly strategy?: HostSnapshotStrategyName | "auto";
  /** git: the external repository (default: a new `wink-git-*` under the system temp dir). */
  readonly gitDir?: string | null;
  /** reflink/copy/archive: where snapshots are stored (default: a new `wink-snapshots-*` under the system temp dir). */
  readonly snapshotDir?: string | null;
  /** Options of the crash-safe applier restores go through (use the host backend's). */
  readonly treeApply?: TreeApplyOptions;
  /** The filesystem over `root` (required by the archive strategy). */
  readonly filesystem?: Filesystem | null;
  /** Persist every new snapshot record here (so records survive the process). */
  readonly store?: SnapshotStore | null;
  /**
   * Prune by this policy after each snapshot (the newest is always kept). Default: the spec's
   * 10 snapshots, tagged ones kept; null keeps every snapshot. With a store its records are
   * pruned (and their storage freed); without, the snapshots the storage holds.
   */
  readonly retention?: SnapshotRetentionPolicy | null;
}

export class HostSnapshots {
  readonly root: string;
  private readonly options: HostSnapshotOptions;
  private readonly context: StrategyContext;
  private active: HostSnapshotStrategy | null = null;
  private current: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Records the storage holds, oldest first, for retention (read once from the storage). */
  private held: FilesystemSnapshot[] | null = null;

  constructor(root: string, options: HostSnapshotOptions = {}) {
    this.root = root;
    this.options = options;
    this.context = { root, treeApply: options.treeApply ?? {}, filesystem: options.filesystem ?? null };
    const chosen = options.strategy ?? "auto";
    if (chosen !== "auto") this.active = this.createStrategy(chosen, options);
  }

  /** The strategy in use; null until the first operation when auto-detecting. */
  get strategy(): HostSnapshotStrategyName | null {
    return this.active?.name ?? null;
  }

  /** git strategy: the external repository, null before the first snapshot (or without git). */
  get gitDir(): string | null {
    return this.active instanceof GitSnapshotStrategy ? this.active.gitDir : (this.options.gitDir ?? null);
  }

  /** reflink/copy/archive: the snapshot directory, null before the first snapshot. */
  get snapshotDir(): string | null {
    if (this.active instanceof DirectorySnapshotStrategy || this.active instanceof ArchiveSnapshotStrategy) return this.active.snapshotDir;
    return null;
  }

  /** What the last capture or restore did (files read, paths changed), when the strategy reports it. */
  get lastStats(): OperationStats | null {
    return this.active?.lastStats ?? null;
  }

  /** Id of the snapshot last taken or restored. */
  get currentSnapshotId(): string | null {
    return this.current;
  }

  private createStrategy(name: HostSnapshotStrategyName, options: { gitDir?: string | null; snapshotDir?: string | null }): HostSnapshotStrategy {
    switch (name) {
      case "git":
        return new GitSnapshotStrategy(this.context, { gitDir: options.gitDir ?? null });
      case "reflink":
      case "copy":
        return new DirectorySnapshotStrategy(this.context, { mode: name, snapshotDir: options.snapshotDir ?? null });
      case "archive":
        return new ArchiveSnapshotStrategy(this.context, { snapshotDir: options.snapshotDir ?? null });
      default:
        throw new SnapshotIncompatibleError(`Unknown host snapshot strategy ${JSON.stringify(name)}`, { strategy: String(name) });
    }
  }

  /** Pick the strategy (auto-detection runs once). */
  async resolveStrategy(): Promise<HostSnapshotStrategyName> {
    return (await this.strategyInstance()).name;
  }

  private async strategyInstance(): Promise<HostSnapshotStrategy> {
    if (this.active === null) {
      const name = await detectHostSnapshotStrategy(this.root, this.options.snapshotDir ?? null);
      this.active ??= this.createStrategy(name, this.options);
    }
    return this.active;
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    // A big workspace walked on this thread wants the scan threads for the next operations:
    // they start once this one is over and the caller has heard of it (see scan-pool.ts),
    // not in the middle of the next operation.
    const start = (): Promise<T> => {
      postponeWantedScanPool();
      return task();
    };
    const run = this.queue.then(start, start).finally(scheduleWantedScanPool);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The strategy able to read `snapshot`: ours, or one pointed at the snapshot's own storage. */
  private async strategyFor(snapshot: FilesystemSnapshot): Promise<HostSnapshotStrategy> {
    if (snapshot.backend !== "host") {
      throw new SnapshotIncompatibleError(`A ${snapshot.backend} snapshot cannot be used with a host filesystem`, { snapshotId: snapshot.snapshotId, backend: snapshot.backend });
    }
    const ours = await this.strategyInstance();
    if (snapshot.strategy === ours.name) return ours;
    const name = snapshot.strategy as HostSnapshotStrategyName;
    if (!["git", "reflink", "copy", "archive"].includes(name)) {
      throw new SnapshotIncompatibleError(`Unknown host snapshot strategy ${JSON.stringify(snapshot.strategy)}`, { snapshotId: snapshot.snapshotId });
    }
    return this.createStrategy(name, { gitDir: snapshot.gitDir ?? null, snapshotDir: null });
  }

  /** Capture the workspace. */
  snapshot(options: SnapshotOptions = {}): Promise<FilesystemSnapshot> {
    return this.serial(async () => {
      const strategy = await this.strategyInstance();
      const record = await strategy.capture({ snapshotId: randomUUID(), createdAt: new Date().toISOString(), parentId: this.current, tag: options.tag ?? null });
      this.current = record.snapshotId;
      const retention = this.options.retention === undefined ? DEFAULT_RETENTION_POLICY : this.options.retention;
      const store = this.options.store;
      if (store) {
        await store.save(record);
        // Released like retention without a store: at once, git's gc batched.
        if (retention !== null) await store.prune(retention, { protect: [record.snapshotId], release: (pruned) => this.releaseNow(pruned, { deferCollection: true }) });
      } else if (retention !== null) {
        await this.applyRetention(strategy, record, retention);
      }
      return record;
    });
  }

  /** Release what `policy` no longer keeps of the storage's snapshots (`record` is the new one). */
  private async applyRetention(strategy: HostSnapshotStrategy, record: FilesystemSnapshot, policy: SnapshotRetentionPolicy): Promise<void> {
    // Records of the storage (once, then kept up to date here): earlier processes' count too.
    if (this.held === null) this.held = await strategy.list();
    if (!this.held.some((held) => held.snapshotId === record.snapshotId)) this.held.push(record);
    const pruned = selectSnapshotsToPrune(this.held, policy, { protect: [record.snapshotId] });
    if (pruned.length > 0) await this.releaseNow(pruned, { deferCollection: true });
  }

  /**
   * Make the workspace exactly the snapshot's state (files created since are removed); all-or-nothing.
   * A snapshot of another workspace (another `rootPath`) is refused — restoring it would replace
   * this workspace's files with that one's — unless `restoreIntoOtherWorkspace` says so.
   */
  restore(snapshot: FilesystemSnapshot, options: HostRestoreOptions = {}): Promise<void> {
    if (options.restoreIntoOtherWorkspace !== true && path.resolve(snapshot.rootPath) !== path.resolve(this.root)) {
      return Promise.reject(
        new SnapshotIncompatibleError(`Snapshot ${snapshot.snapshotId} was taken of another workspace (${snapshot.rootPath}), not of ${this.root}; pass restoreIntoOtherWorkspace to restore it here`, {
          snapshotId: snapshot.snapshotId,
          rootPath: snapshot.rootPath,
        }),
      );
    }
    return this.serial(async () => {
      const strategy = await this.strategyFor(snapshot);
      await strategy.restore(snapshot);
      this.current = snapshot.snapshotId;
    });
  }

  /** Changes from `base` to `target`, or to the current workspace when `target` is omitted. */
  diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null = null): Promise<FilesystemDiff> {
    return this.serial(async () => {
      if (target !== null && target.strategy !== base.strategy) {
        throw new SnapshotIncompatibleError(`Cannot compare a ${base.strategy} snapshot with a ${target.strategy} snapshot`, { base: base.snapshotId, target: target.snapshotId });
      }
      return (await this.strategyFor(base)).diff(base, target);
    });
  }

  /** Free the storage behind snapshots (they can no longer be restored). */
  release(...snapshots: FilesystemSnapshot[]): Promise<void> {
    return this.serial(() => this.releaseNow(snapshots));
  }

  /** `release` inside a serialised operation: each snapshot through the strategy that stores it. */
  private async releaseNow(snapshots: readonly FilesystemSnapshot[], options: ReleaseOptions = {}): Promise<void> {
    const byStrategy = new Map<string, FilesystemSnapshot[]>();
    for (const snapshot of snapshots) byStrategy.set(snapshot.strategy, [...(byStrategy.get(snapshot.strategy) ?? []), snapshot]);
    for (const group of byStrategy.values()) await (await this.strategyFor(group[0] as FilesystemSnapshot)).release(group, options);
    const gone = new Set(snapshots.map((snapshot) => snapshot.snapshotId));
    this.held = this.held?.filter((held) => !gone.has(held.snapshotId)) ?? null;
  }

  /** Records of the snapshots the storage holds (also those of earlier processes), oldest first. */
  list(): Promise<FilesystemSnapshot[]> {
    return this.serial(async () => (await this.strategyInstance()).list());
  }

  /** Remove all snapshot storage. Idempotent; safe before any snapshot. */
  cleanup(): Promise<void> {
    return this.serial(async () => {
      if (this.active !== null) await this.active.cleanup();
      this.current = null;
      this.held = null;
    });
  }
}
