/**
 * Stateless session cookies (issue 31): `<payload>.<HMAC-SHA256>` where the payload holds the
 * user, a random session id and the expiry, so any instance holding the same secret accepts
 * any other's cookie and a restart signs no one out. Sign-out adds the session id to a list
 * kept until the cookie's own expiry: a copy replayed later is refused by this instance.
 * Across instances the list is not shared (they share nothing but the store): a copy replayed
 * on another instance stays valid until its expiry, so keep `maxAgeSeconds` short.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { readSecret } from "./secret-source.js";
import type { SessionCookies, SignInKind, ViewerUser } from "./sign-in-method.js";

/** The least secret length in bytes: shorter keys make forging by brute force thinkable. */
export const MIN_SECRET_BYTES = 32;
export const DEFAULT_MAX_AGE_SECONDS = 8 * 3600;
const COOKIE_NAME = "wink_session";
/** Signed-out ids kept at most: beyond it the oldest go (their cookies expire soon anyway). */
const MAX_SIGNED_OUT = 100_000;

export class SessionSecretError extends Error {}

/**
 * The secret from `--session-secret-file` or `WINK_SESSION_SECRET` (never argv, where `ps`
 * shows it); with neither and `generate`, a random one that lives only in this process.
 */
export function readSessionSecret(file: string | undefined, env: NodeJS.ProcessEnv, generate: boolean): { secret: Buffer; generated: boolean } {
  let text: string | undefined;
  try {
    text = readSecret("--session-secret-file", file, env, "WINK_SESSION_SECRET");
  } catch (error) {
    throw new SessionSecretError(error instanceof Error ? error.message : String(error));
  }
  if (text === undefined) {
    if (generate) return { secret: randomBytes(MIN_SECRET_BYTES), generated: true };
    throw new SessionSecretError("a session secret is needed: --session-secret-file FILE or the WINK_SESSION_SECRET environment variable (at least 32 bytes, e.g. `openssl rand -hex 32`)");
  }
  if (Buffer.byteLength(text) < MIN_SECRET_BYTES) throw new SessionSecretError(`the session secret is too short: at least ${MIN_SECRET_BYTES} bytes, got ${Buffer.byteLength(text)}`);
  return { secret: Buffer.from(text), generated: false };
}

export interface SessionCookieOptions {
  secret: Buffer;
  /** The public URL's path with a trailing slash: the cookie's Path and the root of every return-to. */
  basePath: string;
  /** Secure cookies (the public URL is https). */
  secure: boolean;
  maxAgeSeconds?: number;
  now?: () => number;
}

interface Payload {
  n: string;
  e: string | null;
  v: SignInKind;
  /** Session id. */
  s: string;
  /** Expiry, ms since the epoch. */
  x: number;
}

const KINDS: readonly SignInKind[] = ["token", "proxy", "oidc"];

/** The value of one cookie in a Cookie header, else undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class SignedSessionCookies implements SessionCookies {
  private readonly signedOut = new Map<string, number>();
  private readonly maxAgeSeconds: number;
  private readonly now: () => number;

  constructor(private readonly options: SessionCookieOptions) {
    if (!options.basePath.startsWith("/") || !options.basePath.endsWith("/")) throw new Error(`basePath must start and end with /, got ${options.basePath}`);
    this.maxAgeSeconds = options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS;
    this.now = options.now ?? Date.now;
  }

  private sign(data: string): string {
    return createHmac("sha256", this.options.secret).update(data).digest("base64url");
  }

  private attributes(maxAge: number): string {
    return `Path=${this.options.basePath}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${this.options.secure ? "; Secure" : ""}`;
  }

  /** The cookie's value for `user` (exported for tests that forge and replay). */
  issue(user: ViewerUser): string {
    const payload: Payload = { n: user.name, e: user.email, v: user.via, s: randomBytes(16).toString("base64url"), x: this.now() + this.maxAgeSeconds * 1000 };
    const data = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${data}.${this.sign(data)}`;
  }

  signIn(reply: FastifyReply, user: ViewerUser): void {
    reply.header("set-cookie", `${COOKIE_NAME}=${this.issue(user)}; ${this.attributes(this.maxAgeSeconds)}`);
  }

  private payloadOf(request: FastifyRequest): Payload | null {
    const value = cookieValue(request.headers.cookie, COOKIE_NAME);
    if (value === undefined || value.length > 4096) return null;
    const dot = value.indexOf(".");
    if (dot <= 0) return null;
    const data = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.sign(data));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(data, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    if (typeof payload !== "object" || payload === null) return null;
    const p = payload as Partial<Payload>;
    if (typeof p.n !== "string" || (p.e !== null && typeof p.e !== "string") || !KINDS.includes(p.v as SignInKind) || typeof p.s !== "string" || typeof p.x !== "number") return null;
    if (p.x <= this.now() || this.signedOut.has(p.s)) return null;
    return p as Payload;
  }

  read(request: FastifyRequest): ViewerUser | null {
    const p = this.payloadOf(request);
    return p === null ? null : { name: p.n, email: p.e, via: p.v };
  }

  signOut(request: FastifyRequest, reply: FastifyReply): void {
    const p = this.payloadOf(request);
    if (p !== null) {
      this.forgetExpired();
      if (this.signedOut.size >= MAX_SIGNED_OUT) {
        const oldest = this.signedOut.keys().next().value;
        if (oldest !== undefined) this.signedOut.delete(oldest);
      }
      this.signedOut.set(p.s, p.x);
    }
    reply.header("set-cookie", `${COOKIE_NAME}=; ${this.attributes(0)}`);
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, expiry] of this.signedOut) if (expiry <= now) this.signedOut.delete(id);
  }

  safeReturnTo(value: unknown): string {
    const base = this.options.basePath;
    if (typeof value !== "string" || value.length > 4096) return base;
    // Backslashes and control characters: browsers read `/\evil` as `//evil`.
    if (/[\\\u0000-\u001f\u007f]/.test(value)) return base;
    let decoded: string;
    try {
      // Decoded twice so `%2F%2F` and `%252F%252F` are judged like `//`.
      decoded = decodeURIComponent(decodeURIComponent(value));
    } catch {
      return base;
    }
    if (/[\\\u0000-\u001f\u007f]/.test(decoded) || decoded.startsWith("//") || value.startsWith("//")) return base;
    if (!value.startsWith(base) || !decoded.startsWith(base)) return base;
    // Only a path: resolved against a dummy origin, it must stay on it and under the base.
    const resolved = new URL(value, "http://viewer.invalid");
    if (resolved.origin !== "http://viewer.invalid" || !resolved.pathname.startsWith(base)) return base;
    return `${resolved.pathname}${resolved.search}${resolved.hash}`;
  }
}
