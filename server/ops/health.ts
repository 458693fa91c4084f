/**
 * `/healthz` and `/readyz` for a load balancer or an orchestrator. Both are reachable signed
 * out (the guard allow-lists them), so they reveal nothing: no path, no count, no store
 * address, no error text — a status word only. `/healthz` answers while the process
 * serves; `/readyz` only once the store answered its first listing and, with `--poll`, its
 * last poll too (a store that stops answering takes the instance out of rotation, and the
 * next good poll puts it back).
 */
import type { FastifyPluginAsync } from "fastify";

export interface HealthOptions {
  /** True when this instance can answer from its store now. */
  readonly ready: () => boolean;
}

/** The answers never vary but by readiness: nothing a caller could learn the store from. */
const NO_STORE = "no-store";

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, { ready }) => {
  app.get("/healthz", async (_request, reply) => reply.header("cache-control", NO_STORE).send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const ok = ready();
    return reply
      .code(ok ? 200 : 503)
      .header("cache-control", NO_STORE)
      .send({ status: ok ? "ready" : "not ready" });
  });
};
