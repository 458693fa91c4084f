// Public API of shared/undo (re-exported by shared/index.ts): per-tool-call pre-images with
// turn rollback and redo, the capturing filesystem, the ACP handler and the store reader.
export * from "./manifest.js";
export { applyImages, applyImagesAtomically, type ImageState, type PathImage } from "./path-images.js";
export { BodyStore, sha256Hex, writeFileAtomic } from "./body-store.node.js";
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
