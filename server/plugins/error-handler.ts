/**
 * One error handler: every error becomes `{"detail": "...", "code": "..."}` with its status.
 * Library errors map through `ERROR_CODES` (a remote store's failures among them:
 * `E_SOURCE_*`, whose messages name URLs without credentials), server errors through
 * `SERVER_ERROR_CODES`, Fastify's own (validation, media type, body size) keep their 4xx and
 * get the table's code for that status, so a client can always branch on `code`. Anything
 * else is a bug: 500 `WD_ERR_INTERNAL`, logged with its stack, and a generic message (no
 * internals leak).
 */
import type { FastifyError, FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES, SourceError, WinkError } from "../../shared/errors.js";
import { ServerError, type ServerErrorCode } from "../errors.js";

/** The code of a Fastify 4xx by its status: the table row that names the same failure. */
function fastifyCode(status: number): ServerErrorCode {
  if (status === 404) return "WD_ERR_NOT_FOUND";
  if (status === 413) return "WD_ERR_TOO_LARGE";
  if (status === 415) return "WD_ERR_MEDIA_TYPE";
  return "WD_ERR_BAD_REQUEST";
}

/** Status, message and stable code for any thrown value. */
export function describeError(error: unknown): { status: number; detail: string; code: string } {
  if (error instanceof ServerError) return { status: error.statusCode, detail: error.message, code: error.code };
  if (error instanceof WinkError) {
    const status = ERROR_CODES[error.code]?.status ?? 500;
    return { status, detail: error.message, code: error.code };
  }
  const fastifyError = error as Partial<FastifyError>;
  if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    if (fastifyError.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return { status: 415, detail: "Request bodies must be application/json", code: "WD_ERR_MEDIA_TYPE" };
    return { status: fastifyError.statusCode, detail: fastifyError.message ?? "Bad request", code: fastifyCode(fastifyError.statusCode) };
  }
  return { status: 500, detail: "Internal server error (a bug: please report it with the server log)", code: "WD_ERR_INTERNAL" };
}

const plugin: FastifyPluginAsync = async (app) => {
  app.setErrorHandler(async (error, request, reply) => {
    const { status, detail, code } = describeError(error);
    // A store failing (502/503/504 with an E_SOURCE_* code) is not a bug: no stack in the log.
    if (status >= 500 && !(error instanceof SourceError)) request.log.error({ err: error }, "request failed");
    return reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify({ detail, code }));
  });
};

export const errorHandler = fp(plugin, { name: "wink-error-handler", fastify: "5.x" });
