/**
 * The route table (`table.ts`) with its schemas in place of their names: `VIEWER_ROUTES`,
 * what the server registers its routes from (server/routes/route-options.ts) and what a
 * client that validates answers reads. Derived whole from the table; nothing here is written
 * per route. Imports the schemas (and the schema library): the browser's main chunk uses
 * `ROUTE_TABLE` and only this module's types.
 */
import type { Static, TSchema } from "typebox";
import { ErrorBody } from "../schemas/index.js";
import * as RouteSchemas from "./route-schemas.js";
import type { ListNames, WithLists } from "./route-url.js";
import { ROUTE_TABLE } from "./table.js";
import type { RouteName, RouteSpec, RouteTable } from "./table.js";

/** Error responses every route may give. */
export const errorResponses = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 415: ErrorBody, 422: ErrorBody, 500: ErrorBody } as const;

/** One route of the contract with its schemas. */
export interface RouteEntry extends Omit<RouteSpec, SchemaPart | "events"> {
  readonly querystring?: TSchema;
  readonly params?: TSchema;
  readonly body?: TSchema;
  /** The 200 answer's JSON; none: the answer is not JSON (a download, an event stream). */
  readonly response?: TSchema;
  /** A stream of server-sent events, by name. */
  readonly events?: Readonly<Record<string, TSchema>>;
}

type Schemas = typeof RouteSchemas;
type SchemaPart = "querystring" | "params" | "body" | "response";

/** A table entry with each schema name replaced by the schema. */
export type Resolved<Spec> = { readonly [Key in keyof Spec]: Key extends SchemaPart | "events" ? (Spec[Key] extends keyof Schemas ? Schemas[Spec[Key]] : never) : Spec[Key] };

export type ViewerRoutes = { readonly [Name in RouteName]: Resolved<RouteTable[Name]> };
export type ViewerRouteName = RouteName;

function resolve(spec: RouteSpec): RouteEntry {
  const entry: Record<string, unknown> = { ...spec };
  for (const part of ["querystring", "params", "body", "response", "events"] as const) {
    const name = spec[part];
    if (name !== undefined) entry[part] = RouteSchemas[name];
  }
  return entry as unknown as RouteEntry;
}

export const VIEWER_ROUTES = Object.fromEntries(Object.entries(ROUTE_TABLE).map(([name, spec]) => [name, resolve(spec)])) as unknown as ViewerRoutes;

/** Every resolved entry is a `RouteEntry` (a name that is not a schema, or a schema where events go, fails here). */
type Asserted<Check extends true> = Check;
export type EntriesAreRoutes = Asserted<ViewerRoutes[RouteName] extends RouteEntry ? true : false>;

type StaticOf<Entry, Part extends string> = Entry extends { readonly [Key in Part]: infer Schema extends TSchema } ? Static<Schema> : Record<never, never>;

/** What a request to `Entry` takes: its query and its path parameters, in one object. */
export type RouteInput<Entry extends RouteEntry> = StaticOf<Entry, "querystring"> & StaticOf<Entry, "params">;
/** A request to `Entry` as a caller gives it: `RouteInput` with the entry's `lists` as lists of strings (`routeUrl` writes them as comma lists). */
export type RouteRequest<Entry extends RouteEntry> = WithLists<RouteInput<Entry>, ListNames<Entry>>;
/** The JSON body of `Entry`'s 200 answer. */
export type RouteResponse<Entry extends RouteEntry> = Entry extends { readonly response: infer Schema extends TSchema } ? Static<Schema> : never;
