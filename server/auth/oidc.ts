/**
 * `--auth oidc` (issue 31): OpenID Connect authorization code flow with PKCE, through
 * `openid-client`. Stateless: the PKCE verifier, state, nonce and return-to of a sign-in in
 * progress live in a short-lived AES-GCM cookie (authenticated and unreadable), so any
 * instance sharing the secret may receive the provider's callback.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import * as client from "openid-client";
import type { SignInContext, SignInMethod, ViewerUser } from "./sign-in-method.js";

export interface OidcOptions {
  readonly issuer: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Lower-case e-mail domains whose verified addresses may sign in. */
  readonly allowedDomains: readonly string[];
  /** Values of the `groups` claim that may sign in. */
  readonly allowedGroups: readonly string[];
  /** The absolute callback URL registered with the provider (`<public URL>auth/oidc/callback`). */
  readonly redirectUri: URL;
  /** The shared secret the pending-sign-in cookie is keyed from (the session secret). */
  readonly secret: Buffer;
  /** How long a sign-in may take at the provider (default 10 minutes). */
  readonly pendingSeconds?: number;
}

const COOKIE = "wink_oidc";
const DEFAULT_PENDING_SECONDS = 600;

interface Pending {
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
  readonly returnTo: string;
  readonly expires: number;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(reply: FastifyReply, status: number, title: string, message: string, retry: string): FastifyReply {
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .type("text/html; charset=utf-8")
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} – wink-debug</title><link rel="icon" href="data:,"></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(retry)}">Sign in again</a></p></main></body></html>`);
}

function readCookie(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** True when the address book's domain list or group list lets `claims` in. */
export function isAllowed(claims: Record<string, unknown>, domains: readonly string[], groups: readonly string[]): boolean {
  const email = typeof claims.email === "string" ? claims.email.toLowerCase() : null;
  // An unverified address proves nothing about its domain.
  if (email !== null && claims.email_verified === true && domains.includes(email.slice(email.lastIndexOf("@") + 1))) return true;
  const held = Array.isArray(claims.groups) ? claims.groups : typeof claims.groups === "string" ? [claims.groups] : [];
  return held.some((group) => typeof group === "string" && groups.includes(group));
}

export class OidcSignIn implements SignInMethod {
  readonly kind = "oidc" as const;
  readonly #options: OidcOptions;
  readonly #key: Buffer;
  #config: Promise<client.Configuration> | null = null;

  constructor(options: OidcOptions) {
    if (options.allowedDomains.length === 0 && options.allowedGroups.length === 0) throw new Error("--auth oidc needs --oidc-allowed-domains or --oidc-allowed-groups");
    this.#options = options;
    this.#key = createHmac("sha256", options.secret).update("wink-debug oidc pending sign-in").digest();
  }

  /** The provider's metadata, discovered on first use and again after a failure. */
  #configuration(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.#options;
    // Plain HTTP only for a provider on this machine (tests, a local IdP).
    const loopback = issuer.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(issuer.hostname);
    this.#config ??= client.discovery(issuer, clientId, clientSecret, undefined, loopback ? { execute: [client.allowInsecureRequests] } : undefined).catch((error: unknown) => {
      this.#config = null;
      throw error;
    });
    return this.#config;
  }

  #seal(pending: Pending): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(pending), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  #open(text: string | null): Pending | null {
    if (text === null) return null;
    try {
      const raw = Buffer.from(text, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const pending = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")) as Pending;
      return pending.expires > Date.now() ? pending : null;
    } catch {
      return null;
    }
  }

  #cookie(value: string, maxAge: number, context: SignInContext): string {
    const secure = this.#options.redirectUri.protocol === "https:" ? "; Secure" : "";
    // Lax: the provider's redirect back is a top-level GET, which Lax cookies go with.
    return `${COOKIE}=${value}; Path=${context.basePath}auth/oidc/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
  }

  async register(app: FastifyInstance, context: SignInContext): Promise<void> {
    const login = `${context.basePath}auth/oidc/login`;
    app.get("/auth/oidc/login", async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const returnTo = context.sessions.safeReturnTo(query.return_to);
      let config;
      try {
        config = await this.#configuration();
      } catch {
        return page(reply, 502, "The sign-in provider is unreachable", "wink-debug could not read the OpenID provider's configuration. Try again in a moment.", login);
      }
      const verifier = client.randomPKCECodeVerifier();
      const pending: Pending = { verifier, state: client.randomState(), nonce: client.randomNonce(), returnTo, expires: Date.now() + (this.#options.pendingSeconds ?? DEFAULT_PENDING_SECONDS) * 1000 };
      const target = client.buildAuthorizationUrl(config, {
        redirect_uri: this.#options.redirectUri.href,
        scope: this.#options.allowedGroups.length > 0 ? "openid email profile groups" : "openid email profile",
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state: pending.state,
        nonce: pending.nonce,
      });
      return reply
        .header("set-cookie", this.#cookie(this.#seal(pending), this.#options.pendingSeconds ?? DEFAULT_PENDING_SECONDS, context))
        .header("cache-control", "no-store")
        .redirect(target.href, 302);
    });
    app.get("/auth/oidc/callback", async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const pending = this.#open(readCookie(request, COOKIE));
      reply.header("set-cookie", this.#cookie("", 0, context));
      const retry = `${login}?return_to=${encodeURIComponent(pending?.returnTo ?? context.basePath)}`;
      if (typeof query.error === "string") {
        const denied = query.error === "access_denied";
        return page(reply, 403, denied ? "Sign-in was cancelled" : "The sign-in provider refused", denied ? "The provider says access was denied." : `The provider answered: ${query.error}${typeof query.error_description === "string" ? ` (${query.error_description})` : ""}.`, retry);
      }
      if (pending === null || query.state !== pending.state) {
        return page(reply, 400, "This sign-in has expired", "This sign-in was started too long ago, in another browser, or already used. Start it again.", retry);
      }
      let claims: Record<string, unknown>;
      try {
        const config = await this.#configuration();
        const current = new URL(this.#options.redirectUri.href);
        current.search = new URL(request.url, "http://callback.invalid").search;
        const tokens = await client.authorizationCodeGrant(config, current, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true });
        const idClaims = tokens.claims();
        if (idClaims === undefined) throw new Error("no ID token");
        claims = { ...idClaims };
        // Providers may keep e-mail and groups out of the ID token (oidc-provider does, by default).
        if (config.serverMetadata().userinfo_endpoint !== undefined) {
          claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, idClaims.sub)) };
        }
      } catch (error) {
        if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError) {
          return page(reply, 400, "This sign-in has expired", `The provider refused the sign-in code (${error.error}). Start again.`, retry);
        }
        request.log.warn({ err: error }, "OpenID Connect callback failed");
        return page(reply, 502, "Sign-in failed", "wink-debug could not complete the sign-in with the provider. Try again in a moment.", retry);
      }
      const email = typeof claims.email === "string" ? claims.email : null;
      const name = email ?? (typeof claims.preferred_username === "string" ? claims.preferred_username : String(claims.sub));
      if (!isAllowed(claims, this.#options.allowedDomains, this.#options.allowedGroups)) {
        return page(reply, 403, "Not allowed", `You signed in as ${name}, but this viewer is open only to certain e-mail domains or groups. Ask its administrator for access, or sign in with another account.`, retry);
      }
      const user: ViewerUser = { name, email, via: "oidc" };
      context.sessions.signIn(reply, user);
      return reply.header("cache-control", "no-store").redirect(context.sessions.safeReturnTo(pending.returnTo), 302);
    });
  }

  fromRequest(): ViewerUser | null {
    return null;
  }

  signInLocation(returnTo: string, context: SignInContext): string {
    return `${context.basePath}auth/oidc/login?return_to=${encodeURIComponent(returnTo)}`;
  }
}
