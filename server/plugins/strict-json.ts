/**
 * Every JSON response is written by `toStrictJson`: big integers keep their exact digits,
 * NaN/Infinity become `{"__float__": "NaN"}` markers, lone surrogates stay escaped, and
 * nothing a session file holds can make serialisation throw (WINK's viewer answered 500).
 * Response schemas are the documented contract (server/schemas), not a field filter: the
 * handlers build exactly those shapes with the `shared/viewer` functions.
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { toStrictJson } from "../../shared/session/index.js";

const plugin: FastifyPluginAsync = async (app) => {
  app.setSerializerCompiler(() => (data) => toStrictJson(data));
  app.setReplySerializer((payload) => toStrictJson(payload));
};

export const strictJson = fp(plugin, { name: "wink-strict-json", fastify: "5.x" });
