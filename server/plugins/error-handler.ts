/**
 * One error handler: every error becomes `{"detail": "..."}` with its status. Library
 * errors map through `ERROR_CODES`, server errors through `SERVER_ERROR_CODES`, Fastify's
 * own (validation, media type, body size) keep their 4xx. Anything else is a bug: 500,
 * logged with its stack, and a generic message (no internals leak).
 */
import type { FastifyError, FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { ERROR_CODES, WinkError } from "../../shared/errors.js";
import { ServerError } from "../errors.js";

/** Status and message for any thrown value. */
export function describeError(error: unknown): { status: number; detail: string } {
  if (error instanceof ServerError) return { status: error.statusCode, detail: error.message };
  if (error instanceof WinkError) {
    const status = ERROR_CODES[error.code]?.status ?? 500;
    return { status, detail: error.message };
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
    const { status, detail } = describeError(error);
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify({ detail }));
  });
};

export const errorHandler = fp(plugin, { name: "wink-error-handler", fastify: "5.x" });
