/**
 * The routes a computation answers on its own, by their names in the route table: each reads
 * what it needs from a `ViewSource` and answers the route's request. The server registers
 * every one of them from here over the served directory (server/routes/computed.ts) and the
 * web app's `LocalApi` answers every one over the opened files, so a route written here has
 * no handler and no `LocalApi` answer of its own, and both layers run the same code by
 * construction. Its request is the table's (`RouteRequest`, comma lists read as lists), its
 * answer is checked by the compiler against the entry's response schema. Not in the browser's
 * first download (routes/browser.ts leaves it out): it brings the computations. A route that must do
 * more than compute (stream a big line, send bytes written once, read the undo store, cache
 * across requests) keeps a handler in server/routes/ and its answer in `LocalApi.ask`.
 */
import { boundedRun, runFailurePage } from "../run-bounds.js";
import { badRequest } from "../server-errors.js";
import type { RunView } from "../types.js";
import type { RouteRequest, RouteResponse, ViewerRoutes } from "./contract.js";
import type { RouteName } from "./table.js";

/**
 * What a computed route reads, written once per layer: over the served directory (the
 * server), over the files opened in the page (`LocalApi`). A computation that needs more
 * adds a method here, and both layers answer it.
 */
export interface ViewSource {
  /** The whole run `file` names (an unknown file: 404), or without one the run the app lands on (the newest failed run of the newest few, else the newest that loads). */
  run(file: string | undefined): Promise<RunView>;
}

/** What a computed route runs: the source and the route's request in, the route's answer out. */
export type Computation<Name extends RouteName> = (source: ViewSource, request: RouteRequest<ViewerRoutes[Name]>) => Promise<RouteResponse<ViewerRoutes[Name]>>;

export const COMPUTED_ROUTES = {
  // Bounded: each session's turns and snapshots grow with its lines (run-bounds.ts).
  run: async (source, { file }) => boundedRun(await source.run(file)),
  runFailures: async (source, { file, offset, limit }) => {
    const run = await source.run(file);
    try {
      return runFailurePage(run, offset, limit);
    } catch (error) {
      if (error instanceof RangeError) throw badRequest(error.message);
      throw error;
    }
  },
} as const satisfies { readonly [Name in RouteName]?: Computation<Name> };

export type ComputedRouteName = keyof typeof COMPUTED_ROUTES;

/** A computed route's computation, typed for the layers that run every one alike (each call's request is the route's own). */
export function computationOf(name: ComputedRouteName): (source: ViewSource, request: object) => Promise<unknown> {
  return COMPUTED_ROUTES[name] as (source: ViewSource, request: object) => Promise<unknown>;
}
