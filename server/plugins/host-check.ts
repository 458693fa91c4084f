/**
 * Where a request comes from. Runs first on every request (static files included):
 *
 * - `Host` must be a loopback name (`localhost`, `*.localhost`, `127.0.0.1`, `[::1]`, any
 *   case, optional port) or the name the server was explicitly bound to: anything else is
 *   403 (DNS rebinding), a missing Host 400. `0.0.0.0`, decimal IPs and LAN addresses are
 *   refused even though they can reach loopback.
 * - An `Origin` header must be this very origin (`http://<Host>`); `null`, other ports and
 *   other hosts are 403. No CORS headers are ever sent.
 * - `Sec-Fetch-Site: cross-site|same-site` is refused unless it is a navigation (a link to
 *   the viewer from elsewhere still opens it): no `<script src>`/`<img>` inclusion (XSSI).
 */
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { ServerError } from "../errors.js";

export interface HostCheckOptions {
  /** The address the server listens on; a non-wildcard, non-loopback one is allowed as a Host too. */
  bindHost?: string;
}

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

function checkRequest(request: FastifyRequest, extra: ReadonlySet<string>): void {
  const host = request.headers.host;
  if (host === undefined || host === "") throw new ServerError("WD_ERR_NO_HOST", "Missing Host header");
  if (!isAllowedHost(host, extra)) throw new ServerError("WD_ERR_HOST", `Host not allowed: ${host.slice(0, 200)} (the viewer answers loopback names only)`);
  const origin = request.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
    throw new ServerError("WD_ERR_ORIGIN", `Cross-origin request refused (Origin ${origin.slice(0, 200)})`);
  }
  const site = request.headers["sec-fetch-site"];
  const mode = request.headers["sec-fetch-mode"];
  if ((site === "cross-site" || site === "same-site") && mode !== "navigate") {
    throw new ServerError("WD_ERR_CROSS_SITE", "Request from another site refused");
  }
}

const plugin: FastifyPluginAsync<HostCheckOptions> = async (app, options) => {
  const extra = new Set<string>();
  const bind = options.bindHost?.toLowerCase();
  if (bind !== undefined && !WILDCARDS.has(bind)) extra.add(bind.includes(":") && !bind.startsWith("[") ? `[${bind}]` : bind);
  // A callback hook: it runs on every request, and an async one costs a promise each time.
  app.addHook("onRequest", (request, _reply, done) => {
    try {
      checkRequest(request, extra);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
};

/** Registers the request-origin checks on the whole app. */
export const hostCheck = fp(plugin, { name: "wink-host-check", fastify: "5.x" });

/** The same verdict for raw `upgrade` requests (which never reach Fastify's hooks). */
export function upgradeVerdict(headers: Record<string, string | string[] | undefined>, options: HostCheckOptions = {}): { status: number; detail: string; code: string } {
  const bind = options.bindHost?.toLowerCase();
  const extra = new Set<string>(bind !== undefined && !WILDCARDS.has(bind) ? [bind] : []);
  try {
    checkRequest({ headers } as unknown as FastifyRequest, extra);
  } catch (error) {
    if (error instanceof ServerError) return { status: error.statusCode, detail: error.message, code: error.code };
    throw error;
  }
  return { status: 404, detail: "This server has no WebSocket endpoint (live reload uses GET /api/events)", code: "WD_ERR_NOT_FOUND" };
}
