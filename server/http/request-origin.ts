/**
 * Where a request comes from, as pure rules over its headers: the Fastify plugin
 * (`plugins/host-check.ts`), the WebSocket refusal and the CLI's first stage (which answers
 * the first `/api/meta` before Fastify is loaded, `server/first-stage.ts`) all ask these.
 *
 * - `Host` must be a loopback name (`localhost`, `*.localhost`, `127.0.0.1`, `[::1]`, any
 *   case, optional port) or the name the server was explicitly bound to: anything else is
 *   403 (DNS rebinding), a missing Host 400. `0.0.0.0`, decimal IPs and LAN addresses are
 *   refused even though they can reach loopback.
 * - An `Origin` header must be this very origin (`http://<Host>`, `https://` when the server
 *   speaks TLS itself); `null`, other ports and other hosts are 403. No CORS headers are ever sent.
 * - With a public address (`--public-url`, `public-address.ts`), its host[:port] is allowed
 *   too, and a request naming it must come from its origin (scheme included): a proxy may
 *   pass the public Host on or its own loopback one, the browser's Origin is the public one.
 * - `Sec-Fetch-Site: cross-site|same-site` is refused unless it is a navigation (a link to
 *   the viewer from elsewhere still opens it): no `<script src>`/`<img>` inclusion (XSSI).
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { ServerError, errorJson } from "./errors.js";
import type { PublicAddress } from "./public-address.js";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", ""]);

/** Splits `name[:port]` (IPv6 in brackets) into a lower-case name and a port, or null when malformed. */
export function parseHostHeader(value: string): { name: string; port: string | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (match === null) return null;
  const port = match[2] ?? null;
  if (port !== null && Number(port) > 65535) return null;
  return { name: (match[1] ?? "").toLowerCase(), port };
}

/** True when `host` (a Host header value) names this machine's loopback, or `extra`. */
export function isAllowedHost(host: string, extra: ReadonlySet<string> = new Set()): boolean {
  const parsed = parseHostHeader(host);
  if (parsed === null) return false;
  const { name } = parsed;
  if (LOOPBACK_NAMES.has(name) || extra.has(name)) return true;
  // RFC 6761: browsers resolve every *.localhost name to loopback themselves.
  return /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+localhost$/.test(name);
}

/** The Host names allowed beside loopback: the address the server was bound to, unless a wildcard (IPv6 in brackets, as a Host header writes it). */
export function boundHostNames(bindHost: string | undefined): ReadonlySet<string> {
  const bind = bindHost?.toLowerCase();
  if (bind === undefined || WILDCARDS.has(bind)) return new Set();
  return new Set([bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind]);
}

/** What the server is reached by: the address it is bound to, its public address, and whether it speaks TLS itself. */
export interface OriginOptions {
  readonly bindHost?: string | undefined;
  readonly publicAddress?: PublicAddress | null | undefined;
  /** The server itself serves HTTPS (`--tls-cert`): same-origin requests say `https://<Host>`. */
  readonly secure?: boolean | undefined;
}

/** The rules `requestRefusal` applies, computed once per server. */
export interface OriginPolicy {
  /** Host names allowed beside loopback (the bound address). */
  readonly extra: ReadonlySet<string>;
  readonly publicAddress: PublicAddress | null;
  readonly scheme: "http" | "https";
}

export function originPolicy(options: OriginOptions = {}): OriginPolicy {
  return { extra: boundHostNames(options.bindHost), publicAddress: options.publicAddress ?? null, scheme: options.secure === true ? "https" : "http" };
}

/** True when the Host header names the public address (its port written or left to the scheme's default). */
function namesPublicAddress(host: { name: string; port: string | null }, address: PublicAddress): boolean {
  return host.name === address.hostname && (host.port ?? (address.secure ? "443" : "80")) === address.port;
}

/**
 * Why a request with these headers is refused (a `ServerError` with its status), or null
 * when it may be answered. `rules`: an `OriginPolicy`, or (the local default) the Host
 * names allowed beside loopback.
 */
export function requestRefusal(headers: IncomingHttpHeaders, rules: OriginPolicy | ReadonlySet<string>): ServerError | null {
  const policy: OriginPolicy = rules instanceof Set ? { extra: rules, publicAddress: null, scheme: "http" } : (rules as OriginPolicy);
  const host = headers.host;
  if (host === undefined || host === "") return new ServerError("WD_ERR_NO_HOST", "Missing Host header");
  const parsed = parseHostHeader(host);
  const address = policy.publicAddress;
  const isPublic = parsed !== null && address !== null && namesPublicAddress(parsed, address);
  if (!isPublic && !isAllowedHost(host, policy.extra)) {
    const allowed = address === null ? "loopback names only" : `loopback names and ${address.origin.replace(/^https?:\/\//, "")}`;
    return new ServerError("WD_ERR_HOST", `Host not allowed: ${host.slice(0, 200)} (the viewer answers ${allowed})`);
  }
  const origin = headers.origin?.toLowerCase();
  if (origin !== undefined) {
    // The public origin always; the Host's own origin only for a Host that is not the public name (no scheme downgrade).
    const sameOrigin = !isPublic && origin === `${policy.scheme}://${host.toLowerCase()}`;
    if (!sameOrigin && origin !== address?.origin) return new ServerError("WD_ERR_ORIGIN", `Cross-origin request refused (Origin ${(headers.origin ?? "").slice(0, 200)})`);
  }
  const site = headers["sec-fetch-site"];
  const mode = headers["sec-fetch-mode"];
  if ((site === "cross-site" || site === "same-site") && mode !== "navigate") {
    return new ServerError("WD_ERR_CROSS_SITE", "Request from another site refused");
  }
  return null;
}

/** The answer to a raw `upgrade` request (which never reaches Fastify's hooks): the refusal, else 404 (no WebSocket endpoint). */
export function upgradeVerdict(headers: IncomingHttpHeaders, options: OriginOptions = {}): { status: number; detail: string; code: string } {
  const refusal = requestRefusal(headers, originPolicy(options));
  if (refusal !== null) return { status: refusal.statusCode, detail: refusal.message, code: refusal.code };
  return { status: 404, detail: "This server has no WebSocket endpoint (live reload uses GET /api/events)", code: "WD_ERR_NOT_FOUND" };
}

/** An `upgrade` listener for the server: every WebSocket upgrade is answered with {@link upgradeVerdict} and closed. */
export function refuseUpgrades(origin: OriginOptions | string | undefined): (request: IncomingMessage, socket: Duplex) => void {
  const options: OriginOptions = typeof origin === "string" ? { bindHost: origin } : (origin ?? {});
  return (request, socket) => {
    const { status, detail, code } = upgradeVerdict(request.headers, options);
    const body = errorJson({ detail, code });
    socket.end(`HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Not Found"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  };
}
