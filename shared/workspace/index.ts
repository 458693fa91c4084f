// Public API of shared/workspace (re-exported by shared/index.ts): the workspace owner and
// its variants, and host mounts.
export { HostWorkspace, InMemoryWorkspace, Workspace, type ExportSnapshotOptions, type FilesystemSnapshotRef, type HostWorkspaceOptions, type WorkspaceOptions } from "./workspace.js";
export { ContainerWorkspace, type ContainerWorkspaceOptions } from "./container-workspace.js";
export { DEFAULT_MOUNT_MAX_BYTES, hydrateHostMounts, type HostMountConfig, type HydrateOptions, type MountSummary } from "./host-mounts.node.js";
export { PodmanSandbox, reapOrphanedSandboxes, type PodmanSandboxOptions, type SandboxSnapshotStrategy } from "./podman-sandbox.js";
