/**
 * `/api/failures` (the eval: outcomes, runs and failure groups of the whole target) and
 * `/api/failures/occurrences` (one group's occurrences), answered at once from what the run
 * index holds so far: `index` says how many runs that is, and the page asks again until it
 * is complete (server/library/run-index.ts builds it in the background).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import path from "node:path";
import { evalSummary, failureOccurrences } from "../../shared/viewer/index.js";
import type { RunIndex } from "../library/run-index.js";
import type { ViewerState } from "../library/viewer-state.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { routeOptions } from "./route-options.js";

export interface FailureRoutesOptions {
  state: ViewerState;
  index: RunIndex;
}

export const failureRoutes: FastifyPluginAsyncTypebox<FailureRoutesOptions> = async (app, { state, index }) => {
  // Without a watcher (or between two polls) the listing may have changed since the index last looked.
  const current = () => {
    void index.start();
    index.update();
    return index;
  };
  app.route({
    ...routeOptions(VIEWER_ROUTES.failures),
    handler: async () => {
      const { digests, progress } = current().view();
      return evalSummary(path.basename(state.displayRoot), digests, progress);
    },
  });
  app.route({ ...routeOptions(VIEWER_ROUTES.failureOccurrences), handler: async (request) => failureOccurrences(current().digests(), request.query.signature) });
};
