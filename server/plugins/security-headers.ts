/**
 * Headers on every response: a strict Content-Security-Policy (scripts only from this
 * origin, no framing, no plugins), `nosniff`, no referrer, and no caching of API data.
 * Workspace file downloads get a sandboxing CSP of their own (see routes/filesystem.ts).
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";

/** The viewer's own pages: its scripts and styles only, JSON from the same origin. */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // CodeMirror and React set styles at run time; style injection cannot run code.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Workspace bytes: nothing may run or load, even if a browser renders them. */
export const DATA_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": APP_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

const HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

const plugin: FastifyPluginAsync = async (app) => {
  // A callback hook, not an async one: this runs on every response, and a promise per
  // response is measurable on the file route (see docs/benchmarks.md).
  app.addHook("onSend", (request, reply, payload, done) => {
    for (const [name, value] of HEADER_ENTRIES) if (!reply.hasHeader(name)) reply.header(name, value);
    if (request.url.startsWith("/api/")) reply.header("cache-control", "no-store");
    done(null, payload);
  });
};

/** Registers the security headers on the whole app. */
export const securityHeaders = fp(plugin, { name: "wink-security-headers", fastify: "5.x" });
