// The viewer's HTTP contract as TypeBox schemas, one per JSON shape: the server declares its
// routes' responses with them, `../types.ts` derives the viewer's types from them (`import
// type` only, so the web bundle holds no schema).
export * from "./common.js";
export * from "./snapshot.js";
export * from "./sessions.js";
export * from "./filesystem.js";
export * from "./diffs.js";
export * from "./search.js";
export * from "./tool-calls.js";
export * from "./runs.js";
export * from "./failures.js";
