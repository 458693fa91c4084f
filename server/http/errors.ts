/**
 * Errors only the server raises, with their HTTP status from `SERVER_ERROR_CODES` (defined in
 * `shared/viewer/server-errors.ts` so the web app's in-browser API answers with the same codes
 * and statuses; library errors carry theirs in `shared/errors.ts`'s `ERROR_CODES`).
 */

import type { FastifyError } from "fastify";
import { ERROR_CODES, WinkError } from "../../shared/errors.js";
import type { ServerErrorCode } from "../../shared/viewer/index.js";
import { ServerError } from "../../shared/viewer/index.js";

export type { ServerErrorCode } from "../../shared/viewer/index.js";
export { SERVER_ERROR_CODES, ServerError, badRequest, notFound } from "../../shared/viewer/index.js";

/**
 * A client-sent name as an error message may echo it: a relative name as sent (cut to 200
 * characters), an absolute one not at all, so an answer never repeats a path of the machine.
 */
export function echoedName(name: string): string {
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name) || name.startsWith("~")) return "(an absolute path)";
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}

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

/** The body of every error answer: `{"detail": "...", "code": "..."}`. */
export function errorJson(error: { detail: string; code: string }): string {
  return JSON.stringify({ detail: error.detail, code: error.code });
}
