// Public API of shared/session (re-exported by shared/index.ts): the browser-safe readers
// and writers plus the Node-only file reader and dumpers.
export * from "./browser.js";
export * from "./session-file.node.js";
export * from "./dump-session.node.js";
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
