// Public API of shared/snapshots (re-exported by shared/index.ts).
export * from "../filesystem/snapshot-contract.js";
export {
  ArchiveSnapshotManager,
  checkSnapshotId,
  defaultArchiveSnapshotDir,
  exportArchiveAtomically,
  type SnapshotInfo,
} from "./archive-snapshot-manager.js";
export { HostSnapshots, type HostRestoreOptions, type HostSnapshotOptions } from "../filesystem/host/snapshots/host-snapshots.js";
export { HOST_SNAPSHOT_STRATEGIES, type HostSnapshotStrategyName } from "../filesystem/host/snapshots/strategy.js";
export { detectHostSnapshotStrategy, supportsReflink } from "../filesystem/host/snapshots/detect-strategy.js";
export { isGitAvailable, FORCED_ATTRIBUTES } from "../filesystem/host/snapshots/git-process.js";
export { DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, type PruneSelectionOptions, type SnapshotRetentionPolicy } from "../filesystem/snapshot-retention.js";
export { SnapshotStore, isSnapshotRecord, type SnapshotReleaser, type SnapshotStoreOptions } from "../filesystem/host/snapshots/snapshot-store.js";
export { releaseSnapshotStorage } from "../filesystem/host/snapshots/release.js";
export type { OperationStats } from "../filesystem/host/snapshots/strategy.js";
