/**
 * A workspace in a Podman container: a `PodmanSandbox` whose /workspace is a host overlay
 * directory, so the filesystem (host backend with mount point `/workspace`) and commands run
 * in the container see the same files. The container starts lazily on the first command.
 */
import type { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { PodmanSandbox, type PodmanSandboxOptions } from "./podman-sandbox.js";
import type { WorkspaceOptions } from "./workspace.js";
import { Workspace } from "./workspace.js";

export interface ContainerWorkspaceOptions extends WorkspaceOptions {
  /** Sandbox settings (image, limits, …). Host mounts go through `mounts`/`allowedHostRoots` of the workspace. */
  readonly sandbox?: Omit<PodmanSandboxOptions, "mounts">;
}

export class ContainerWorkspace extends Workspace<HostFilesystem> {
  private created: PodmanSandbox | null = null;

  constructor(protected override readonly options: ContainerWorkspaceOptions = {}) {
    super(options);
  }

  protected async createBackend(): Promise<HostFilesystem> {
    this.created = await PodmanSandbox.create({ start: false, ...this.options.sandbox });
    return this.created.filesystem;
  }

  /** The sandbox (container, shell tool, native overlay snapshots); opens the workspace if needed. */
  async sandbox(): Promise<PodmanSandbox> {
    await this.filesystem();
    return this.created as PodmanSandbox;
  }

  protected override async disposeBackend(): Promise<void> {
    const sandbox = this.created;
    this.created = null;
    await sandbox?.close();
  }
}
