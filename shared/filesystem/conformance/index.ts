// The conformance suite as a public entry point (`wink-debug/conformance`): run it against a
// new backend in one call. Needs vitest.
export { describeFilesystemConformance, expectCode } from "./suite.js";
export type { ConformanceCapabilities, ConformanceCreateOptions, ConformanceInstance, ConformanceOptions } from "./suite.js";
export { HOSTILE_PATH_CASES } from "./hostile-paths.data.js";
