// Public API of shared/workspace (re-exported by shared/index.ts).
export {};
