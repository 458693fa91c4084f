/**
 * The browser-safe part of shared/: what the web app imports (session file parsing, path
 * rules, archive entry validation, diffs). Type-checked without Node types
 * (web/tsconfig.json), so a Node import here fails the build.
 */
export * from "./errors.js";
export * from "./filesystem/paths.js";
export * from "./filesystem/glob.js";
export * from "./archive/browser.js";
export * from "./session/browser.js";
export * from "./viewer/index.js";
export * from "./debug-bundle/index.js";
export * from "./undo/browser.js";
