// The contract as the browser's first download holds it: each route's place and the URL
// built from it, and the bundle routes' requests read as the server reads them, without the
// route table's schemas (paths.ts says why).
export * from "./paths.js";
export * from "./bundle-queries.js";
