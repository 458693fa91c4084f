// Public API of shared/session (re-exported by shared/index.ts).
export {};
