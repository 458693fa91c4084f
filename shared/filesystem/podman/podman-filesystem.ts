/**
 * `PodmanFilesystem`: the `Filesystem` protocol over a directory inside a container, reached
 * only through `podman exec` (no bind mount). All protocol behaviour comes from
 * `DriverFilesystem`; the container side is `PodmanExecDriver`.
 */
import { DriverFilesystem, type FilesystemOptions } from "../driver-filesystem.js";
import { PodmanExecDriver, type PodmanExecDriverOptions } from "./exec-driver.js";

export interface PodmanFilesystemOptions extends FilesystemOptions, PodmanExecDriverOptions {}

/** A workspace inside a container; `root` is the container path (e.g. "/workspace"). */
export class PodmanFilesystem extends DriverFilesystem {
  constructor(options: PodmanFilesystemOptions) {
    super(new PodmanExecDriver(options), options);
  }

  /** The exec driver (container id, transport). */
  get execDriver(): PodmanExecDriver {
    return this.driver as PodmanExecDriver;
  }

  /** False for anything the sandbox cannot reach: escapes, and paths through symlinks. */
  /** End the exec session. Idempotent; a later call starts a new session. */
  close(): Promise<void> {
    return this.execDriver.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
