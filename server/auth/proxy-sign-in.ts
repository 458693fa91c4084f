/**
 * `--auth proxy` (issue 31): a reverse proxy that signs users in itself (oauth2-proxy, nginx
 * `auth_request`) names the user in a header, and that header is believed only on a
 * connection from one of the proxy's own addresses. The address is the TCP peer's, never
 * X-Forwarded-For: any client can write that header, nobody but the kernel writes the peer.
 *
 * No cookie is issued: the proxy proves every request, so a user the proxy signs out (or stops
 * letting in) is signed out here at once, on every instance.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SignedSessionCookies } from "./session-cookie.js";
import type { SignInContext, SignInMethod, ViewerUser } from "./sign-in-method.js";

/** A refusal of the proxy options, naming the option (the CLI exits 2 with it). */
export class ProxyOptionsError extends Error {}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Longest user name or groups value believed; longer is a misconfigured proxy, not a user. */
const MAX_VALUE_LENGTH = 1024;
/** Untrusted peers whose user header is logged (once each): enough to spot a wrong --trusted-proxy, too few to flood the log. */
const MAX_LOGGED_PEERS = 20;

/** The addresses and networks (`--trusted-proxy 127.0.0.1,10.0.0.0/8,::1`) whose user header is believed. */
export class TrustedProxies {
  readonly #list = new net.BlockList();
  readonly entries: readonly string[];

  private constructor(entries: readonly string[]) {
    this.entries = entries;
  }

  /** Parses a comma-separated list of addresses and CIDR networks; `option` names it in refusals. */
  static parse(text: string, option = "--trusted-proxy"): TrustedProxies {
    const entries = text.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
    if (entries.length === 0) throw new ProxyOptionsError(`${option} needs at least one address or network (e.g. 127.0.0.1 or 10.0.0.0/8)`);
    const proxies = new TrustedProxies(entries);
    for (const entry of entries) {
      const slash = entry.indexOf("/");
      const address = slash === -1 ? entry : entry.slice(0, slash);
      const family = net.isIP(address);
      if (family === 0) throw new ProxyOptionsError(`${option}: ${entry} is not an IP address or CIDR network (host names are not accepted: the peer's address is what is checked)`);
      const type = family === 4 ? "ipv4" : "ipv6";
      if (slash === -1) {
        proxies.#list.addAddress(address, type);
        continue;
      }
      const prefixText = entry.slice(slash + 1);
      const most = family === 4 ? 32 : 128;
      if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > most) throw new ProxyOptionsError(`${option}: ${entry} has a bad prefix length (0 to ${most} for IPv${family})`);
      proxies.#list.addSubnet(address, Number(prefixText), type);
    }
    return proxies;
  }

  /**
   * True when `peer` (a socket's remoteAddress) is trusted. An IPv4 client of a dual-stack
   * listener shows as `::ffff:a.b.c.d`; BlockList matches it against IPv4 entries, and an
   * IPv4 peer against `::ffff:` entries.
   */
  trusts(peer: string | undefined): boolean {
    if (peer === undefined) return false;
    const family = net.isIP(peer);
    return family !== 0 && this.#list.check(peer, family === 4 ? "ipv4" : "ipv6");
  }

  /**
   * The address a request comes from: the peer's, or, when the peer is one of these proxies,
   * the nearest address its `X-Forwarded-For` names that is not itself a proxy. The list is
   * read from the right: a client can write anything at its start, but each trusted proxy
   * appends the address it saw. A malformed entry stops the walk at the last address known.
   */
  clientOf(peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined {
    if (!this.trusts(peer) || forwardedFor === undefined) return peer;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor).split(",").map((hop) => hop.trim());
    let client = peer;
    for (let at = hops.length - 1; at >= 0; at--) {
      const hop = hops[at] as string;
      if (net.isIP(hop) === 0) break;
      client = hop;
      if (!this.trusts(hop)) break;
    }
    return client;
  }
}

export interface ProxySignInOptions {
  /** The header naming the user (any case), e.g. X-Forwarded-User. */
  readonly userHeader: string;
  readonly trusted: TrustedProxies;
  /** A header listing the user's groups, comma-separated (oauth2-proxy's X-Forwarded-Groups). */
  readonly groupsHeader?: string;
  /** With `groupsHeader`: only users in one of these groups are signed in. */
  readonly allowedGroups?: readonly string[];
}

/** The raw CLI values of `--auth proxy`'s options. */
export interface ProxyCliValues {
  readonly "user-header"?: string | undefined;
  readonly "trusted-proxy"?: string | undefined;
  readonly "groups-header"?: string | undefined;
  readonly "proxy-allowed-groups"?: string | undefined;
}

/** The options only `--auth proxy` takes (`--trusted-proxy` is for every `--auth`: the guard's rate limit reads it too). */
export const PROXY_CLI_OPTIONS = ["user-header", "groups-header", "proxy-allowed-groups"] as const;

function headerName(option: string, value: string): string {
  if (!HEADER_NAME.test(value)) throw new ProxyOptionsError(`${option} must be an HTTP header name (e.g. X-Forwarded-User), got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

/** `--auth proxy`'s options from the command line, checked before anything starts. */
export function proxyOptionsFromCli(values: ProxyCliValues): ProxySignInOptions {
  const user = values["user-header"];
  if (user === undefined) throw new ProxyOptionsError("--auth proxy needs --user-header NAME (the header the proxy names the user in, e.g. X-Forwarded-User)");
  const trusted = values["trusted-proxy"];
  if (trusted === undefined) throw new ProxyOptionsError("--auth proxy needs --trusted-proxy ADDR[,ADDR|CIDR...] (the proxy's own addresses, as this server sees its connections)");
  const groups = values["groups-header"];
  const allowed = (values["proxy-allowed-groups"] ?? "").split(",").map((group) => group.trim()).filter((group) => group !== "");
  if ((groups === undefined) !== (allowed.length === 0)) throw new ProxyOptionsError(groups === undefined ? "--proxy-allowed-groups needs --groups-header NAME" : "--groups-header needs --proxy-allowed-groups g1,g2 (who may sign in)");
  const userHeader = headerName("--user-header", user);
  const groupsHeader = groups === undefined ? undefined : headerName("--groups-header", groups);
  if (groupsHeader === userHeader) throw new ProxyOptionsError("--groups-header must differ from --user-header");
  return { userHeader, trusted: TrustedProxies.parse(trusted), ...(groupsHeader === undefined ? {} : { groupsHeader, allowedGroups: allowed }) };
}

/** Why a request is not signed in by the proxy (for the sign-in page; never sent to the API). */
type Verdict = { user: ViewerUser } | { refused: "untrusted" | "no-user" | "not-allowed"; name?: string };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The header's one value, trimmed; null when absent, empty, sent twice, too long or holding control characters. */
function singleValue(request: FastifyRequest, name: string): string | null {
  const values = request.raw.headersDistinct[name];
  if (values === undefined || values.length !== 1) return null;
  const value = (values[0] ?? "").trim();
  if (value === "" || value.length > MAX_VALUE_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) return null;
  return value;
}

export class ProxySignIn implements SignInMethod {
  readonly kind = "proxy" as const;
  readonly #options: ProxySignInOptions;
  readonly #loggedPeers = new Set<string>();

  constructor(options: ProxySignInOptions) {
    this.#options = options;
  }

  #verdict(request: FastifyRequest): Verdict {
    const peer = request.socket.remoteAddress;
    if (!this.#options.trusted.trusts(peer)) {
      this.#logUntrusted(request, peer ?? "unknown");
      return { refused: "untrusted" };
    }
    const name = singleValue(request, this.#options.userHeader);
    if (name === null) return { refused: "no-user" };
    const { groupsHeader, allowedGroups } = this.#options;
    if (groupsHeader !== undefined && allowedGroups !== undefined) {
      const held = (singleValue(request, groupsHeader) ?? "").split(",").map((group) => group.trim());
      if (!held.some((group) => allowedGroups.includes(group))) return { refused: "not-allowed", name };
    }
    return { user: { name, email: /^[^@\s]+@[^@\s]+$/.test(name) ? name : null, via: "proxy" } };
  }

  /** A user header from a peer that is not trusted: a forgery, or a --trusted-proxy that misses the proxy's address. */
  #logUntrusted(request: FastifyRequest, peer: string): void {
    if (request.headers[this.#options.userHeader] === undefined || this.#loggedPeers.has(peer) || this.#loggedPeers.size >= MAX_LOGGED_PEERS) return;
    this.#loggedPeers.add(peer);
    request.log.warn({ peer }, "user header from an address that is not a --trusted-proxy: the request is signed out (logged once per address)");
  }

  fromRequest(request: FastifyRequest): ViewerUser | null {
    const verdict = this.#verdict(request);
    return "user" in verdict ? verdict.user : null;
  }

  signInLocation(returnTo: string, context: SignInContext): string {
    return `${context.basePath}auth/proxy/sign-in?return_to=${encodeURIComponent(returnTo)}`;
  }

  async register(app: FastifyInstance, context: SignInContext): Promise<void> {
    // Where a signed-out page navigation lands: a page, never a redirect onwards (signing in is
    // the proxy's to do, and sending the browser back would only loop).
    app.get("/auth/proxy/sign-in", async (request, reply) => {
      const returnTo = context.sessions.safeReturnTo((request.query as Record<string, unknown>).return_to);
      const verdict = this.#verdict(request);
      if ("user" in verdict) return reply.header("cache-control", "no-store").redirect(returnTo, 302);
      const message =
        verdict.refused === "not-allowed"
          ? `The proxy in front of this viewer signed you in as ${verdict.name ?? "someone"}, but none of your groups may open it. Ask its administrator for access.`
          : verdict.refused === "no-user"
            ? "Sign-in happens at the proxy in front of this viewer, but this request came through it without saying who you are. Sign in at the proxy; if you did, its configuration must pass the user on every request (ask its administrator)."
            : "Sign-in happens at the proxy in front of this viewer, which tells it who you are. Open the viewer through the team's address (not this server's own port), and sign in there.";
      return page(reply, verdict.refused === "not-allowed" ? 403 : 401, verdict.refused === "not-allowed" ? "Not allowed" : "Sign in at the proxy", message, returnTo);
    });
  }
}

/** No script (the CSP allows none inline); the icon inline, as the browser's own /favicon.ico would meet the guard signed out. */
function page(reply: FastifyReply, status: number, title: string, message: string, retry: string): FastifyReply {
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .type("text/html; charset=utf-8")
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} – wink-debug</title><link rel="icon" href="data:,"></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(retry)}">Try again</a></p></main></body></html>`);
}

/**
 * `--auth proxy`'s method and session cookies for a viewer under `basePath`. The cookies'
 * secret is random and never shared: this method signs no cookie, so none can be honoured.
 */
export function proxySignIn(options: ProxySignInOptions, basePath: string): { method: SignInMethod; context: SignInContext } {
  const sessions = new SignedSessionCookies({ secret: randomBytes(32), basePath, secure: false });
  return { method: new ProxySignIn(options), context: { sessions, basePath } };
}
