/**
 * The HTTP contract of wink-debug: every route's TypeBox schemas. The web app imports the
 * response types with `import type` (see `types.ts`).
 */
export * from "./common.js";
export * from "./legacy.js";
export * from "./sessions.js";
export * from "./filesystem.js";
export * from "./diffs.js";
export * from "./search.js";
export * from "./tool-calls.js";
export * from "./bundles.js";
export * from "./runs.js";
export type * from "./types.js";
