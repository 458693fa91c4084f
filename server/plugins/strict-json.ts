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

/**
 * Fastify's `schemaController.compilersFactory.buildSerializer`: the same serialiser as the
 * plugin sets. Given to Fastify, it never loads its default one (fast-json-stringify, which
 * brings Ajv), ~0.5 MB of the bundle that no answer used.
 */
export const strictJsonSerializerFactory = () => () => (data: unknown) => toStrictJson(data);

const plugin: FastifyPluginAsync = async (app) => {
  app.setSerializerCompiler(() => (data) => toStrictJson(data));
  app.setReplySerializer((payload) => toStrictJson(payload));
};

export const strictJson = fp(plugin, { name: "wink-strict-json", fastify: "5.x" });
