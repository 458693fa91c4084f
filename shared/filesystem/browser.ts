/**
 * The browser-safe part of `shared/filesystem/` (its `index.ts` also carries the host and
 * Podman backends): what the web app uses of it, imported through this entry.
 */

// What web/ uses of this folder besides the rest of this list: it imports through this entry, never a module path (lint holds it).
export type { ArchiveLimits } from "./archive-limits.js";
export { resolveArchiveLimits } from "./archive-limits.js";
export { comparePaths } from "./paths.js";
