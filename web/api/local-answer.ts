/**
 * How the in-browser API answers: through strict JSON and the lossless parser (so values
 * have exactly the shapes and float markers the HTTP API sends), with shared errors turned
 * into `ApiError`s carrying the status the server would give.
 */
import { ERROR_CODES, WinkError } from "../../shared/errors.js";
import { parsePythonJson, toStrictJson } from "../../shared/session/browser.js";
import type { ServerErrorCode } from "../../shared/viewer/index.js";
import { SERVER_ERROR_CODES, ServerError } from "../../shared/viewer/index.js";
import { ApiError } from "./api.js";

/** The same value as the HTTP API would deliver it (bigints exact, non-finite floats as markers). */
export function asServed<R>(value: unknown): R {
  return parsePythonJson(toStrictJson(value)) as R;
}

/** Runs `work`, turning shared errors into `ApiError`s with the status the server would give. */
export async function answer<R>(work: () => R | Promise<R>): Promise<R> {
  try {
    return asServed<R>(await work());
  } catch (error) {
    throw apiErrorOf(error);
  }
}

/** Any thrown value as the server would answer it: a route's error or a library error with its status and code, anything else 422. */
export function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ServerError) return new ApiError(error.statusCode, error.message, error.code);
  if (error instanceof WinkError) return new ApiError(ERROR_CODES[error.code]?.status ?? 422, error.message, error.code);
  return new ApiError(422, error instanceof Error ? error.message : String(error));
}

/** An error the server raises itself, with its status and code from `SERVER_ERROR_CODES`. */
export function serverError(code: ServerErrorCode, message: string): ApiError {
  return new ApiError(SERVER_ERROR_CODES[code].status, message, code);
}
