/**
 * Where a request comes from: runs first on every request (static files included) and
 * refuses foreign Host headers, other origins and cross-site inclusion with the rules of
 * `http/request-origin.ts` (also used by the CLI's first stage and for WebSocket upgrades).
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { originPolicy, requestRefusal } from "../http/request-origin.js";
import type { OriginOptions } from "../http/request-origin.js";

export { isAllowedHost, parseHostHeader, upgradeVerdict } from "../http/request-origin.js";

/** `bindHost`: a non-wildcard, non-loopback one is allowed as a Host too; `publicAddress`: its host and origin are. */
export type HostCheckOptions = OriginOptions;

const plugin: FastifyPluginAsync<HostCheckOptions> = async (app, options) => {
  const policy = originPolicy(options);
  // A callback hook: it runs on every request, and an async one costs a promise each time.
  app.addHook("onRequest", (request, _reply, done) => {
    const refusal = requestRefusal(request.headers, policy);
    if (refusal === null) done();
    else done(refusal);
  });
};

/** Registers the request-origin checks on the whole app. */
export const hostCheck = fp(plugin, { name: "wink-host-check", fastify: "5.x" });
