/**
 * `PodmanFilesystem`: the `Filesystem` protocol over a directory inside a container, reached
 * only through `podman exec` (no bind mount). All protocol behaviour comes from
 * `DriverFilesystem`; the container side is `PodmanExecDriver`. Native snapshots
 * (`SnapshotableFilesystem`) are copies kept inside the container (`exec-snapshots.ts`).
 */
import type { FilesystemDiff, FilesystemSnapshot, SnapshotableFilesystem, SnapshotOptions } from "../snapshot-contract.js";
import { DriverFilesystem, type FilesystemOptions } from "../driver-backed/driver-filesystem.js";
import { PodmanExecDriver, type PodmanExecDriverOptions } from "./exec-driver.js";
import { ExecSnapshots, type ExecSnapshotOptions } from "./exec-snapshots.js";

export interface PodmanFilesystemOptions extends FilesystemOptions, PodmanExecDriverOptions {
  /** Native snapshots: where they are kept in the container and how many (default: the spec's 10). */
  readonly snapshots?: ExecSnapshotOptions;
}

/** A workspace inside a container; `root` is the container path (e.g. "/workspace"). */
export class PodmanFilesystem extends DriverFilesystem implements SnapshotableFilesystem {
  readonly #snapshots: ExecSnapshots;

  constructor(options: PodmanFilesystemOptions) {
    const driver = new PodmanExecDriver(options);
    super(driver, options);
    this.#snapshots = new ExecSnapshots(driver, options.snapshots);
  }

  /** The exec driver (container id, transport). */
  get execDriver(): PodmanExecDriver {
    return this.driver as PodmanExecDriver;
  }

  /** The native snapshot manager (store directory, list, drop). */
  get snapshots(): ExecSnapshots {
    return this.#snapshots;
  }

  get currentSnapshotId(): string | null {
    return this.#snapshots.currentSnapshotId;
  }

  /** Copy the workspace into the snapshot store inside the container. */
  snapshot(options?: SnapshotOptions): Promise<FilesystemSnapshot> {
    return this.#snapshots.snapshot(options);
  }

  /** Make the workspace exactly the snapshot's state (files created since are removed); all-or-nothing. */
  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    this.assertWritable();
    await this.#snapshots.restore(snapshot);
  }

  diff(base: FilesystemSnapshot, target?: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    return this.#snapshots.diff(base, target ?? null);
  }

  /** Remove this filesystem's snapshot store in the container. Idempotent. */
  cleanup(): Promise<void> {
    return this.#snapshots.cleanup();
  }

  /** End the exec session. Idempotent; a later call starts a new session. */
  close(): Promise<void> {
    return this.execDriver.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
