/**
 * wink-debug/shared — the library agents and the viewer are built on.
 *
 * protocol → backends → archives and snapshots → undo → tool handlers → session files;
 * sources (local folders, HTTP and S3 stores read by ranges) beside them.
 * Every export is listed here (flat API); `index.test.ts` snapshots the list so API changes
 * show up in review.
 */
export * from "./errors.js";
export * from "./filesystem/index.js";
export * from "./archive/index.js";
export * from "./snapshots/index.js";
export * from "./undo/index.js";
export * from "./tools/index.js";
export * from "./workspace/index.js";
export * from "./session/index.js";
export * from "./viewer/index.js";
export * from "./remote/index.js";
export * from "./debug-bundle/index.js";
