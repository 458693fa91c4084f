import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { SessionSecretError, SignedSessionCookies, readSessionSecret } from "./session-cookie.js";
import { decorateViewerUser } from "./viewer-user.js";

const SECRET = Buffer.from("0123456789abcdef0123456789abcdef");
const USER = { name: "ada@example.com", email: "ada@example.com", via: "oidc" } as const;
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A real server on loopback with sign-in, whoami and sign-out routes over the cookies. */
async function serve(sessions: SignedSessionCookies): Promise<string> {
  const app = Fastify();
  decorateViewerUser(app);
  app.post("/wink/in", async (_request, reply) => {
    sessions.signIn(reply, USER);
    return { ok: true };
  });
  app.get("/wink/me", async (request) => ({ user: sessions.read(request) }));
  app.post("/wink/out", async (request, reply) => {
    sessions.signOut(request, reply);
    return { ok: true };
  });
  apps.push(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return `http://127.0.0.1:${address.port}`;
}

async function me(url: string, cookie: string | undefined): Promise<unknown> {
  const response = await fetch(`${url}/wink/me`, { headers: cookie === undefined ? {} : { cookie } });
  return ((await response.json()) as { user: unknown }).user;
}

async function signIn(url: string): Promise<{ cookie: string; header: string }> {
  const response = await fetch(`${url}/wink/in`, { method: "POST" });
  const header = response.headers.get("set-cookie") ?? "";
  return { cookie: header.split(";")[0] ?? "", header };
}

describe("signed session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Secure for https, scoped to the base path, and read back", async () => {
    const url = await serve(new SignedSessionCookies({ secret: SECRET, basePath: "/wink/", secure: true }));
    const { cookie, header } = await signIn(url);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Lax/);
    expect(header).toMatch(/Secure/);
    expect(header).toMatch(/Path=\/wink\//);
    expect(await me(url, cookie)).toEqual(USER);
  });

  it("refuses no cookie, a forged one, and one signed with another secret", async () => {
    const url = await serve(new SignedSessionCookies({ secret: SECRET, basePath: "/wink/", secure: false }));
    const { cookie } = await signIn(url);
    expect(await me(url, undefined)).toBeNull();
    const [data, signature] = cookie.slice("wink_session=".length).split(".");
    const forgedData = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(data ?? "", "base64url").toString()), n: "mallory" })).toString("base64url");
    expect(await me(url, `wink_session=${forgedData}.${signature ?? ""}`)).toBeNull();
    const other = new SignedSessionCookies({ secret: Buffer.from("another secret that is long enough!!"), basePath: "/wink/", secure: false });
    expect(await me(url, `wink_session=${other.issue(USER)}`)).toBeNull();
  });

  it("accepts another instance's cookie when the secret is the same", async () => {
    const first = new SignedSessionCookies({ secret: SECRET, basePath: "/", secure: false });
    const url = await serve(new SignedSessionCookies({ secret: SECRET, basePath: "/", secure: false }));
    expect(await me(url, `wink_session=${first.issue(USER)}`)).toEqual(USER);
  });

  it("refuses an expired cookie", async () => {
    let now = 1_000_000;
    const url = await serve(new SignedSessionCookies({ secret: SECRET, basePath: "/wink/", secure: false, maxAgeSeconds: 60, now: () => now }));
    const { cookie } = await signIn(url);
    expect(await me(url, cookie)).toEqual(USER);
    now += 61_000;
    expect(await me(url, cookie)).toBeNull();
  });

  it("refuses a copy replayed after sign-out", async () => {
    const url = await serve(new SignedSessionCookies({ secret: SECRET, basePath: "/wink/", secure: false }));
    const { cookie } = await signIn(url);
    const out = await fetch(`${url}/wink/out`, { method: "POST", headers: { cookie } });
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect(await me(url, cookie)).toBeNull();
  });
});

describe("safeReturnTo", () => {
  const sessions = new SignedSessionCookies({ secret: SECRET, basePath: "/wink/", secure: false });
  it.each(["//evil", "https://evil", "/\\evil", "/wink/\\evil", "%2F%2Fevil", "/%2F%2Fevil", "/%252F%252Fevil", "/wink/a\nb", "/other/", "/wink/../admin", 42, null, "javascript:alert(1)"])("refuses %s", (value) => {
    expect(sessions.safeReturnTo(value)).toBe("/wink/");
  });
  it("keeps a deep link under the base path", () => {
    expect(sessions.safeReturnTo("/wink/runs/a.jsonl?line=3#t")).toBe("/wink/runs/a.jsonl?line=3#t");
  });
});

describe("readSessionSecret", () => {
  it("reads a file, refuses a short or missing secret, and generates one only when allowed", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "wink-secret-"));
    const file = path.join(dir, "secret");
    await writeFile(file, `${"x".repeat(40)}\n`);
    expect(readSessionSecret(file, {}, false).secret.toString()).toBe("x".repeat(40));
    await writeFile(file, "short");
    expect(() => readSessionSecret(file, {}, false)).toThrow(/too short/);
    expect(() => readSessionSecret(undefined, {}, false)).toThrow(SessionSecretError);
    expect(readSessionSecret(undefined, { WINK_SESSION_SECRET: "y".repeat(32) }, false).generated).toBe(false);
    expect(readSessionSecret(undefined, {}, true).generated).toBe(true);
  });
});
