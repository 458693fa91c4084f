// Public API of the memory backend (re-exported by shared/filesystem/index.ts).
export { InMemoryFilesystem, type InMemoryFilesystemOptions } from "./in-memory-filesystem.js";
export { MemoryDriver } from "./memory-driver.js";
export { MEMORY_SNAPSHOT_BACKEND, MEMORY_SNAPSHOT_STRATEGY } from "./memory-snapshots.js";
