/**
 * `HostFilesystem`: the `Filesystem` protocol over a host directory. All protocol behaviour
 * comes from `DriverFilesystem`; confinement, atomic writes and crash recovery come from
 * `HostDriver`. Snapshot strategies extend this class and reach the driver through
 * `hostDriver`.
 */
import { DriverFilesystem, type FilesystemOptions } from "../driver-backed/driver-filesystem.js";
import { HostSnapshots, type HostRestoreOptions, type HostSnapshotOptions } from "./snapshots/host-snapshots.js";
import type { FilesystemDiff, FilesystemSnapshot, SnapshotableFilesystem, SnapshotOptions } from "../snapshot-contract.js";
import { HostDriver } from "./host-driver.js";

export interface HostFilesystemOptions extends FilesystemOptions {
  /** The workspace directory (must exist). `fs.root` is this string, unchanged. */
  readonly root: string;
  /** Where crash-recovery journals (and, on the same filesystem, staging) live. Default: `defaultTreeApplyStateDir()`. */
  readonly stateDir?: string;
  /** fsync every write and tree replacement (default true). */
  readonly durable?: boolean;
  /** Native snapshots: strategy (default auto: git when it runs), git dir, snapshot dir, store, retention. */
  readonly snapshots?: Omit<HostSnapshotOptions, "filesystem" | "treeApply">;
}

/** A workspace on the host: every path stays inside `root`, symlinks are never followed. */
export class HostFilesystem extends DriverFilesystem implements SnapshotableFilesystem {
  readonly #snapshots: HostSnapshots;

  constructor(options: HostFilesystemOptions) {
    super(
      new HostDriver({
        root: options.root,
        ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
        ...(options.durable === undefined ? {} : { durable: options.durable }),
      }),
      options,
    );
    // Snapshots live in ./snapshots (this backend's native strategies); restores go through the same applier options.
    const treeApply = { ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }), ...(options.durable === undefined ? {} : { durable: options.durable }) };
    this.#snapshots = new HostSnapshots(options.root, { ...options.snapshots, filesystem: this, treeApply });
  }

  /** The snapshot manager (strategy, list, release, stats). */
  get snapshots(): HostSnapshots {
    return this.#snapshots;
  }

  /** git strategy: the external git directory, null before the first snapshot. */
  get gitDir(): string | null {
    return this.#snapshots.gitDir;
  }

  get currentSnapshotId(): string | null {
    return this.#snapshots.currentSnapshotId;
  }

  snapshot(options?: SnapshotOptions): Promise<FilesystemSnapshot> {
    return this.#snapshots.snapshot(options);
  }

  /** See `HostSnapshots.restore`: a snapshot of another workspace needs `restoreIntoOtherWorkspace`. */
  async restore(snapshot: FilesystemSnapshot, options?: HostRestoreOptions): Promise<void> {
    this.assertWritable();
    await this.#snapshots.restore(snapshot, options);
  }

  diff(base: FilesystemSnapshot, target?: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    return this.#snapshots.diff(base, target ?? null);
  }

  /** Remove all snapshot storage (the git dir…). Idempotent. */
  cleanup(): Promise<void> {
    return this.#snapshots.cleanup();
  }

  /** The confined host driver (for snapshot strategies and tree changes on this root). */
  protected get hostDriver(): HostDriver {
    return this.driver as HostDriver;
  }
}
