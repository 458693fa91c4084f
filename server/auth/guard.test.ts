import type { FastifyRequest } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURES, cleanUp, testApp } from "../server.test-support.js";
import type { WinkApp } from "../app.js";
import { RateLimiter } from "./guard.js";
import { TrustedProxies } from "./proxy-sign-in.js";
import { SignedSessionCookies } from "./session-cookie.js";
import type { SignInContext, SignInMethod, ViewerUser } from "./sign-in-method.js";

const USER: ViewerUser = { name: "ada", email: null, via: "token" };
/** A test-only method: signs in on GET /auth/token/test (the real token method is server/auth/token.ts's job). */
const testMethod: SignInMethod = {
  kind: "token",
  async register(app, context) {
    app.get("/auth/token/test", async (_request, reply) => {
      context.sessions.signIn(reply, USER);
      return { ok: true };
    });
  },
  fromRequest: (_request: FastifyRequest) => null,
  signInLocation: (returnTo) => `/auth/token/sign-in?return_to=${encodeURIComponent(returnTo)}`,
};

let served: WinkApp | null = null;
afterEach(async () => {
  await served?.app.close();
  served = null;
  await cleanUp();
});

async function start(trustedProxies?: string): Promise<{ url: string }> {
  const sessions = new SignedSessionCookies({ secret: Buffer.from("x".repeat(32)), basePath: "/", secure: false });
  const context: SignInContext = { sessions, basePath: "/" };
  const auth = { method: testMethod, context, trustedProxies: trustedProxies === undefined ? undefined : TrustedProxies.parse(trustedProxies) };
  served = await testApp({ path: FIXTURES, auth, indexInBackground: false, watch: false });
  await served.app.listen({ host: "127.0.0.1", port: 0 });
  const address = served.app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return { url: `http://127.0.0.1:${address.port}` };
}

describe("sign-in guard", () => {
  it("answers the API 401 with WD_ERR_SIGN_IN, and pages 302 to sign-in with a safe return_to", async () => {
    const { url } = await start();
    const api = await fetch(`${url}/api/meta`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    const events = await fetch(`${url}/api/events`);
    expect(events.status).toBe(401);
    const page = await fetch(`${url}/runs/x?line=2`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe(`/auth/token/sign-in?return_to=${encodeURIComponent("/runs/x?line=2")}`);
  });

  it("lets a signed-in request through, and refuses the cookie replayed after sign-out", async () => {
    const { url } = await start();
    const cookie = (await fetch(`${url}/auth/token/test`)).headers.get("set-cookie")?.split(";")[0] ?? "";
    expect((await fetch(`${url}/api/meta`, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${url}/auth/sign-out`, { method: "POST", headers: { cookie }, redirect: "manual" });
    expect(out.status).toBe(303);
    expect((await fetch(`${url}/api/meta`, { headers: { cookie } })).status).toBe(401);
  });

  it("says who is signed in at /auth/user, uncounted by the rate limit, and sign-out lands on a page of its own", async () => {
    const { url } = await start();
    const cookie = (await fetch(`${url}/auth/token/test`)).headers.get("set-cookie")?.split(";")[0] ?? "";
    // More than the sign-in limit (30 a minute): a page load each must not lock anyone out.
    for (let i = 0; i < 35; i++) {
      const answer = await fetch(`${url}/auth/user`, { headers: { cookie } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ user: USER });
    }
    expect(await (await fetch(`${url}/auth/user`)).json()).toEqual({ user: null });
    const out = await fetch(`${url}/auth/sign-out`, { method: "POST", headers: { cookie }, redirect: "manual" });
    expect(out.headers.get("location")).toBe("/auth/signed-out");
    const page = await fetch(`${url}/auth/signed-out`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("You are signed out");
    expect(await (await fetch(`${url}/auth/user`, { headers: { cookie } })).json()).toEqual({ user: null });
  });

  it("refuses a cross-site POST even when signed in", async () => {
    const { url } = await start();
    const cookie = (await fetch(`${url}/auth/token/test`)).headers.get("set-cookie")?.split(";")[0] ?? "";
    const response = await fetch(`${url}/auth/sign-out`, { method: "POST", headers: { cookie, "sec-fetch-site": "cross-site" } });
    expect(response.status).toBe(403);
    expect((await fetch(`${url}/api/meta`, { headers: { cookie } })).status).toBe(200);
  });
});

describe("sign-in rate limit", () => {
  /** The statuses of `count` sign-in attempts claiming to be forwarded for `client`. */
  async function attempts(url: string, client: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await fetch(`${url}/auth/token/test`, { headers: { "x-forwarded-for": client } })).status);
    return statuses;
  }

  it("behind a trusted proxy, counts each forwarded client on its own", async () => {
    const { url } = await start("127.0.0.1");
    expect(await attempts(url, "203.0.113.1", 31)).toEqual([...Array<number>(30).fill(200), 429]);
    // Another user behind the same proxy still signs in.
    expect(await attempts(url, "203.0.113.2", 1)).toEqual([200]);
  });

  it("from a peer that is no proxy, X-Forwarded-For does not buy more attempts", async () => {
    const { url } = await start("10.9.9.9");
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push(...(await attempts(url, `203.0.113.${i}`, 1)));
    expect(statuses).toEqual([...Array<number>(30).fill(200), 429]);
  });

  it("refuses past the limit per address and keeps at most maxAddresses windows", () => {
    const limiter = new RateLimiter(3, 60_000, 100);
    expect([1, 2, 3, 4].map(() => limiter.take("10.0.0.1"))).toEqual([true, true, true, false]);
    for (let i = 0; i < 10_000; i++) limiter.take(`10.1.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });
});
