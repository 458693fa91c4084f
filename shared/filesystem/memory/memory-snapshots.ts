/**
 * Native snapshots of a `MemoryDriver`: each snapshot is a frozen root of the
 * copy-on-write tree plus its record. Taking and restoring one is O(1); memory grows with
 * what changes between snapshots, not with their number.
 *
 * A retention policy (default: the spec's 10 snapshots, tagged ones kept) drops the oldest
 * snapshots after each new one, so their unshared data can be collected.
 */
import { SnapshotIncompatibleError, SnapshotNotFoundError, SnapshotRestoreError } from "../../errors.js";
import { DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, type SnapshotRetentionPolicy } from "../snapshot-retention.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../snapshot-contract.js";
import type { MemoryDriver } from "./memory-driver.js";
import { diffTrees } from "./tree-diff.js";
import type { FrozenDirectory } from "./tree.js";

export const MEMORY_SNAPSHOT_BACKEND = "in_memory";
export const MEMORY_SNAPSHOT_STRATEGY = "memory-cow";

interface StoredSnapshot {
  readonly record: FilesystemSnapshot;
  readonly root: FrozenDirectory;
}

export class MemorySnapshots {
  private readonly stored = new Map<string, StoredSnapshot>();
  private sequence = 0;
  private current: string | null = null;

  /** `retention`: what to keep after each snapshot (default `DEFAULT_RETENTION_POLICY`; null keeps every snapshot). */
  constructor(
    private readonly driver: MemoryDriver,
    private readonly retention: SnapshotRetentionPolicy | null = DEFAULT_RETENTION_POLICY,
  ) {}

  /** Id of the snapshot last taken or restored, if any. */
  get currentSnapshotId(): string | null {
    return this.current;
  }

  /** Captures the driver's current tree. */
  take(tag: string | null = null): FilesystemSnapshot {
    const root = this.driver.freezeVersion();
    this.sequence += 1;
    const record: FilesystemSnapshot = Object.freeze({
      snapshotId: globalThis.crypto.randomUUID(),
      createdAt: new Date().toISOString(),
      parentId: this.current,
      tag,
      fileCount: root.fileCount,
      totalBytes: root.totalBytes,
      backend: MEMORY_SNAPSHOT_BACKEND,
      strategy: MEMORY_SNAPSHOT_STRATEGY,
      commitRef: `mem-${this.sequence}`,
      rootPath: this.driver.root,
    });
    this.stored.set(record.snapshotId, { record, root });
    this.current = record.snapshotId;
    if (this.retention !== null) {
      for (const pruned of selectSnapshotsToPrune(this.list(), this.retention, { protect: [record.snapshotId] })) this.stored.delete(pruned.snapshotId);
    }
    return record;
  }

  private checkCompatible(snapshot: FilesystemSnapshot): void {
    if (snapshot.backend !== MEMORY_SNAPSHOT_BACKEND || snapshot.strategy !== MEMORY_SNAPSHOT_STRATEGY) {
      throw new SnapshotIncompatibleError(
        `Snapshot ${snapshot.snapshotId} was taken by the ${snapshot.backend} backend (${snapshot.strategy}); ` +
          "an in-memory filesystem restores only its own memory-cow snapshots",
        { snapshotId: snapshot.snapshotId, backend: snapshot.backend, strategy: snapshot.strategy },
      );
    }
  }

  /** Makes a snapshot's tree the live one. */
  restore(snapshot: FilesystemSnapshot): void {
    this.checkCompatible(snapshot);
    const stored = this.stored.get(snapshot.snapshotId);
    if (stored === undefined) {
      throw new SnapshotRestoreError(
        `Unknown snapshot: ${snapshot.snapshotId} (${snapshot.commitRef}) was not taken by this filesystem or was dropped`,
        { snapshotId: snapshot.snapshotId, commitRef: snapshot.commitRef },
      );
    }
    this.driver.restoreVersion(stored.root);
    this.current = stored.record.snapshotId;
  }

  private rootOf(snapshot: FilesystemSnapshot): FrozenDirectory {
    this.checkCompatible(snapshot);
    const stored = this.stored.get(snapshot.snapshotId);
    if (stored === undefined) {
      throw new SnapshotNotFoundError(snapshot.snapshotId, `Unknown snapshot: ${snapshot.snapshotId} (${snapshot.commitRef})`);
    }
    return stored.root;
  }

  /** Changes from `base` to `target`, or to the current state when `target` is omitted. */
  diff(base: FilesystemSnapshot, target?: FilesystemSnapshot | null): FilesystemDiff {
    const baseRoot = this.rootOf(base);
    const targetRoot = target ? this.rootOf(target) : this.driver.currentVersion;
    return diffTrees(baseRoot, targetRoot);
  }

  /** The record of a held snapshot, or null. */
  get(snapshotId: string): FilesystemSnapshot | null {
    return this.stored.get(snapshotId)?.record ?? null;
  }

  /** Held snapshots, oldest first. */
  list(): FilesystemSnapshot[] {
    return Array.from(this.stored.values(), (stored) => stored.record);
  }

  /** Releases a snapshot's tree; false when it was not held. */
  drop(snapshotId: string): boolean {
    return this.stored.delete(snapshotId);
  }
}
