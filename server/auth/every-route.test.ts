// Every route the app registers, enumerated with Fastify's onRoute hook (the viewer's route
// table, the built web app's files, the operator's probes, the sign-in routes), asked over
// loopback signed out and signed in. Signed out: the API answers 401 JSON with a code, pages
// go to sign-in, /healthz and /readyz answer a status word only, /metrics wants its own
// token, sign-in routes answer. Signed in: nothing is 401 nor sent to sign-in. The set of
// routes checked must be the set registered, so a route added later is checked too, and
// one that escaped the guard would fail here.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import type { WinkApp } from "../app.js";
import { packageRoot } from "../package-root.js";
import { FIXTURES, cleanUp, testApp } from "../server.test-support.js";
import { SignedSessionCookies } from "./session-cookie.js";
import { TokenSignIn, generateToken } from "./token-sign-in.js";

const METRICS_TOKEN = "m".repeat(40);
const TOKEN = generateToken();

let served: WinkApp;
let base: string;
/** `METHOD url` of every route registered, HEAD routes included. */
const registered = new Set<string>();

beforeAll(async () => {
  const sessions = new SignedSessionCookies({ secret: Buffer.from("e".repeat(40)), basePath: "/", secure: false });
  served = await testApp({
    path: FIXTURES,
    webDir: path.join(packageRoot(), "dist", "web"),
    metricsToken: METRICS_TOKEN,
    auth: { method: new TokenSignIn(TOKEN), context: { sessions, basePath: "/" } },
    onRoute: ({ method, url }) => {
      for (const one of typeof method === "string" ? [method] : method) registered.add(`${one} ${url}`);
    },
  });
  await served.app.listen({ host: "127.0.0.1", port: 0 });
  const address = served.app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  base = `http://127.0.0.1:${address.port}`;
}, 60_000);

afterAll(async () => {
  await cleanUp();
});

type Kind = "api" | "probe" | "metrics" | "sign-in" | "page";

function kindOf(url: string): Kind {
  if (url.startsWith("/api/")) return "api";
  if (url === "/healthz" || url === "/readyz") return "probe";
  if (url === "/metrics") return "metrics";
  if (url.startsWith("/auth/")) return "sign-in";
  return "page";
}

/** A path that the route's pattern matches: each `:name` and the final `*` filled in. */
function concrete(url: string): string {
  return url
    .split("/")
    .map((segment) => (segment.startsWith(":") || segment === "*" ? "x" : segment))
    .join("/");
}

interface Answer {
  status: number;
  location: string | null;
  type: string;
  body: string;
}

/** One request; an event stream is read only to its headers. */
async function ask(method: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`${method} ${url}: no answer in 20 s`)), 20_000);
  const response = await fetch(`${base}${url}`, {
    method,
    redirect: "manual",
    signal: abort.signal,
    headers: method === "POST" ? { "content-type": "application/json", ...headers } : headers,
    ...(method === "POST" ? { body: "{}" } : {}),
  });
  const type = response.headers.get("content-type") ?? "";
  const body = type.startsWith("text/event-stream") ? "" : await response.text();
  clearTimeout(timer);
  abort.abort();
  return { status: response.status, location: response.headers.get("location"), type, body };
}

/** The `code` of a JSON error answer, else null. */
function codeOf(answer: Answer): unknown {
  try {
    return (JSON.parse(answer.body) as { code?: unknown }).code ?? null;
  } catch {
    return null;
  }
}

/** Routes by `METHOD url`, sign-out last: asked signed in, it ends the session. */
function routes(): [string, string][] {
  return [...registered].map((route) => route.split(" ", 2) as [string, string]).sort(([, a], [, b]) => Number(a === "/auth/sign-out") - Number(b === "/auth/sign-out"));
}

describe("every registered route behind the sign-in guard", () => {
  it("registers a route set that is not trivial", () => {
    const urls = new Set(routes().map(([, url]) => url));
    for (const entry of Object.values(VIEWER_ROUTES)) expect(registered.has(`${entry.method} ${entry.url}`), `${entry.method} ${entry.url}`).toBe(true);
    for (const url of ["/", "/index.html", "/healthz", "/readyz", "/metrics", "/auth/sign-out", "/auth/token/sign-in"]) expect(urls.has(url), url).toBe(true);
    // The built web app's files are routes too.
    expect([...urls].filter((url) => url.startsWith("/assets/")).length).toBeGreaterThan(5);
    expect(registered.size).toBeGreaterThan(Object.keys(VIEWER_ROUTES).length + 20);
  });

  it("answers each one signed out as its kind must", async () => {
    const checked = new Set<string>();
    const failures: string[] = [];
    for (const [method, url] of routes()) {
      const target = concrete(url);
      const kind = kindOf(url);
      const html = await ask(method, target, { accept: "text/html" });
      const plain = await ask(method, target, { accept: "application/json" });
      const fail = (why: string): void => void failures.push(`${method} ${url} (${kind}): ${why}; got ${html.status} ${html.location ?? ""} / ${plain.status}`);
      if (kind === "api" || (kind === "page" && method !== "GET")) {
        // An API route and anything not a GET answer 401 JSON with a code, whatever is asked for.
        for (const answer of [html, plain]) {
          if (answer.status !== 401) fail("not 401");
          // A HEAD answer has no body to read the code from.
          else if (method !== "HEAD" && codeOf(answer) !== "WD_ERR_SIGN_IN") fail("401 without the sign-in code");
        }
      } else if (kind === "page") {
        if (html.status !== 302 || !(html.location ?? "").startsWith("/auth/token/sign-in?return_to=")) fail("a page navigation not sent to sign-in");
        if (plain.status !== 401 || codeOf(plain) !== "WD_ERR_SIGN_IN") fail("a page's bytes given without sign-in");
      } else if (kind === "probe") {
        for (const answer of [html, plain]) {
          if (answer.status !== 200 && answer.status !== 503) fail("a probe not answered");
          if (method === "GET" && Object.keys(JSON.parse(answer.body) as object).join() !== "status") fail(`a probe revealing more than its status: ${answer.body}`);
        }
      } else if (kind === "metrics") {
        if (plain.status !== 401 || html.status !== 401) fail("metrics without their token");
        const scraped = await ask(method, target, { authorization: `Bearer ${METRICS_TOKEN}` });
        if (scraped.status !== 200) fail(`metrics with their token: ${scraped.status}`);
      } else if (html.status === 401 || plain.status === 401 || (html.location ?? "").startsWith("/auth/token/sign-in")) {
        fail("a sign-in route out of reach signed out");
      }
      checked.add(`${method} ${url}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toEqual(registered);
  }, 120_000);

  it("answers each one signed in: none is 401 or sent to sign-in", async () => {
    const exchange = await fetch(`${base}/?token=${TOKEN}`, { redirect: "manual" });
    expect(exchange.status).toBe(302);
    const cookie = (exchange.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(cookie).toMatch(/^wink_session=./);
    const checked = new Set<string>();
    const failures: string[] = [];
    for (const [method, url] of routes()) {
      const answer = await ask(method, concrete(url), { accept: url.startsWith("/api/") ? "application/json" : "text/html", cookie });
      if (answer.status === 401 && url !== "/metrics") failures.push(`${method} ${url}: 401 signed in`);
      if (url === "/metrics" && answer.status !== 401) failures.push(`${method} ${url}: a viewer's cookie opened the metrics (${answer.status})`);
      if ((answer.location ?? "").startsWith("/auth/token/sign-in")) failures.push(`${method} ${url}: sent to sign-in while signed in`);
      checked.add(`${method} ${url}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toEqual(registered);
  }, 120_000);

  it("guards paths no route has too: deep links go to sign-in, unknown API paths are 401", async () => {
    const deep = await ask("GET", "/runs/some-run?line=3", { accept: "text/html" });
    expect(deep.status).toBe(302);
    expect(deep.location).toBe(`/auth/token/sign-in?return_to=${encodeURIComponent("/runs/some-run?line=3")}`);
    const api = await ask("GET", "/api/no-such-route");
    expect(api.status).toBe(401);
    expect(JSON.parse(api.body)).toMatchObject({ code: "WD_ERR_SIGN_IN" });
  });
});
