/**
 * A route's Fastify options from its entry in the viewer's route table
 * (`VIEWER_ROUTES`, `shared/viewer/routes/contract.ts`): method, url and schemas come from the entry, so a
 * handler cannot answer a path or a shape the contract does not say.
 * `app.route({ ...routeOptions(VIEWER_ROUTES.files), handler })`.
 */
import type { TSchema } from "typebox";
import { errorResponses } from "../../shared/viewer/routes/index.js";
import type { RouteEntry } from "../../shared/viewer/routes/index.js";

type Part<Entry, Name extends "querystring" | "params" | "body"> = Entry extends { readonly [Key in Name]: infer Schema extends TSchema } ? { readonly [Key in Name]: Schema } : unknown;
type Responses<Entry> = Entry extends { readonly response: infer Schema extends TSchema } ? { readonly 200: Schema } & typeof errorResponses : typeof errorResponses;

/** The schema Fastify is given for `Entry`: its request parts, its answer and the error answers every route may give. */
export type RouteSchema<Entry extends RouteEntry> = Part<Entry, "querystring"> & Part<Entry, "params"> & Part<Entry, "body"> & { readonly response: Responses<Entry> };

export interface RouteOptionsOf<Entry extends RouteEntry> {
  readonly method: Entry["method"];
  readonly url: Entry["url"];
  readonly schema: RouteSchema<Entry>;
}

export function routeOptions<const Entry extends RouteEntry>(entry: Entry): RouteOptionsOf<Entry> {
  const schema: Record<string, unknown> = {};
  if (entry.querystring !== undefined) schema.querystring = entry.querystring;
  if (entry.params !== undefined) schema.params = entry.params;
  if (entry.body !== undefined) schema.body = entry.body;
  schema.response = entry.response === undefined ? errorResponses : { 200: entry.response, ...errorResponses };
  return { method: entry.method, url: entry.url, schema: schema as RouteSchema<Entry> };
}
