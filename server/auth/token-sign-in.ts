/**
 * `--auth token` (issue 31), as Jupyter does it: a random token made at start (or read from
 * `--token-file` / `WINK_DEBUG_TOKEN`, so that several instances take the same one), printed
 * once in the viewer's URL. Any page opened with `?token=` exchanges it for the signed session
 * cookie and is sent on to the same URL without it, so the token stays neither in the address
 * bar, nor in the history, nor in a Referer; given to the sign-in page itself (where the
 * guard sends a signed-out deep link), it is sent on to the page's `return_to` instead, as
 * `safeReturnTo` lets it (else the root). A wrong token is refused with a 401 (a page for
 * a navigation, JSON otherwise), and the guard rate-limits every attempt like `/auth/*`.
 * No answer and no log line holds the token: the access log writes route patterns, never URLs.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorJson } from "../http/errors.js";
import { readSecret } from "./secret-source.js";
import { SignInOptionsError } from "./served-sign-in.js";
import { SignedSessionCookies, readSessionSecret } from "./session-cookie.js";
import type { SignInContext, SignInMethod, UrlSignIn, ViewerUser } from "./sign-in-method.js";

/** The query parameter that carries the token, on any page. */
export const TOKEN_PARAMETER = "token";
/** The sign-in page, under the base path. */
const SIGN_IN_PATH = "auth/token/sign-in";
/** A generated token's bytes: 192 bits, beyond guessing even without the rate limit. */
const TOKEN_BYTES = 24;
/** The shortest token accepted from a file or the environment (128 bits as hex). */
export const MIN_TOKEN_LENGTH = 32;
const TOKEN_VARIABLE = "WINK_DEBUG_TOKEN";

const USER: ViewerUser = { name: "token", email: null, via: "token" };

/** A new random token (hex: it needs no escaping in a URL). */
export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString("hex");
}

/** `url` (absolute, no query) with the token added: what the CLI prints once. */
export function tokenUrl(url: string, token: string): string {
  return `${url}?${TOKEN_PARAMETER}=${encodeURIComponent(token)}`;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The query string split in its parts, each with its decoded name (null when it does not decode). */
function queryParts(url: string): { path: string; parts: { raw: string; name: string | null; value: string | null }[] } {
  const at = url.indexOf("?");
  if (at === -1) return { path: url, parts: [] };
  const parts = url
    .slice(at + 1)
    .split("&")
    .filter((raw) => raw !== "")
    .map((raw) => {
      const eq = raw.indexOf("=");
      const decode = (text: string): string | null => {
        try {
          return decodeURIComponent(text.replace(/\+/g, " "));
        } catch {
          return null;
        }
      };
      return { raw, name: decode(eq === -1 ? raw : raw.slice(0, eq)), value: eq === -1 ? "" : decode(raw.slice(eq + 1)) };
    });
  return { path: url.slice(0, at), parts };
}

/**
 * The request's own URL under the base path, the token taken out and every other parameter
 * kept as it was written; through `safeReturnTo`, so an odd request path (`//host`) cannot
 * make the redirect leave the viewer.
 */
function withoutToken(request: FastifyRequest, context: SignInContext): string {
  const { path, parts } = queryParts(request.url);
  // On the sign-in page itself the page wanted is its `return_to` (where the guard sent a
  // deep link from): going back to the sign-in page would only ask for the token again.
  if (path === `/${SIGN_IN_PATH}`) return context.sessions.safeReturnTo(parts.find((part) => part.name === "return_to")?.value ?? null);
  const kept = parts.filter((part) => part.name !== TOKEN_PARAMETER).map((part) => part.raw);
  const local = `${path.replace(/^\/+/, "")}${kept.length === 0 ? "" : `?${kept.join("&")}`}`;
  return context.sessions.safeReturnTo(`${context.basePath}${local}`);
}

function isNavigation(request: FastifyRequest): boolean {
  return (request.headers.accept ?? "").includes("text/html");
}

/**
 * The sign-in page: where to find the URL, and a field for the token. The form is a GET to
 * the page wanted, so the token arrives the way the printed URL brings it and is exchanged
 * (and taken out of the address) the same way.
 */
function signInPage(reply: FastifyReply, status: number, message: string, returnTo: string): FastifyReply {
  const target = new URL(returnTo, "http://viewer.invalid");
  const hidden = [...target.searchParams]
    .filter(([name]) => name !== TOKEN_PARAMETER)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    // The viewer's own policy forbids forms; this page has one, posting to this origin only.
    .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
    .type("text/html; charset=utf-8")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Sign in – wink-debug</title>` +
        `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}input[type=password]{width:100%;font:inherit;padding:.3rem}</style></head>` +
        `<body><main><h1>Sign in to wink-debug</h1><p>${escapeHtml(message)}</p>` +
        `<form method="get" action="${escapeHtml(target.pathname)}">${hidden}<label>Token <input type="password" name="${TOKEN_PARAMETER}" autocomplete="off" required></label> <button type="submit">Sign in</button></form>` +
        `</main></body></html>`,
    );
}

const ASK = "Open the address wink-debug printed when it started (it ends in ?token=…), or paste its token here.";

export class TokenSignIn implements SignInMethod {
  readonly kind = "token" as const;
  readonly #digest: Buffer;
  readonly urlSignIn: UrlSignIn;

  constructor(token: string) {
    if (token.length < MIN_TOKEN_LENGTH) throw new Error(`a sign-in token needs at least ${MIN_TOKEN_LENGTH} characters`);
    this.#digest = digest(token);
    this.urlSignIn = {
      carries: (request) => (request.method === "GET" || request.method === "HEAD") && queryParts(request.url).parts.some((part) => part.name === TOKEN_PARAMETER),
      answer: (request, reply, signedIn, context) => this.#answer(request, reply, signedIn, context),
    };
  }

  /** True for the right token; digests of equal length, compared in constant time. */
  #matches(given: string | null): boolean {
    return given !== null && given.length <= 1024 && timingSafeEqual(digest(given), this.#digest);
  }

  #answer(request: FastifyRequest, reply: FastifyReply, signedIn: ViewerUser | null, context: SignInContext): FastifyReply {
    const given = queryParts(request.url).parts.find((part) => part.name === TOKEN_PARAMETER)?.value ?? null;
    const target = withoutToken(request, context);
    const right = this.#matches(given);
    if (right || signedIn !== null) {
      // Already signed in: an old link's token is only taken out of the address.
      if (right) context.sessions.signIn(reply, USER);
      request.viewerUser = right ? USER : signedIn;
      return reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer").redirect(target, 302);
    }
    if (isNavigation(request)) return signInPage(reply, 401, `That token is not this viewer's (a generated one changes at each start). ${ASK}`, target);
    return reply
      .code(401)
      .header("cache-control", "no-store")
      .header("referrer-policy", "no-referrer")
      .type("application/json; charset=utf-8")
      .send(errorJson({ detail: "the sign-in token is wrong: open the address wink-debug printed when it started", code: "WD_ERR_SIGN_IN" }));
  }

  async register(app: FastifyInstance, context: SignInContext): Promise<void> {
    app.get(`/${SIGN_IN_PATH}`, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      return signInPage(reply, 200, ASK, context.sessions.safeReturnTo(query.return_to));
    });
  }

  fromRequest(): ViewerUser | null {
    return null;
  }

  signInLocation(returnTo: string, context: SignInContext): string {
    return `${context.basePath}${SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo)}`;
  }
}

export interface TokenCliOptions {
  /** `--token-file`: the token, read from a file; else `WINK_DEBUG_TOKEN`; else a new one. */
  readonly tokenFile: string | undefined;
  /** `--session-secret-file`; else `WINK_SESSION_SECRET`; else a secret of this process only. */
  readonly sessionSecretFile: string | undefined;
}

/**
 * `--auth token`'s method and session cookies for a viewer under `basePath`, and its token
 * (`generated`: made here, to be printed; else the operator's, which is not printed).
 */
export function tokenSignIn(options: TokenCliOptions, env: NodeJS.ProcessEnv, basePath: string, secure: boolean): { method: TokenSignIn; context: SignInContext; token: string; generated: boolean } {
  let given: string | undefined;
  let secret: Buffer;
  try {
    given = readSecret("--token-file", options.tokenFile, env, TOKEN_VARIABLE);
    secret = readSessionSecret(options.sessionSecretFile, env, true).secret;
  } catch (error) {
    throw new SignInOptionsError(error instanceof Error ? error.message : String(error));
  }
  if (given !== undefined && (given.length < MIN_TOKEN_LENGTH || /[\s\u0000-\u001f\u007f]/.test(given))) {
    throw new SignInOptionsError(`the sign-in token (${options.tokenFile === undefined ? TOKEN_VARIABLE : `--token-file ${options.tokenFile}`}) must be one word of at least ${MIN_TOKEN_LENGTH} characters (e.g. \`openssl rand -hex 24\`)`);
  }
  const token = given ?? generateToken();
  const sessions = new SignedSessionCookies({ secret, basePath, secure });
  return { method: new TokenSignIn(token), context: { sessions, basePath }, token, generated: given === undefined };
}
