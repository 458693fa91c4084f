/** HTTP statuses of a store's answer as source errors (shared by the HTTP and S3 drivers). */
import { SourceError } from "../errors.js";

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds from now, or null. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (value == null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export interface StatusContext {
  readonly url: string;
  readonly key?: string;
  readonly status: number;
  /** The store's own error code (S3's "SlowDown", "AccessDenied"…), when it sent one. */
  readonly storeCode?: string;
  readonly retryAfter?: string | null;
  /** Whether the request carried credentials (a 401 then means they were rejected, not missing). */
  readonly authenticated: boolean;
}

/** The source error for an HTTP error status; `null` for statuses that are not errors. */
export function statusError({ url, key, status, storeCode, retryAfter, authenticated }: StatusContext): SourceError {
  const data = { url, ...(key === undefined ? {} : { key }), status, ...(storeCode === undefined ? {} : { storeCode }) };
  const answer = `HTTP ${status}${storeCode === undefined ? "" : ` ${storeCode}`}`;
  if (status === 404 || status === 410) return new SourceError("E_SOURCE_NOT_FOUND", `Not found: ${url} (${answer})`, data);
  if (status === 401) {
    return authenticated
      ? new SourceError("E_SOURCE_CREDENTIALS_INVALID", `The server rejected the credentials for ${url} (${answer})`, data)
      : new SourceError("E_SOURCE_CREDENTIALS_MISSING", `The server asks for credentials for ${url} (${answer}); none were given`, data);
  }
  if (status === 403) return new SourceError("E_SOURCE_FORBIDDEN", `Access denied to ${url} (${answer})`, data);
  if (status === 429 || status === 503) {
    const delay = retryAfterMs(retryAfter);
    return new SourceError("E_SOURCE_THROTTLED", `The store asked us to slow down reading ${url} (${answer})`, { ...data, retryable: true, retryAfterMs: delay });
  }
  if (status === 408 || status === 504) return new SourceError("E_SOURCE_TIMEOUT", `The store timed out answering ${url} (${answer})`, { ...data, retryable: true });
  if (status === 500 || status === 502) return new SourceError("E_SOURCE_FAILED", `The store failed answering ${url} (${answer})`, { ...data, retryable: true });
  return new SourceError("E_SOURCE_FAILED", `Unexpected answer for ${url} (${answer})`, data);
}

/** Errno codes of a failed connection, and whether a new attempt may succeed. */
const NETWORK_ERRNOS: Record<string, boolean> = {
  ECONNREFUSED: false,
  ENOTFOUND: false,
  EAI_AGAIN: true,
  EHOSTUNREACH: false,
  ENETUNREACH: false,
  ECONNRESET: true,
  EPIPE: true,
  ECONNABORTED: true,
  UND_ERR_SOCKET: true,
};

/** The errno-like code of a Node error or its cause. */
export function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; typeof current === "object" && current !== null && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code in NETWORK_ERRNOS) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * OpenSSL's and Node's codes for a server certificate the client does not accept: not
 * signed by a CA it trusts, for another name, expired. None is retried (the next attempt
 * gets the same certificate).
 */
const UNTRUSTED_CODES = new Set(["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "UNABLE_TO_GET_ISSUER_CERT", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT", "CERT_UNTRUSTED"]);
const CERTIFICATE_CODES = new Set([...UNTRUSTED_CODES, "CERT_SIGNATURE_FAILURE", "CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID", "CERT_REVOKED", "ERR_TLS_CERT_ALTNAME_INVALID"]);

/** The certificate code of a TLS error (or its cause), and OpenSSL's words for it. */
function certificateProblem(error: unknown): { code: string; reason: string } | undefined {
  for (let current: unknown = error, depth = 0; typeof current === "object" && current !== null && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && CERTIFICATE_CODES.has(code)) {
      const message = (current as { message?: unknown }).message;
      return { code, reason: typeof message === "string" ? message : code };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** How to trust a private CA, in the words of the error that needs it. */
export const PRIVATE_CA_HINT = "to trust a private CA, start wink-debug with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (a PEM file of its certificate)";

/**
 * `E_SOURCE_UNREACHABLE` for a connection that failed before an answer (refused, reset, an
 * unknown host, a server certificate not trusted); null when `error` is not one.
 */
export function connectionError(error: unknown, url: string, key?: string): SourceError | null {
  const certificate = certificateProblem(error);
  if (certificate !== undefined) {
    // Only a certificate from an unknown CA is fixed by trusting one; an expired one or one for another name is the server's to fix.
    const untrusted = UNTRUSTED_CODES.has(certificate.code);
    const message = `Cannot reach the store for ${url}: its TLS certificate is ${untrusted ? "not trusted" : "refused"} (${certificate.code}: ${certificate.reason})${untrusted ? `; ${PRIVATE_CA_HINT}` : ""}`;
    return new SourceError("E_SOURCE_UNREACHABLE", message, {
      url,
      ...(key === undefined ? {} : { key }),
      errno: certificate.code,
      reason: "certificate",
      retryable: false,
    });
  }
  const code = networkCode(error);
  if (code === undefined) return null;
  const what = code === "ECONNREFUSED" ? "connection refused" : code === "ENOTFOUND" || code === "EAI_AGAIN" ? "unknown host" : `connection failed (${code})`;
  return new SourceError("E_SOURCE_UNREACHABLE", `Cannot reach the store for ${url}: ${what}`, {
    url,
    ...(key === undefined ? {} : { key }),
    errno: code,
    retryable: NETWORK_ERRNOS[code] === true,
  });
}
