/**
 * `GET /api/events`: server-sent events for live reload (`change`: files added, changed or
 * removed; `select`: the current snapshot changed).
 */
import type { FastifyPluginAsync } from "fastify";
import type { EventStream } from "../library/event-stream.js";
import type { ViewerState } from "../library/viewer-state.js";

export interface EventRoutesOptions {
  state: ViewerState;
  events: EventStream;
}

export const eventRoutes: FastifyPluginAsync<EventRoutesOptions> = async (app, { state, events }) => {
  app.get("/api/events", async (_request, reply) => {
    reply.hijack();
    events.attach(reply.raw, { current: state.current });
  });
};
