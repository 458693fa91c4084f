// Public API of shared/archive (re-exported by shared/index.ts).
export {};
