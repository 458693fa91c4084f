/**
 * The errors the viewer's HTTP API raises itself (beside the library's, in `shared/errors.ts`'s
 * `ERROR_CODES`), defined once with their HTTP status: the server throws them, and the web
 * app's in-browser API answers the same cases with the same code and status. Every code is
 * listed in docs/api.md; a test keeps the two in step.
 */

export const SERVER_ERROR_CODES = {
  WD_ERR_BAD_REQUEST: { status: 400, description: "The request is malformed: a missing or wrongly typed parameter or body field." },
  WD_ERR_NOT_FOUND: { status: 404, description: "No such session file, line, session, slice, file or route." },
  WD_ERR_OUTSIDE_ROOT: { status: 400, description: "The path names something outside the served directory." },
  WD_ERR_NOT_LOADABLE: { status: 400, description: "The session file has no line that loads (reload, select and switch keep the previous state)." },
  WD_ERR_HOST: { status: 403, description: "The Host header is not a loopback name (DNS rebinding protection)." },
  WD_ERR_NO_HOST: { status: 400, description: "The request has no Host header." },
  WD_ERR_ORIGIN: { status: 403, description: "The Origin header names another origin (cross-site request)." },
  WD_ERR_SIGN_IN: { status: 401, description: "Served mode: the request is not signed in (no valid session cookie)." },
  WD_ERR_RATE_LIMITED: { status: 429, description: "Served mode: too many sign-in attempts from this address; wait a minute." },
  WD_ERR_CROSS_SITE: { status: 403, description: "Sec-Fetch-Site says the request comes from another site and it is not a navigation." },
  WD_ERR_TOO_LARGE: { status: 413, description: "A request body over the server's limit (64 KiB)." },
  WD_ERR_MEDIA_TYPE: { status: 415, description: "A request body that is not application/json." },
  WD_ERR_METRICS_TOKEN: { status: 401, description: "GET /metrics without the bearer token of --metrics-token-file." },
  WD_ERR_INTERNAL: { status: 500, description: "A bug: the server failed unexpectedly (the message says where)." },
} as const;

export type ServerErrorCode = keyof typeof SERVER_ERROR_CODES;

/**
 * An error a route answers with its table status and `{detail: message, code}`: the server's
 * error handler sends it, the web app's in-browser API turns it into the same `ApiError`, so a
 * computation both run (`routes/computed.ts`) refuses a request once for both.
 */
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
