// Public API of the host backend (re-exported by shared/filesystem/index.ts).
export {};
