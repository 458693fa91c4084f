/**
 * `HostFilesystem`: the `Filesystem` protocol over a host directory. All protocol behaviour
 * comes from `DriverFilesystem`; confinement, atomic writes and crash recovery come from
 * `HostDriver`. Snapshot strategies extend this class and reach the driver through
 * `hostDriver`.
 */
import type { FilesystemOptions } from "../driver-backed/driver-filesystem.js";
import { NativeSnapshotsFilesystem } from "../driver-backed/native-snapshots-filesystem.js";
import { HostSnapshots, type HostRestoreOptions, type HostSnapshotOptions } from "./snapshots/host-snapshots.js";
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

/**
 * A workspace on the host: every path stays inside `root`, symlinks are never followed.
 * `restore` refuses a snapshot of another workspace unless `restoreIntoOtherWorkspace` says so.
 */
export class HostFilesystem extends NativeSnapshotsFilesystem<HostSnapshots, HostRestoreOptions> {
  constructor(options: HostFilesystemOptions) {
    // Snapshots live in ./snapshots (this backend's native strategies); restores go through the same applier options.
    const treeApply = { ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }), ...(options.durable === undefined ? {} : { durable: options.durable }) };
    super(new HostDriver({ root: options.root, ...treeApply }), options, (filesystem) => new HostSnapshots(options.root, { ...options.snapshots, filesystem, treeApply }));
  }

  /** git strategy: the external git directory, null before the first snapshot. */
  get gitDir(): string | null {
    return this.snapshots.gitDir;
  }

  /** The confined host driver (for snapshot strategies and tree changes on this root). */
  protected get hostDriver(): HostDriver {
    return this.driver as HostDriver;
  }
}
