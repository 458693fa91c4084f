// Public API of shared/filesystem: the protocol, path rules, glob semantics and the backends.
export * from "./protocol.js";
export * from "./limits.js";
export * from "./paths.js";
export * from "./glob.js";
export type * from "./driver.js";
export * from "./memory/index.js";
export * from "./host/index.js";
export * from "./podman/index.js";

// What server/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export type { OpenRegularOptions, OpenedRegularFile } from "./open-regular.node.js";
export { openNamedFile, openRegularFile, readRegularFile, readSmallRegularFileSync } from "./open-regular.node.js";
