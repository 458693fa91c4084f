/**
 * Who is signed in, in the served mode (`--auth`): the server marks the page with
 * `<meta name="wink-sign-in">` (server/plugins/spa-fallback.ts) and answers `GET auth/user`
 * (server/auth/guard.ts). The local default has neither, and nothing is asked.
 */
import { pageBasePath } from "./page-base.js";

export interface SignedInUser {
  readonly name: string;
  readonly email: string | null;
  /** False when the proxy in front signs users in and out (`--auth proxy`): this viewer holds no session to end. */
  readonly canSignOut: boolean;
}

/** True when the page was served with sign-in on. */
export function signInIsOn(): boolean {
  return typeof document !== "undefined" && document.querySelector('meta[name="wink-sign-in"]') !== null;
}

/** The signed-in user; null in the local default, signed out, or when the server cannot say. */
export async function fetchSignedInUser(): Promise<SignedInUser | null> {
  if (!signInIsOn()) return null;
  const response = await fetch(`${pageBasePath()}/auth/user`, { headers: { accept: "application/json" } });
  if (!response.ok) return null;
  const body = (await response.json()) as { user?: { name?: unknown; email?: unknown; via?: unknown } | null };
  const user = body.user;
  if (typeof user !== "object" || user === null || typeof user.name !== "string") return null;
  return { name: user.name, email: typeof user.email === "string" ? user.email : null, canSignOut: user.via !== "proxy" };
}

/**
 * Signs out, then leaves for the server's signed-out page. A `fetch`, not a `<form>`: the
 * page's CSP says `form-action 'none'`, and POST bodies must be JSON (an empty one here).
 */
export async function signOut(): Promise<void> {
  const base = pageBasePath();
  await fetch(`${base}/auth/sign-out`, { method: "POST", redirect: "manual" });
  window.location.assign(`${base}/auth/signed-out`);
}
