// The contract as the browser's first download holds it: each route's place and the URL
// built from it, without the route table's schemas (paths.ts says why).
export * from "./paths.js";
