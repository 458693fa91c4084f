/**
 * `GET /api/events`: server-sent events for live reload (`change`: files added, changed or
 * removed; `select`: the current snapshot changed).
 */
import type { FastifyPluginAsync } from "fastify";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import type { EventStream } from "../library/event-stream.js";
import type { ViewerState } from "../library/viewer-state.js";

export interface EventRoutesOptions {
  state: ViewerState;
  events: EventStream;
}

export const eventRoutes: FastifyPluginAsync<EventRoutesOptions> = async (app, { state, events }) => {
  // No schema: the answer is a stream of events (their shapes: the entry's `events`).
  app.route({ method: VIEWER_ROUTES.events.method, url: VIEWER_ROUTES.events.url, handler: async (_request, reply) => {
    reply.hijack();
    events.attach(reply.raw, { current: state.current });
  } });
};
