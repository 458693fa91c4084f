/**
 * Every schema the route table (`table.ts`) names, by its exported name: the table's entries
 * say `response: "Timeline"`, and `contract.ts` reads the schema here. The table stays free of
 * schema values that way, so the browser's main chunk can hold it whole; only the server and
 * the tests import this module (and the schema library with it).
 */
import { Type } from "typebox";
import { BundleMeta } from "../../debug-bundle/schemas.js";
import { SnapshotMeta } from "../schemas/index.js";

export * from "../schemas/index.js";
export * from "../../debug-bundle/schemas.js";
export * from "./requests.js";
export * from "./bundle-requests.js";
export { LIVE_EVENTS } from "./events.js";

/** `/api/meta`, `POST /api/reload|select|switch`: a session file's snapshot meta, or a bundle's meta. */
export const Meta = Type.Union([SnapshotMeta, BundleMeta]);

/** `/api/raw`: the line as written (big integers exact, NaN/Infinity as `{"__float__": …}`). */
export const RawLine = Type.Record(Type.String(), Type.Unknown());
