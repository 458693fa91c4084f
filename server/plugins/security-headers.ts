/**
 * The security headers of `http/response-headers.ts` on every response Fastify sends.
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { addSecurityHeaders } from "../http/response-headers.js";

export { APP_CSP, DATA_CSP, SECURITY_HEADERS } from "../http/response-headers.js";

const plugin: FastifyPluginAsync = async (app) => {
  // A callback hook, not an async one: this runs on every response, and a promise per
  // response is measurable on the file route (see docs/benchmarks.md).
  app.addHook("onSend", (request, reply, payload, done) => {
    addSecurityHeaders(request.url, reply);
    done(null, payload);
  });
};

/** Registers the security headers on the whole app. */
export const securityHeaders = fp(plugin, { name: "wink-security-headers", fastify: "5.x" });
