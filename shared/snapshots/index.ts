// Public API of shared/snapshots (re-exported by shared/index.ts).
export * from "./types.js";
