/**
 * The sign-in guard (issue 31), registered right after the host check when `--auth` is given:
 * every request but `/auth/*` and the operator's probes needs a user, from the method itself
 * (a trusted proxy's header) or the session cookie. Signed out, page navigations are sent to
 * sign-in with a safe return-to; everything else (the API, the event stream) gets 401 JSON.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { SERVER_ERROR_CODES, errorJson } from "../http/errors.js";
import type { ServerErrorCode } from "../http/errors.js";
import type { TrustedProxies } from "./proxy-sign-in.js";
import type { SignInContext, SignInMethod } from "./sign-in-method.js";

/** Reachable signed out and revealing nothing (i31-ops's probes; /metrics has its own token). */
const OPEN_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Who is signed in, for the page's header (`{ user }`, null signed out). Every page load asks
 * it, so it is not counted as a sign-in attempt: a user reloading often must not lock
 * themselves out of signing in.
 */
export const USER_PATH = "/auth/user";
/**
 * Where sign-out lands: a page, not the viewer, which would send the browser straight back
 * through the provider (still signed in there) and sign the user in again unasked.
 */
export const SIGNED_OUT_PATH = "/auth/signed-out";

export interface GuardOptions {
  method: SignInMethod;
  context: SignInContext;
  /**
   * The reverse proxies in front (`--trusted-proxy`): behind one, every request comes from its
   * address, so the rate limit counts the client its `X-Forwarded-For` names instead.
   */
  trustedProxies?: TrustedProxies | undefined;
  /** Sign-in requests allowed per address per window (default 30 a minute). */
  signInLimit?: number;
  windowMs?: number;
  /** Addresses remembered at most: beyond it the oldest window is dropped (bounded memory). */
  maxAddresses?: number;
}

/** What the served mode (`--auth`) gives the app: the method, its cookies, the proxies in front. */
export type ServedAuth = Pick<GuardOptions, "method" | "context" | "trustedProxies">;

/** Fixed-window counts per address in a Map kept in insertion order, capped. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxAddresses: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** True when one more request from `address` is allowed. */
  take(address: string): boolean {
    const now = this.now();
    let window = this.windows.get(address);
    if (window === undefined || now - window.start >= this.windowMs) {
      this.windows.delete(address);
      while (this.windows.size >= this.maxAddresses) {
        const oldest = this.windows.keys().next().value;
        if (oldest === undefined) break;
        this.windows.delete(oldest);
      }
      window = { start: now, count: 0 };
      this.windows.set(address, window);
    }
    window.count += 1;
    return window.count <= this.limit;
  }
}

function refuse(reply: FastifyReply, code: ServerErrorCode, detail: string): FastifyReply {
  return reply.code(SERVER_ERROR_CODES[code].status).type("application/json; charset=utf-8").send(errorJson({ detail, code }));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * A page of its own (no script: the CSP allows none inline), with the way back in. The icon is
 * inline: the browser's own /favicon.ico request would meet the guard, signed out.
 */
export function signedOutPage(basePath: string): string {
  const home = escapeHtml(basePath);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Signed out – wink-debug</title><link rel="icon" href="data:,"></head><body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5"><main><h1>You are signed out of wink-debug</h1><p>Your session in this viewer has ended. You may still be signed in at your company's sign-in provider.</p><p><a href="${home}">Sign in again</a></p></main></body></html>`;
}

function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf("?");
  return query === -1 ? request.url : request.url.slice(0, query);
}

function isNavigation(request: FastifyRequest, path: string): boolean {
  return request.method === "GET" && !path.startsWith("/api/") && path !== "/api" && (request.headers.accept ?? "").includes("text/html");
}

async function guardPlugin(app: FastifyInstance, options: GuardOptions): Promise<void> {
  const { method, context } = options;
  const limiter = new RateLimiter(options.signInLimit ?? 30, options.windowMs ?? 60_000, options.maxAddresses ?? 10_000);
  const { trustedProxies } = options;
  const allowed = (request: FastifyRequest): boolean => {
    const peer = request.socket.remoteAddress;
    return limiter.take((trustedProxies === undefined ? peer : trustedProxies.clientOf(peer, request.headers["x-forwarded-for"])) ?? "unknown");
  };
  app.addHook("onRequest", async (request, reply) => {
    const path = pathOf(request);
    // Cross-site writes: a browser sends Sec-Fetch-Site on every request it makes.
    const site = request.headers["sec-fetch-site"];
    if (request.method !== "GET" && request.method !== "HEAD" && site !== undefined && site !== "same-origin" && site !== "none") {
      return refuse(reply, "WD_ERR_ORIGIN", "cross-site request refused");
    }
    if (OPEN_PATHS.has(path)) return;
    if (path === USER_PATH) {
      request.viewerUser = method.fromRequest(request) ?? context.sessions.read(request);
      return;
    }
    if (method.urlSignIn?.carries(request) === true) {
      if (!allowed(request)) return refuse(reply, "WD_ERR_RATE_LIMITED", "too many sign-in attempts from this address");
      return method.urlSignIn.answer(request, reply, context.sessions.read(request), context);
    }
    if (path.startsWith("/auth/")) {
      if (!allowed(request)) return refuse(reply, "WD_ERR_RATE_LIMITED", "too many sign-in attempts from this address");
      request.viewerUser = method.fromRequest(request) ?? context.sessions.read(request);
      return;
    }
    const user = method.fromRequest(request) ?? context.sessions.read(request);
    if (user !== null) {
      request.viewerUser = user;
      return;
    }
    if (isNavigation(request, path)) {
      const returnTo = context.sessions.safeReturnTo(`${context.basePath}${request.url.replace(/^\//, "")}`);
      return reply.redirect(method.signInLocation(returnTo, context), 302);
    }
    return refuse(reply, "WD_ERR_SIGN_IN", "sign in first");
  });
  app.get(USER_PATH, async (request, reply) => {
    const user = request.viewerUser;
    return reply.header("cache-control", "no-store").send({ user: user === null ? null : { name: user.name, email: user.email, via: user.via } });
  });
  app.post("/auth/sign-out", async (request, reply) => {
    context.sessions.signOut(request, reply);
    return reply.redirect(`${context.basePath}${SIGNED_OUT_PATH.slice(1)}`, 303);
  });
  app.get(SIGNED_OUT_PATH, async (_request, reply) => {
    return reply.header("cache-control", "no-store").type("text/html; charset=utf-8").send(signedOutPage(context.basePath));
  });
  await method.register(app, context);
}

/** The guard, applied to the whole app (not encapsulated). */
export const signInGuard = fp(guardPlugin, { name: "wink-sign-in-guard" });
