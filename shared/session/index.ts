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

// What server/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export { EventLoopSlices } from "./event-loop-slices.js";
export { lineFromBytes } from "./line-text.js";
export { SessionIndexBuilder, linesOfChunks, snapshotFromLineBytes } from "./session-scan.node.js";
export { parseSnapshotLine } from "./snapshot-line.js";
export { strictJsonChunks } from "./strict-json.js";
export { transcodeStrictJson } from "./strict-json-transcoder.js";

// What server/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export { SessionLines } from "./session-lines.js";
