// Public API of the memory backend (re-exported by shared/filesystem/index.ts).
export {};
