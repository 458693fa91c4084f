// The browser-safe part of shared/undo: the store's manifest format and the per-tool-call
// change reader the viewer uses.
export * from "./manifest.js";
export * from "./tool-call-changes.js";
