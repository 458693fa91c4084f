/**
 * Headers on every response: a strict Content-Security-Policy (scripts only from this
 * origin, no framing, no plugins), `nosniff`, no referrer, and no caching of API data.
 * Workspace file downloads get a sandboxing CSP of their own (see routes/filesystem.ts).
 * A table and one function, so that the Fastify plugin (`plugins/security-headers.ts`), the
 * live-reload stream and the CLI's first stage send the same headers in the same order.
 */

/** The viewer's own pages: its scripts and styles only, JSON from the same origin. */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // CodeMirror and React set styles at run time; style injection cannot run code.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Workspace bytes: nothing may run or load, even if a browser renders them. */
export const DATA_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": APP_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

const HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/** Adds the security headers a response does not set itself, and `no-store` to API answers. */
export function addSecurityHeaders(url: string, response: { hasHeader(name: string): boolean; header(name: string, value: string): unknown }): void {
  for (const [name, value] of HEADER_ENTRIES) if (!response.hasHeader(name)) response.header(name, value);
  if (url.startsWith("/api/")) response.header("cache-control", "no-store");
}
