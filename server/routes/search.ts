/**
 * `/api/search`: a case-insensitive substring across one snapshot's slices and workspace
 * files, bounded in hits, bytes and time.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { searchSnapshot } from "../../shared/viewer/index.js";
import type { ViewerState } from "../library/viewer-state.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { selectorOf } from "./request-helpers.js";
import { routeOptions } from "./route-options.js";

export interface SearchRoutesOptions {
  state: ViewerState;
}

export const searchRoutes: FastifyPluginAsyncTypebox<SearchRoutesOptions> = async (app, { state }) => {
  app.route({ ...routeOptions(VIEWER_ROUTES.search), handler: async (request) => {
    const selection = await state.resolve(selectorOf(request.query));
    const [snapshot, workspace] = await Promise.all([state.snapshot(selection), state.workspace(selection)]);
    const scope = request.query.scope ?? "all";
    return searchSnapshot(snapshot, workspace.source, request.query.q, {
      maxHits: request.query.limit ?? 200,
      scopes: scope === "all" ? ["slices", "files"] : [scope],
    });
  } });
};
