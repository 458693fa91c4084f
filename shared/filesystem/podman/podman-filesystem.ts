/**
 * `PodmanFilesystem`: the `Filesystem` protocol over a directory inside a container, reached
 * only through `podman exec` (no bind mount). All protocol behaviour comes from
 * `DriverFilesystem`; the container side is `PodmanExecDriver`. Native snapshots
 * (`SnapshotableFilesystem`) are copies kept inside the container (`exec-snapshots.ts`).
 */
import type { FilesystemOptions } from "../driver-backed/driver-filesystem.js";
import { NativeSnapshotsFilesystem } from "../driver-backed/native-snapshots-filesystem.js";
import { PodmanExecDriver, type PodmanExecDriverOptions } from "./exec-driver.js";
import { ExecSnapshots, type ExecSnapshotOptions } from "./exec-snapshots.js";

export interface PodmanFilesystemOptions extends FilesystemOptions, PodmanExecDriverOptions {
  /** Native snapshots: where they are kept in the container and how many (default: the spec's 10). */
  readonly snapshots?: ExecSnapshotOptions;
}

/** A workspace inside a container; `root` is the container path (e.g. "/workspace"). */
export class PodmanFilesystem extends NativeSnapshotsFilesystem<ExecSnapshots> {
  constructor(options: PodmanFilesystemOptions) {
    const driver = new PodmanExecDriver(options);
    super(driver, options, () => new ExecSnapshots(driver, options.snapshots));
  }

  /** The exec driver (container id, transport). */
  get execDriver(): PodmanExecDriver {
    return this.driver as PodmanExecDriver;
  }

  /** End the exec session. Idempotent; a later call starts a new session. */
  close(): Promise<void> {
    return this.execDriver.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
