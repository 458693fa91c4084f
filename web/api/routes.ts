/**
 * The viewer's routes as the browser holds them: each route's place (method, path, lossless
 * reading: shared/viewer/routes/paths.ts), with the route table's schemas as types only. The
 * table itself is not imported here: its schemas (and the schema library) would come with it
 * into the app's first download, where nothing reads them at run time.
 */
import { ROUTE_PATHS } from "../../shared/viewer/routes/browser.js";
import type { RouteEntry, ViewerRouteName, ViewerRoutes } from "../../shared/viewer/routes/index.js";

/** A route's place, carrying its table entry as a type (for its request's and answer's types). */
export interface BrowserRoute<Entry extends RouteEntry> {
  readonly method: Entry["method"];
  readonly url: Entry["url"];
  readonly lossless?: true;
  /** Never present: the table entry whose schemas type this route's request and answer. */
  readonly "~entry"?: Entry;
}

export type BrowserRoutes = { readonly [Name in ViewerRouteName]: BrowserRoute<ViewerRoutes[Name]> };

/** Every route, by name: the compiler checks each place against its table entry's method and path. */
export const ROUTES: BrowserRoutes = ROUTE_PATHS;
