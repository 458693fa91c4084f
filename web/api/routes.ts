/**
 * The viewer's routes as the browser holds them: the route table (shared/viewer/routes/table.ts,
 * its schemas by name), with the schemas as types only. The resolved table (`VIEWER_ROUTES`)
 * is not imported here: its schemas (and the schema library) would come with it into the
 * app's first download, where nothing reads them at run time.
 */
import { ROUTE_TABLE } from "../../shared/viewer/routes/browser.js";
import type { RouteEntry, RouteRequest, RouteResponse, ViewerRouteName, ViewerRoutes } from "../../shared/viewer/routes/index.js";
import type { TSchema } from "typebox";

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
export const ROUTES: BrowserRoutes = ROUTE_TABLE;

/** What a request to the route `Name` takes (its query and path parameters, its `lists` as lists), from its table entry's schemas. */
export type RouteParams<Name extends ViewerRouteName> = RouteRequest<ViewerRoutes[Name]>;
/** The JSON of the route `Name`'s 200 answer, from its table entry's response schema. */
export type RouteAnswer<Name extends ViewerRouteName> = RouteResponse<ViewerRoutes[Name]>;

/**
 * The table's routes the views do not ask through `Api.ask`: `files` (`Api.files` joins every page), `download` and `events` (not JSON:
 * `Api.download`, `Api.subscribe`) and those the app never asks (route-coverage.test.ts says
 * why for each). Every other route is asked by its name, so a new one must be answered by
 * both `HttpApi` and `LocalApi` (the compiler holds `LocalApi.ask` to it) or be listed here.
 */
export const UNASKED_ROUTES = [
  "entries",
  "raw",
  "snapshots",
  "reload",
  "select",
  "switch",
  "files",
  "fileTree",
  "fileContentAt",
  "download",
  "downloadAt",
  "events",
] as const satisfies readonly ViewerRouteName[];

/** The routes the views ask by name (`Api.ask`): every route of the table not listed above. */
export type AskedRouteName = Exclude<ViewerRouteName, (typeof UNASKED_ROUTES)[number]>;

/** Each asked route is a JSON GET (a route that is not must be listed in `UNASKED_ROUTES`). */
type Asserted<Check extends true> = Check;
export type AskedRoutesAreJson = Asserted<ViewerRoutes[AskedRouteName] extends { readonly method: "GET"; readonly response: TSchema } ? true : false>;

/** The asked routes' names, for the layers that answer every one alike (`HttpApi`). */
export const ASKED_ROUTES = (Object.keys(ROUTE_TABLE) as ViewerRouteName[]).filter((name): name is AskedRouteName => !(UNASKED_ROUTES as readonly string[]).includes(name));

/** One call per asked route: the route's request in, its answer out, both typed by its table entry. */
export type RouteCalls = { readonly [Name in AskedRouteName]: (params: RouteParams<Name>) => Promise<RouteAnswer<Name>> };
