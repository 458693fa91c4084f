/**
 * The HTTP contract of wink-debug: every route's TypeBox schemas. The response shapes are the
 * library's (`shared/viewer/schemas/`, `shared/debug-bundle/schemas.ts`), re-exported here
 * beside the routes' request schemas; the web app imports the types derived from them
 * (`shared/viewer/types.ts`, `shared/debug-bundle/types.ts`).
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

export * from "./failures.js";
