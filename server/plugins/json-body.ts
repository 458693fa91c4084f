/**
 * POST bodies are JSON, and only JSON: Fastify's `text/plain` parser is removed, so a
 * "simple" cross-site form or `fetch` with a text body gets 415 before anything is parsed.
 * Bodies are capped at 64 KiB (selectors are small); `__proto__` keys are refused.
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";

const plugin: FastifyPluginAsync = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: 64 * 1024 }, app.getDefaultJsonParser("error", "error"));
};

export const jsonBody = fp(plugin, { name: "wink-json-body", fastify: "5.x" });
