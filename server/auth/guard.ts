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
import type { SignInContext, SignInMethod } from "./sign-in-method.js";

/** Reachable signed out and revealing nothing (i31-ops's probes; /metrics has its own token). */
const OPEN_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export interface GuardOptions {
  method: SignInMethod;
  context: SignInContext;
  /** Sign-in requests allowed per address per window (default 30 a minute). */
  signInLimit?: number;
  windowMs?: number;
  /** Addresses remembered at most: beyond it the oldest window is dropped (bounded memory). */
  maxAddresses?: number;
}

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
  app.addHook("onRequest", async (request, reply) => {
    const path = pathOf(request);
    // Cross-site writes: a browser sends Sec-Fetch-Site on every request it makes.
    const site = request.headers["sec-fetch-site"];
    if (request.method !== "GET" && request.method !== "HEAD" && site !== undefined && site !== "same-origin" && site !== "none") {
      return refuse(reply, "WD_ERR_ORIGIN", "cross-site request refused");
    }
    if (OPEN_PATHS.has(path)) return;
    if (method.urlSignIn?.carries(request) === true) {
      if (!limiter.take(request.socket.remoteAddress ?? "unknown")) return refuse(reply, "WD_ERR_RATE_LIMITED", "too many sign-in attempts from this address");
      return method.urlSignIn.answer(request, reply, context.sessions.read(request), context);
    }
    if (path.startsWith("/auth/")) {
      if (!limiter.take(request.socket.remoteAddress ?? "unknown")) return refuse(reply, "WD_ERR_RATE_LIMITED", "too many sign-in attempts from this address");
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
  app.post("/auth/sign-out", async (request, reply) => {
    context.sessions.signOut(request, reply);
    return reply.redirect(context.basePath, 303);
  });
  await method.register(app, context);
}

/** The guard, applied to the whole app (not encapsulated). */
export const signInGuard = fp(guardPlugin, { name: "wink-sign-in-guard" });
