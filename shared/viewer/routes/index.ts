// The viewer's HTTP contract: the route table, its request schemas and the live-reload events.
export * from "./paths.js";
export * from "./table.js";
export * from "./requests.js";
export * from "./bundle-requests.js";
export * from "./bundle-queries.js";
export * from "./events.js";
