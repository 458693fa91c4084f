/**
 * One error handler: every error becomes `{"detail": "...", "code": "..."}` with its status.
 * Library errors map through `ERROR_CODES` (a remote store's failures among them:
 * `E_SOURCE_*`, whose messages name URLs without credentials), server errors through
 * `SERVER_ERROR_CODES`, Fastify's own (validation, media type, body size) keep their 4xx and
 * have no code. Anything else is a bug: 500, logged with its stack, and a generic message (no
 * internals leak).
 */
import type { FastifyError, FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES, SourceError, WinkError } from "../../shared/errors.js";
import { ServerError } from "../errors.js";

/** Status, message and stable code (when it has one) for any thrown value. */
export function describeError(error: unknown): { status: number; detail: string; code?: string } {
  if (error instanceof ServerError) return { status: error.statusCode, detail: error.message, code: error.code };
  if (error instanceof WinkError) {
    const status = ERROR_CODES[error.code]?.status ?? 500;
    return { status, detail: error.message, code: error.code };
  }
  const fastifyError = error as Partial<FastifyError>;
  if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return { status: 415, detail: "Request bodies must be application/json" };
    return { status: fastifyError.statusCode, detail: fastifyError.message ?? "Bad request" };
  }
  return { status: 500, detail: "Internal server error (a bug: please report it with the server log)" };
}

const plugin: FastifyPluginAsync = async (app) => {
  app.setErrorHandler(async (error, request, reply) => {
    const { status, detail, code } = describeError(error);
    // A store failing (502/503/504 with an E_SOURCE_* code) is not a bug: no stack in the log.
    if (status >= 500 && !(error instanceof SourceError)) request.log.error({ err: error }, "request failed");
    return reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify(code === undefined ? { detail } : { detail, code }));
  });
};

export const errorHandler = fp(plugin, { name: "wink-error-handler", fastify: "5.x" });
