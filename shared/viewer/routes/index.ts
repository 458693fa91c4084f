// The viewer's HTTP contract: the route table, its schemas and the live-reload events.
export * from "./route-url.js";
export * from "./table.js";
export * from "./contract.js";
export * from "./requests.js";
export * from "./bundle-requests.js";
export * from "./bundle-queries.js";
export * from "./events.js";
export * from "./computed.js";
export { Meta, RawLine } from "./route-schemas.js";
