/**
 * The served mode's contract (issue 31), written before its parts so that they can be built
 * side by side: a sign-in method (token, proxy, OpenID Connect) proves who a request is from,
 * and the stateless session cookie remembers it. The guard (`auth/guard.ts`) asks the method
 * first, then the cookie, and answers every other request with a redirect (pages) or a 401
 * (API, event stream). The local default (loopback, no `--auth`) registers none of this.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** How a user was signed in. */
export type SignInKind = "token" | "proxy" | "oidc";

/** Who a request is from: what the access log records and the page shows. */
export interface ViewerUser {
  /** The user's name as the method gives it (an e-mail address, a proxy's user header, "token"). */
  readonly name: string;
  readonly email: string | null;
  readonly via: SignInKind;
}

/**
 * The signed-in state, in a signed HttpOnly cookie keyed by a secret from a file: any
 * instance with the same secret accepts any other's cookie, and a restart signs no one out.
 */
export interface SessionCookies {
  /** Sets the session cookie for `user` (expiry from the options). */
  signIn(reply: FastifyReply, user: ViewerUser): void;
  /** The user of a valid, unexpired, not signed-out cookie on the request, else null. */
  read(request: FastifyRequest): ViewerUser | null;
  /** Clears the cookie; a copy of it replayed later is refused. */
  signOut(request: FastifyRequest, reply: FastifyReply): void;
  /** A return-to that can only point into the viewer: a path under the base path, else the base path itself. */
  safeReturnTo(value: unknown): string;
}

/** What a method's routes are given when registered. */
export interface SignInContext {
  readonly sessions: SessionCookies;
  /** The public URL's path, with a trailing slash ("/" by default): every Location starts with it. */
  readonly basePath: string;
}

/**
 * A sign-in carried in the URL of any page (token sign-in's `?token=`, as Jupyter's): the
 * guard asks `carries` before anything else is looked at, rate-limits such a request like
 * `/auth/*`, and lets `answer` reply to it (a right credential: the session cookie and the
 * same URL without it; a wrong one: the refusal).
 */
export interface UrlSignIn {
  /** True when the request holds the credential, right or wrong. */
  carries(request: FastifyRequest): boolean;
  /** The answer to a request that `carries` it; `signedIn`: the session cookie's user, if any. */
  answer(request: FastifyRequest, reply: FastifyReply, signedIn: ViewerUser | null, context: SignInContext): FastifyReply;
}

/** One way of signing in, chosen with `--auth`. */
export interface SignInMethod {
  readonly kind: SignInKind;
  /**
   * Adds the method's own routes at `/auth/<kind>/…` (the router sees paths with the base
   * path taken off), reachable while signed out and rate-limited by the guard.
   */
  register(app: FastifyInstance, context: SignInContext): Promise<void>;
  /** A user the request proves by itself (the proxy's header from a trusted address), else null. */
  fromRequest(request: FastifyRequest): ViewerUser | null;
  /** Where a signed-out navigation that wanted `returnTo` (a safe path) is sent. */
  signInLocation(returnTo: string, context: SignInContext): string;
  /** A credential a page's URL may carry (token sign-in only). */
  readonly urlSignIn?: UrlSignIn;
}
