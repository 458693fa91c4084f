/**
 * A driver-backed filesystem whose snapshots are kept by a native manager of its backend
 * (the host's strategies, the container's copies): the `SnapshotableFilesystem` methods
 * are the manager's, behind the read-only check every restore needs.
 */
import type { FilesystemDriver } from "../driver.js";
import type { Filesystem } from "../protocol.js";
import type { FilesystemDiff, FilesystemSnapshot, SnapshotableFilesystem, SnapshotOptions } from "../snapshot-contract.js";
import { DriverFilesystem, type FilesystemOptions } from "./driver-filesystem.js";

/** What a backend's snapshot manager offers its filesystem. */
export interface NativeSnapshotManager<RestoreOptions> {
  readonly currentSnapshotId: string | null;
  snapshot(options?: SnapshotOptions): Promise<FilesystemSnapshot>;
  restore(snapshot: FilesystemSnapshot, options?: RestoreOptions): Promise<void>;
  diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff>;
  cleanup(): Promise<void>;
}

export abstract class NativeSnapshotsFilesystem<Manager extends NativeSnapshotManager<RestoreOptions>, RestoreOptions = never> extends DriverFilesystem implements SnapshotableFilesystem {
  /** The snapshot manager (strategy, list, release, stats). */
  readonly snapshots: Manager;

  /** `snapshots` makes the manager; it is given this filesystem (a strategy may read through it). */
  protected constructor(driver: FilesystemDriver, options: FilesystemOptions, snapshots: (filesystem: Filesystem) => Manager) {
    super(driver, options);
    this.snapshots = snapshots(this);
  }

  get currentSnapshotId(): string | null {
    return this.snapshots.currentSnapshotId;
  }

  snapshot(options?: SnapshotOptions): Promise<FilesystemSnapshot> {
    return this.snapshots.snapshot(options);
  }

  /** Makes the workspace exactly the snapshot's state (files created since are removed); all-or-nothing. */
  async restore(snapshot: FilesystemSnapshot, options?: RestoreOptions): Promise<void> {
    this.assertWritable();
    await this.snapshots.restore(snapshot, options);
  }

  diff(base: FilesystemSnapshot, target?: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    return this.snapshots.diff(base, target ?? null);
  }

  /** Removes this filesystem's snapshot storage. Idempotent. */
  cleanup(): Promise<void> {
    return this.snapshots.cleanup();
  }
}
