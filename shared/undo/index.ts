// Public API of shared/undo (re-exported by shared/index.ts): per-tool-call pre-images with
// turn rollback and redo, the capturing filesystem, the ACP handler and the store reader.
export * from "./browser.js";
export {
  DEFAULT_SESSION_BYTE_CAP,
  UndoStore,
  type MutationIntent,
  type RegisterOptions,
  type RestoreResult,
  type TurnRestoreResult,
  type UndoSnapshotInfo,
  type UndoStoreOptions,
} from "./undo-store.node.js";
export { CapturingFilesystem, invokeToolWithUndo, type CaptureBinding, type ToolCallOptions } from "./capturing-filesystem.js";
export {
  ACP_PROTOCOL_VERSION,
  AcpUndoHandler,
  JSON_RPC_ERROR_CODES,
  JSON_RPC_VERSION,
  toJsonRpcError,
  undoSessionCapabilities,
  type AcpUndoHandlerOptions,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type UndoBackend,
} from "./acp-handler.js";
export { DEFAULT_MAX_MESSAGE_BYTES, NdjsonConnection, serveAcpUndoStdio, type AcpStdioOptions, type NdjsonConnectionOptions } from "./ndjson-transport.node.js";
export { WorkspaceChangeTracker, type ChangeTrackingStrategy, type TrackOptions, type WorkspaceChanges } from "./workspace-changes.node.js";
export { UNDO_STATE_DIR_NAME, loadUndoSessionFiles, readToolCallChangesFromStore, undoSessionDir } from "./store-files.node.js";

// What server/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export { UNDO_BODIES_DIR, UNDO_MANIFEST_NAME, UNDO_SNAPSHOTS_DIR, isUndoBodyHash, isValidUndoSessionId } from "./manifest.js";
export type { BodyLoader, ToolCallChangesResult } from "./tool-call-changes.js";
export { readToolCallChanges } from "./tool-call-changes.js";
