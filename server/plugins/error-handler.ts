/**
 * One error handler: every error becomes `{"detail": "...", "code": "..."}` with its status.
 * Library errors map through `ERROR_CODES` (a remote store's failures among them:
 * `E_SOURCE_*`, whose messages name URLs without credentials), server errors through
 * `SERVER_ERROR_CODES`, Fastify's own (validation, media type, body size) keep their 4xx and
 * get the table's code for that status, so a client can always branch on `code`. Anything
 * else is a bug: 500 `WD_ERR_INTERNAL`, logged with its stack, and a generic message (no
 * internals leak).
 */
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { SourceError } from "../../shared/errors.js";
import { describeError, errorJson } from "../http/errors.js";

const plugin: FastifyPluginAsync = async (app) => {
  app.setErrorHandler(async (error, request, reply) => {
    const { status, detail, code } = describeError(error);
    // A store failing (502/503/504 with an E_SOURCE_* code) is not a bug: no stack in the log.
    if (status >= 500 && !(error instanceof SourceError)) request.log.error({ err: error }, "request failed");
    return reply.code(status).type("application/json; charset=utf-8").send(errorJson({ detail, code }));
  });
};

export const errorHandler = fp(plugin, { name: "wink-error-handler", fastify: "5.x" });
