/**
 * --auth oidc against a real OpenID Provider (oidc-provider, on loopback): the full code flow
 * driven by fetch with a cookie jar. The session cookies are a test fake (an unsigned cookie
 * holding the user) until auth/session-cookie.ts lands: what is tested here is the flow.
 */
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OidcSignIn } from "./oidc.js";
import { startTestProvider } from "./oidc-provider.test-support.js";
import type { TestProvider } from "./oidc-provider.test-support.js";
import type { SessionCookies, ViewerUser } from "./sign-in-method.js";

/** A fake of the real session cookies: the user in a plain cookie, return-to kept to local paths. */
const fakeSessions: SessionCookies = {
  signIn: (reply, user) => void reply.header("set-cookie", `fake_session=${encodeURIComponent(JSON.stringify(user))}; Path=/; HttpOnly`),
  read: (request) => {
    const found = /(?:^|;\s*)fake_session=([^;]+)/.exec(request.headers.cookie ?? "");
    return found?.[1] === undefined ? null : (JSON.parse(decodeURIComponent(found[1])) as ViewerUser);
  },
  signOut: (_request, reply) => void reply.header("set-cookie", "fake_session=; Path=/; Max-Age=0"),
  safeReturnTo: (value) => (typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.includes("\\") ? value : "/"),
};

/** fetch that follows redirects by hand, keeping cookies per host:port, and returns the last answer. */
class Browser {
  readonly jar = new Map<string, Map<string, string>>();
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    let target = new URL(url);
    let options = init;
    for (let hop = 0; hop < 20; hop++) {
      const cookies = this.jar.get(target.host) ?? new Map<string, string>();
      const response = await fetch(target, { ...options, redirect: "manual", headers: { ...(options.headers as Record<string, string> | undefined), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const at = pair.indexOf("=");
        if (/max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) cookies.delete(pair.slice(0, at));
        else cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      this.jar.set(target.host, cookies);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || location === null) return response;
      target = new URL(location, target);
      options = {};
    }
    throw new Error("too many redirects");
  }
  /** Stops before the relying party's callback, returning its URL. */
  async until(url: string, stop: string, init: RequestInit = {}): Promise<string> {
    let target = new URL(url);
    let options = init;
    for (let hop = 0; hop < 20; hop++) {
      if (target.href.startsWith(stop)) return target.href;
      const cookies = this.jar.get(target.host) ?? new Map<string, string>();
      const response = await fetch(target, { ...options, redirect: "manual", headers: { ...(options.headers as Record<string, string> | undefined), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const at = pair.indexOf("=");
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      this.jar.set(target.host, cookies);
      const location = response.headers.get("location");
      if (location === null) throw new Error(`stopped at ${target.href} with ${response.status}`);
      target = new URL(location, target);
      options = {};
    }
    throw new Error("too many redirects");
  }
}

const form = (user: string, action = "login"): RequestInit => ({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ user, action }).toString() });

let idp: TestProvider;
let app: FastifyInstance;
let rp: string;

beforeAll(async () => {
  idp = await startTestProvider({ alice: { email: "alice@example.com", groups: [] }, bob: { email: "bob@other.test", groups: ["wink-users"] }, mallory: { email: "mallory@evil.test", groups: ["guests"] } });
  app = Fastify();
  // The provider registers the RP's redirect URI, so the RP's port is found first.
  const probe = Fastify();
  await probe.listen({ host: "127.0.0.1", port: 0 });
  const port = (probe.server.address() as AddressInfo).port;
  await probe.close();
  rp = `http://127.0.0.1:${port}`;
  const method = new OidcSignIn({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, allowedDomains: ["example.com"], allowedGroups: ["wink-users"], redirectUri: new URL(`${rp}/auth/oidc/callback`), secret: Buffer.from("a test secret of some thirty-two bytes") });
  const context = { sessions: fakeSessions, basePath: "/" };
  await method.register(app, context);
  app.get("/*", async (request, reply) => {
    const user = fakeSessions.read(request);
    if (user === null) return reply.redirect(method.signInLocation(fakeSessions.safeReturnTo(request.url), context), 302);
    return { user, url: request.url };
  });
  idp.start(new URL(`${rp}/auth/oidc/callback`));
  await app.listen({ host: "127.0.0.1", port });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await idp?.close();
});

async function signIn(browser: Browser, deepLink: string, user: string): Promise<Response> {
  const interaction = await browser.until(`${rp}${deepLink}`, `${idp.issuer.origin}/interaction/`);
  return browser.go(interaction, form(user));
}

describe("--auth oidc with a real OpenID Provider", () => {
  it("signs a user of an allowed domain in and returns to the deep link", async () => {
    const browser = new Browser();
    const answer = await signIn(browser, "/runs/a.jsonl?view=timeline", "alice");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ user: { name: "alice@example.com", email: "alice@example.com", via: "oidc" }, url: "/runs/a.jsonl?view=timeline" });
  });

  it("lets in a user of an allowed group whatever the domain", async () => {
    const answer = await signIn(new Browser(), "/", "bob");
    expect(((await answer.json()) as { user: ViewerUser }).user.email).toBe("bob@other.test");
  });

  it("answers a user outside the domains and groups with a 403 page, no session", async () => {
    const browser = new Browser();
    const answer = await signIn(browser, "/", "mallory");
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("mallory@evil.test");
    expect(browser.jar.get(new URL(rp).host)?.has("fake_session")).toBe(false);
  });

  it("answers a cancelled sign-in with a page, not a 500", async () => {
    const browser = new Browser();
    const interaction = await browser.until(`${rp}/`, `${idp.issuer.origin}/interaction/`);
    const answer = await browser.go(interaction, form("", "cancel"));
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("cancelled");
  });

  it("refuses a callback whose state is not the browser's", async () => {
    const browser = new Browser();
    const interaction = await browser.until(`${rp}/`, `${idp.issuer.origin}/interaction/`);
    const callback = await browser.until(interaction, `${rp}/auth/oidc/callback`, form("alice"));
    const forged = new URL(callback);
    forged.searchParams.set("state", "forged");
    const answer = await browser.go(forged.href);
    expect(answer.status).toBe(400);
    // Another browser, without the pending cookie, is refused too.
    expect((await new Browser().go(callback)).status).toBe(400);
  });

  it("refuses a code used twice (the provider's invalid_grant) with a page", async () => {
    const browser = new Browser();
    const interaction = await browser.until(`${rp}/`, `${idp.issuer.origin}/interaction/`);
    const callback = await browser.until(interaction, `${rp}/auth/oidc/callback`, form("alice"));
    const pending = new Map(browser.jar.get(new URL(rp).host));
    expect((await browser.go(callback)).status).toBe(200);
    browser.jar.set(new URL(rp).host, pending);
    const replay = await browser.go(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("invalid_grant");
  });

  it("never returns to another site (//evil)", async () => {
    const browser = new Browser();
    const interaction = await browser.until(`${rp}/auth/oidc/login?return_to=${encodeURIComponent("//evil.test/x")}`, `${idp.issuer.origin}/interaction/`);
    const answer = await browser.go(interaction, form("alice"));
    expect(((await answer.json()) as { url: string }).url).toBe("/");
  });
});
