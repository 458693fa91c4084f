/**
 * How the in-browser API answers: through strict JSON and the lossless parser (so values
 * have exactly the shapes and float markers the HTTP API sends), with shared errors turned
 * into `ApiError`s carrying the status the server would give.
 */
import { ERROR_CODES, WinkError } from "../../shared/errors.js";
import { parsePythonJson } from "../../shared/session/python-json-parse.js";
import { toStrictJson } from "../../shared/session/strict-json.js";
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
    if (error instanceof ApiError) throw error;
    const status = error instanceof WinkError ? (ERROR_CODES[error.code]?.status ?? 422) : 422;
    throw new ApiError(status, error instanceof Error ? error.message : String(error), error instanceof WinkError ? error.code : null);
  }
}
