// The browser-safe part of shared/session (no Node built-ins): what the web app uses to
// parse dropped session files with the same code as the server.
export * from "./json-value.js";
export * from "./python-json-parse.js";
export * from "./python-json-dumps.js";
export * from "./strict-json.js";
export * from "./type-names.js";
export * from "./snapshot-line.js";
export * from "./line-text.js";
export * from "./session-text.js";
export * from "./envelope-scan.js";
export * from "./session-tree.js";
export * from "./workspace-items.js";
export * from "./session-model.js";
