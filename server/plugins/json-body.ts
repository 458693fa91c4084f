/**
 * POST bodies are JSON, and only JSON: Fastify's `text/plain` parser is removed, so a
 * "simple" cross-site form or `fetch` with a text body gets 415 before anything is parsed.
 * Bodies are capped at 64 KiB (selectors are small); `__proto__` keys are refused.
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { ServerError } from "../http/errors.js";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** True for `application/json` with optional parameters (`; charset=utf-8`). */
export function isJsonMediaType(value: string): boolean {
  return /^application\/json\s*(?:;|$)/i.test(value.trim());
}

const plugin: FastifyPluginAsync = async (app) => {
  // Refuse before anything else looks at the body, also when the body is empty (Fastify
  // would skip its parser then and let the request through).
  app.addHook("onRequest", async (request) => {
    const type = request.headers["content-type"];
    if (BODY_METHODS.has(request.method) && type !== undefined && !isJsonMediaType(type)) {
      throw new ServerError("WD_ERR_MEDIA_TYPE", `Request bodies must be application/json, not ${type.slice(0, 100)}`);
    }
  });
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser("error", "error");
  // An empty JSON body (`fetch(url, {method: "POST", headers: {"content-type": "application/json"}})`)
  // means "no fields", as for POST /api/reload; Fastify's parser would call it invalid.
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: 64 * 1024 }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") done(null, undefined);
    else parseJson(request, text, done);
  });
};

export const jsonBody = fp(plugin, { name: "wink-json-body", fastify: "5.x" });
