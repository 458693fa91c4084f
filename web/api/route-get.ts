/**
 * The one request the web app's HTTP layer makes of a JSON route, as a type: `HttpApi.get`
 * implements it (a module of its own, so the layers that are given it need not import `HttpApi`).
 */
import type { TSchema } from "typebox";
import type { RouteEntry, RouteRequest, RouteResponse } from "../../shared/viewer/routes/index.js";
import type { BrowserRoute } from "./routes.js";

/** A route of the table the app fetches as JSON: a GET with a 200 answer's schema. */
export type JsonRoute = RouteEntry & { readonly method: "GET"; readonly response: TSchema };

/** One request to a route: its URL built from `params`, its answer typed by the table entry's response schema. */
export type RouteGet = <const Entry extends JsonRoute>(route: BrowserRoute<Entry>, params: RouteRequest<Entry>) => Promise<RouteResponse<Entry>>;
