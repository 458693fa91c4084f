/**
 * `/api/failures` (the eval: outcomes and failure groups of the whole target),
 * `/api/failures/runs` (a page of its runs, filtered) and `/api/failures/occurrences` (one
 * group's occurrences), answered from what the run index holds so far: `index` says how many runs that is, and the page asks again until it is
 * complete (server/library/run-index.ts builds it in the background).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { evalRunPage, evalSummary, failureOccurrences, summaryOf } from "../../shared/viewer/index.js";
import type { EvalOverview, FailureOccurrencesView } from "../../shared/viewer/index.js";
import type { RunIndex } from "../library/run-index.js";
import type { ViewerState } from "../library/viewer-state.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { toStrictJson } from "../../shared/session/index.js";
import { sendJsonBytes } from "./request-helpers.js";
import { routeOptions } from "./route-options.js";

export interface FailureRoutesOptions {
  state: ViewerState;
  index: RunIndex;
}

/**
 * The longest a first answer waits for the kept index to be loaded: on a warm start that is a
 * complete answer at once instead of an empty one and the page's next poll a second later.
 */
export const INDEX_LOAD_WAIT_MS = 2000;

/** Group occurrences kept per generation of the index (a group is opened, then asked again while the index grows). */
const KEPT_OCCURRENCES = 64;

export const failureRoutes: FastifyPluginAsyncTypebox<FailureRoutesOptions> = async (app, { state, index }) => {
  // Without a watcher (or between two polls) the listing may have changed since the index last looked.
  const current = async () => {
    await Promise.race([index.start(), delay(INDEX_LOAD_WAIT_MS, undefined, { ref: false })]);
    index.update();
    return index;
  };
  // The page asks every second while the index grows, and each answer regroups every digest:
  // computed once per generation of the index (what it answers from), the summary's JSON
  // written once too. Its runs are paged (`/api/failures/runs`) from the same overview.
  let kept: { readonly at: string; readonly overview: EvalOverview; readonly json: Buffer } | null = null;
  const overview = async () => {
    const { generation } = await current();
    if (kept?.at !== generation) {
      const { digests, progress } = index.view();
      const value = evalSummary(path.basename(state.displayRoot), digests, progress);
      kept = { at: generation, overview: value, json: Buffer.from(toStrictJson(summaryOf(value))) };
    }
    return kept;
  };
  // A warm start's first question answered from what is computed already: the summary is
  // made once the kept index is loaded, before the page asks (over 10,000 runs it was ~0.5 s
  // of the first answer, after the page's own start).
  index.whenStarted().then(overview).catch(() => undefined);
  let occurrences: { at: string; readonly bySignature: Map<string, FailureOccurrencesView> } = { at: "", bySignature: new Map() };
  app.route({
    ...routeOptions(VIEWER_ROUTES.failures),
    handler: async (_request, reply) => sendJsonBytes(reply, (await overview()).json),
  });
  app.route({
    ...routeOptions(VIEWER_ROUTES.evalRuns),
    handler: async (request) => {
      const { offset, limit, ...filter } = request.query;
      return evalRunPage((await overview()).overview, filter, offset, limit);
    },
  });
  app.route({
    ...routeOptions(VIEWER_ROUTES.failureOccurrences),
    handler: async (request) => {
      const { generation } = await current();
      if (occurrences.at !== generation) occurrences = { at: generation, bySignature: new Map() };
      const { signature } = request.query;
      let answer = occurrences.bySignature.get(signature);
      if (answer === undefined) {
        answer = failureOccurrences(index.digests(), signature);
        // Any signature may be asked for: what is kept stays bounded.
        if (occurrences.bySignature.size >= KEPT_OCCURRENCES) occurrences.bySignature.clear();
        occurrences.bySignature.set(signature, answer);
      }
      return answer;
    },
  });
};
