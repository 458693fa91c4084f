// Public API of shared/undo (re-exported by shared/index.ts).
export {};
