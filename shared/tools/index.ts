// Public API of shared/tools (re-exported by shared/index.ts).
export {};
