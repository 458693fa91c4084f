/**
 * Every computed route (`COMPUTED_ROUTES`, shared/viewer/routes/computed.ts), registered from
 * its table entry with one handler: the request read as the table says (query and path
 * parameters in one object, comma lists as lists), the computation run over the served
 * directory. This file is the server's side of `ViewSource`; the web app's `LocalApi` is the
 * other, so a computed route is answered alike in both without code of its own here.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifySchema } from "fastify";
import { COMPUTED_ROUTES, VIEWER_ROUTES, computationOf, readLists } from "../../shared/viewer/routes/index.js";
import type { ComputedRouteName, RouteEntry, ViewSource } from "../../shared/viewer/routes/index.js";
import { runOf, runRecordOf } from "../library/runs.js";
import type { ViewerState } from "../library/viewer-state.js";
import { routeOptions } from "./route-options.js";

export interface ComputedRoutesOptions {
  state: ViewerState;
}

/** The served directory as the computed routes read it. */
export function servedSource(state: ViewerState): ViewSource {
  return { run: async (file) => runOf(state, await runRecordOf(state, file)) };
}

export const computedRoutes: FastifyPluginAsyncTypebox<ComputedRoutesOptions> = async (app, { state }) => {
  const source = servedSource(state);
  for (const name of Object.keys(COMPUTED_ROUTES) as ComputedRouteName[]) {
    const entry: RouteEntry = VIEWER_ROUTES[name];
    const compute = computationOf(name);
    const { method, url, schema } = routeOptions(entry);
    // Typed per route by the computation (the compiler checks its answer against the entry's
    // schema): here the loop's schema is any entry's, so Fastify is given it untyped.
    app.route({ method, url, schema: schema as FastifySchema, handler: async (request) => compute(source, readLists(entry, { ...(request.query as object), ...(request.params as object) })) });
  }
};
