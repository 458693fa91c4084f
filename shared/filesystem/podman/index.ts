// Public API of the podman backend (re-exported by shared/filesystem/index.ts).
export { PodmanFilesystem, type PodmanFilesystemOptions } from "./podman-filesystem.js";
export { ExecSnapshots, EXEC_SNAPSHOT_STRATEGY, defaultExecSnapshotDir, type ExecSnapshotOptions } from "./exec-snapshots.js";
export { PodmanExecDriver, type PodmanExecDriverOptions } from "./exec-driver.js";
export type { ExecTransportKind } from "./exec-transport.js";
export { PodmanContainer, type ContainerExecOptions, type ContainerExecResult, type PodmanContainerOptions, type WorkspaceMount } from "./container.js";
export { Podman, defaultPodman, type PodmanOptions } from "./podman-cli.js";
export { ensureBusyboxImage, ensureBusyboxRootfs, type BusyboxRootfs, type BusyboxRootfsOptions } from "./rootfs.js";
export { hydrateOverlay, type OverlayMount, type OverlayHydration } from "./hydrate.js";
export { reapOrphanedContainers } from "./cleanup.js";
