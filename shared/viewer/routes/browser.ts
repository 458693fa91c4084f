// The contract as the browser's first download holds it: the route table (its schemas by
// name) and the URL built from an entry, and the bundle routes' requests read as the server
// reads them, without the schemas themselves (table.ts says why).
export * from "./route-url.js";
export * from "./table.js";
export * from "./bundle-queries.js";
// The computed routes: what LocalApi runs in the page (run-bounds and the error class, no schemas).
export * from "./computed.js";
