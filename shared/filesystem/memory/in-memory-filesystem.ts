/**
 * The in-memory backend: the shared `DriverFilesystem` behaviour over a `MemoryDriver`,
 * plus native copy-on-write snapshots (`SnapshotableFilesystem`).
 */
import { SnapshotRestoreError } from "../../errors.js";
import type { SnapshotRetentionPolicy } from "../snapshot-retention.js";
import type { FilesystemDiff, FilesystemSnapshot, SnapshotableFilesystem, SnapshotOptions } from "../snapshot-contract.js";
import { DriverFilesystem, type FilesystemOptions } from "../driver-backed/driver-filesystem.js";
import { MemoryDriver } from "./memory-driver.js";
import { MemorySnapshots } from "./memory-snapshots.js";

export interface InMemoryFilesystemOptions extends FilesystemOptions {
  readonly snapshots?: {
    /** Snapshots kept after each new one (default: the spec's 10, tagged ones kept); null keeps every snapshot. */
    readonly retention?: SnapshotRetentionPolicy | null;
  };
}

/** A session-scoped filesystem held in memory; `root` is "/". Snapshots are O(1) and share unchanged data. */
export class InMemoryFilesystem extends DriverFilesystem implements SnapshotableFilesystem {
  private readonly snapshots: MemorySnapshots;

  constructor(options: InMemoryFilesystemOptions = {}) {
    const driver = new MemoryDriver();
    super(driver, options);
    this.snapshots = options.snapshots?.retention === undefined ? new MemorySnapshots(driver) : new MemorySnapshots(driver, options.snapshots.retention);
  }

  get currentSnapshotId(): string | null {
    return this.snapshots.currentSnapshotId;
  }

  /** Captures the current state in O(1). */
  async snapshot(options: SnapshotOptions = {}): Promise<FilesystemSnapshot> {
    return this.snapshots.take(options.tag ?? null);
  }

  /** Returns to a snapshot of this filesystem in O(1); files created since are gone. */
  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    if (this.readOnly) {
      throw new SnapshotRestoreError(`Filesystem is read-only: cannot restore snapshot ${snapshot.snapshotId}`, {
        snapshotId: snapshot.snapshotId,
        reason: "read-only",
      });
    }
    this.snapshots.restore(snapshot);
  }

  /** Files added, modified (bytes or mode) and deleted from `base` to `target` (default: now), sorted. */
  async diff(base: FilesystemSnapshot, target?: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    return this.snapshots.diff(base, target);
  }

  /** Snapshots this filesystem still holds, oldest first. */
  listSnapshots(): FilesystemSnapshot[] {
    return this.snapshots.list();
  }

  /** Releases a snapshot so its unshared data can be collected; false when it was not held. */
  dropSnapshot(snapshotId: string): boolean {
    return this.snapshots.drop(snapshotId);
  }
}
