// Public API of shared/snapshots (re-exported by shared/index.ts).
export * from "./types.js";
export {
  ArchiveSnapshotManager,
  checkSnapshotId,
  defaultArchiveSnapshotDir,
  exportArchiveAtomically,
  type SnapshotInfo,
} from "./archive-snapshot-manager.js";
export { HostSnapshots, type HostSnapshotOptions } from "./host/host-snapshots.js";
export { HOST_SNAPSHOT_STRATEGIES, type HostSnapshotStrategyName } from "./host/strategy.js";
export { detectHostSnapshotStrategy, supportsReflink } from "./host/detect-strategy.js";
export { isGitAvailable, FORCED_ATTRIBUTES } from "./host/git-process.js";
export { DEFAULT_RETENTION_POLICY, selectSnapshotsToPrune, type PruneSelectionOptions, type SnapshotRetentionPolicy } from "./retention.js";
export { SnapshotStore, isSnapshotRecord, type SnapshotReleaser, type SnapshotStoreOptions } from "./snapshot-store.js";
export { releaseSnapshotStorage } from "./host/release.js";
export type { OperationStats } from "./host/strategy.js";
export {
  restoreSessionSlices,
  restoreWithFilesystem,
  rollbackWithFilesystem,
  snapshotWithFilesystem,
  type CoordinatedSnapshot,
  type CoordinatedSnapshotOptions,
  type NativeSnapshotTarget,
} from "./session-coordination.js";
export { FILESYSTEM_SNAPSHOT_TYPE, snapshotRecordFromSession, snapshotRecordToSession } from "./snapshot-record-json.js";
