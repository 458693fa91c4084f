/**
 * Errors only the server raises, with their HTTP status from `SERVER_ERROR_CODES` (defined in
 * `shared/viewer/server-errors.ts` so the web app's in-browser API answers with the same codes
 * and statuses; library errors carry theirs in `shared/errors.ts`'s `ERROR_CODES`).
 */

import type { ServerErrorCode } from "../shared/viewer/server-errors.js";
import { SERVER_ERROR_CODES } from "../shared/viewer/server-errors.js";

export type { ServerErrorCode } from "../shared/viewer/server-errors.js";
export { SERVER_ERROR_CODES } from "../shared/viewer/server-errors.js";

/** An error the server answers with its table status and `{detail: message}`. */
export class ServerError extends Error {
  readonly code: ServerErrorCode;
  readonly statusCode: number;

  constructor(code: ServerErrorCode, message: string) {
    super(message);
    this.name = "ServerError";
    this.code = code;
    this.statusCode = SERVER_ERROR_CODES[code].status;
  }
}

export const badRequest = (message: string): ServerError => new ServerError("WD_ERR_BAD_REQUEST", message);
export const notFound = (message: string): ServerError => new ServerError("WD_ERR_NOT_FOUND", message);
