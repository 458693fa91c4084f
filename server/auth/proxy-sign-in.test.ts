// --auth proxy's trust decision: the user header is believed only on a connection whose TCP
// peer is a trusted proxy, over real loopback sockets bound to chosen source addresses
// (127.0.0.2 is the "proxy", 127.0.0.1 anyone else on the machine), including a dual-stack
// listener, where IPv4 peers show as ::ffff:127.0.0.1.
import http from "node:http";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { WinkApp } from "../app.js";
import { FIXTURES, cleanUp, testApp } from "../server.test-support.js";
import { ProxyOptionsError, TrustedProxies, proxyOptionsFromCli, proxySignIn } from "./proxy-sign-in.js";
import type { ProxySignInOptions } from "./proxy-sign-in.js";

const RUN = "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One GET over a fresh connection from `from` (a loopback source address). */
function get(port: number, path: string, from: string, headers: http.OutgoingHttpHeaders = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path, localAddress: from, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on("error", reject);
  });
}

let served: WinkApp | null = null;
afterEach(async () => {
  await served?.app.close();
  served = null;
  await cleanUp();
});

async function start(options: ProxySignInOptions, listenOn = "127.0.0.1", logStream?: NodeJS.WritableStream): Promise<number> {
  served = await testApp({ path: FIXTURES, auth: proxySignIn(options, "/"), bindHost: listenOn, ...(logStream === undefined ? {} : { logFormat: "json" as const, logStream }) });
  await served.app.listen({ host: listenOn, port: 0 });
  const address = served.app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return address.port;
}

const proxyOnly = (trusted: string): ProxySignInOptions => ({ userHeader: "x-forwarded-user", trusted: TrustedProxies.parse(trusted) });

describe("TrustedProxies", () => {
  it("matches addresses and networks, IPv4 peers in IPv6 form included", () => {
    const trusted = TrustedProxies.parse("127.0.0.1, 10.0.0.0/8,fd00::/8,::1");
    for (const peer of ["127.0.0.1", "::ffff:127.0.0.1", "::ffff:7f00:1", "10.200.3.4", "::ffff:10.200.3.4", "fd12::5", "::1", "0:0:0:0:0:0:0:1"]) expect(trusted.trusts(peer), peer).toBe(true);
    for (const peer of ["127.0.0.2", "::ffff:127.0.0.2", "11.0.0.1", "::ffff:11.0.0.1", "fe80::1", "::2", "localhost", "", undefined]) expect(trusted.trusts(peer), String(peer)).toBe(false);
  });

  it("refuses what is not an address or network, naming it", () => {
    for (const [text, named] of [
      ["10.0.0.0/33", "10.0.0.0/33"],
      ["fd00::/129", "fd00::/129"],
      ["10.0.0.0/", "10.0.0.0/"],
      ["10.0.0.0/8x", "10.0.0.0/8x"],
      ["127.0.0.1,proxy.example", "proxy.example"],
      ["300.1.1.1", "300.1.1.1"],
      [" , ", "at least one"],
    ] as const) {
      expect(() => TrustedProxies.parse(text), text).toThrow(ProxyOptionsError);
      expect(() => TrustedProxies.parse(text), text).toThrow(named);
    }
  });

  it("takes the client from X-Forwarded-For only behind a trusted proxy, read from the right", () => {
    const proxies = TrustedProxies.parse("127.0.0.1,10.0.0.0/8");
    // Not behind a proxy: the header is the client's to write, so it is ignored.
    expect(proxies.clientOf("192.0.2.7", "203.0.113.9")).toBe("192.0.2.7");
    expect(proxies.clientOf("127.0.0.1", undefined)).toBe("127.0.0.1");
    expect(proxies.clientOf("127.0.0.1", "203.0.113.9")).toBe("203.0.113.9");
    expect(proxies.clientOf("::ffff:127.0.0.1", "203.0.113.9")).toBe("203.0.113.9");
    // A client's own entries at the start are passed over: the proxy appended the address it saw.
    expect(proxies.clientOf("127.0.0.1", "1.1.1.1, 203.0.113.9")).toBe("203.0.113.9");
    // Through two proxies: the first untrusted hop from the right.
    expect(proxies.clientOf("127.0.0.1", "203.0.113.9, 10.1.2.3")).toBe("203.0.113.9");
    expect(proxies.clientOf("127.0.0.1", ["1.1.1.1", "203.0.113.9, 10.1.2.3"])).toBe("203.0.113.9");
    // A malformed hop ends the walk at the last address known.
    expect(proxies.clientOf("127.0.0.1", "203.0.113.9, bogus, 10.1.2.3")).toBe("10.1.2.3");
    expect(proxies.clientOf("127.0.0.1", "bogus")).toBe("127.0.0.1");
    expect(proxies.clientOf("127.0.0.1", "")).toBe("127.0.0.1");
  });

  it("checks the CLI options together: --trusted-proxy is required, header names are header names", () => {
    expect(() => proxyOptionsFromCli({ "user-header": "X-Forwarded-User" })).toThrow("--trusted-proxy");
    expect(() => proxyOptionsFromCli({ "trusted-proxy": "127.0.0.1" })).toThrow("--user-header");
    expect(() => proxyOptionsFromCli({ "user-header": "X Forwarded User", "trusted-proxy": "127.0.0.1" })).toThrow("--user-header must be an HTTP header name");
    expect(() => proxyOptionsFromCli({ "user-header": "X-User", "trusted-proxy": "127.0.0.1", "groups-header": "X-Groups" })).toThrow("--proxy-allowed-groups");
    expect(() => proxyOptionsFromCli({ "user-header": "X-User", "trusted-proxy": "127.0.0.1", "proxy-allowed-groups": "a" })).toThrow("--groups-header");
    expect(proxyOptionsFromCli({ "user-header": "X-Forwarded-User", "trusted-proxy": "127.0.0.1" }).userHeader).toBe("x-forwarded-user");
  });
});

describe("--auth proxy in the app, over loopback", () => {
  it("signs in the header from the trusted peer only; X-Forwarded-For changes nothing", async () => {
    const port = await start(proxyOnly("127.0.0.2"));
    const trusted = await get(port, "/api/meta", "127.0.0.2", { "x-forwarded-user": "ada@example.com" });
    expect(trusted.status).toBe(200);

    const cases: [string, http.OutgoingHttpHeaders][] = [
      // The forged header from an untrusted peer, with and without a claim to be forwarded by the proxy.
      ["127.0.0.1", { "x-forwarded-user": "ada@example.com" }],
      ["127.0.0.1", { "x-forwarded-user": "ada@example.com", "x-forwarded-for": "127.0.0.2", "x-real-ip": "127.0.0.2" }],
      // The trusted peer without a user, or with two.
      ["127.0.0.2", {}],
      ["127.0.0.2", { "x-forwarded-user": "" }],
      ["127.0.0.2", { "x-forwarded-user": ["ada@example.com", "mallory@example.com"] }],
    ];
    for (const [from, headers] of cases) {
      const answer = await get(port, "/api/meta", from, headers);
      expect(answer.status, `${from} ${JSON.stringify(headers)}`).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    }
    expect((await get(port, "/api/events", "127.0.0.1", { "x-forwarded-user": "ada" })).status).toBe(401);
  });

  it("sends a signed-out page to a page that says sign-in is at the proxy, which does not redirect again", async () => {
    const port = await start(proxyOnly("127.0.0.2"));
    const navigation = await get(port, `/?file=${RUN}`, "127.0.0.1", { accept: "text/html", "x-forwarded-user": "ada" });
    expect(navigation.status).toBe(302);
    const location = new URL(navigation.headers.location ?? "", "http://x");
    expect(location.pathname).toBe("/auth/proxy/sign-in");
    expect(location.searchParams.get("return_to")).toBe(`/?file=${RUN}`);

    const signIn = await get(port, `${location.pathname}${location.search}`, "127.0.0.1", { accept: "text/html", "x-forwarded-user": "ada" });
    expect(signIn.status).toBe(401);
    expect(signIn.headers.location).toBeUndefined();
    expect(signIn.headers["content-type"]).toMatch(/^text\/html/);
    expect(signIn.body).toContain("Sign-in happens at the proxy");

    const noUser = await get(port, `${location.pathname}${location.search}`, "127.0.0.2", { accept: "text/html" });
    expect(noUser.status).toBe(401);
    expect(noUser.body).toContain("came through it without saying who you are");

    // Through the proxy (signed in there meanwhile), the same page sends the user on to the view.
    const through = await get(port, `${location.pathname}${location.search}`, "127.0.0.2", { accept: "text/html", "x-forwarded-user": "ada" });
    expect(through.status).toBe(302);
    expect(through.headers.location).toBe(`/?file=${RUN}`);
  });

  it("logs the proxy's user as the request's user", async () => {
    const stream = new PassThrough();
    let written = "";
    stream.on("data", (chunk: Buffer) => (written += chunk.toString()));
    const port = await start(proxyOnly("127.0.0.2"), "127.0.0.1", stream);
    expect((await get(port, `/api/meta?file=${RUN}`, "127.0.0.2", { "x-forwarded-user": "ada@example.com" })).status).toBe(200);
    for (let attempt = 0; attempt < 3; attempt++) expect((await get(port, `/api/meta?file=${RUN}`, "127.0.0.1", { "x-forwarded-user": "mallory" })).status).toBe(401);
    await served?.app.close();
    const lines = written
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "request");
    expect(lines).toEqual([expect.objectContaining({ route: "/api/meta", status: 200, user: "ada@example.com", file: RUN }), ...Array.from({ length: 3 }, () => expect.objectContaining({ status: 401, user: null }))]);
    const warnings = written.split("\n").filter((line) => line.includes("not a --trusted-proxy"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? "{}")).toMatchObject({ level: 40, peer: "127.0.0.1" });
    expect(warnings[0]).not.toContain("mallory");
  });

  it("on a dual-stack listener, trusts ::ffff:127.0.0.1 for 127.0.0.1 and nothing else", async () => {
    const port = await start(proxyOnly("127.0.0.1"), "::");
    const mapped = await get(port, "/api/meta", "127.0.0.1", { "x-forwarded-user": "ada" });
    expect(mapped.status).toBe(200);
    expect((await get(port, "/api/meta", "127.0.0.2", { "x-forwarded-user": "ada" })).status).toBe(401);
    await served?.app.close();

    const other = await start(proxyOnly("127.0.0.2"), "::");
    expect((await get(other, "/api/meta", "127.0.0.1", { "x-forwarded-user": "ada" })).status).toBe(401);
    expect((await get(other, "/api/meta", "127.0.0.2", { "x-forwarded-user": "ada" })).status).toBe(200);
  });

  it("with --groups-header, lets in only the allowed groups, and says so on the page", async () => {
    const port = await start({ ...proxyOnly("127.0.0.2"), groupsHeader: "x-forwarded-groups", allowedGroups: ["wink-users"] });
    expect((await get(port, "/api/meta", "127.0.0.2", { "x-forwarded-user": "ada", "x-forwarded-groups": "staff, wink-users" })).status).toBe(200);
    expect((await get(port, "/api/meta", "127.0.0.2", { "x-forwarded-user": "bob", "x-forwarded-groups": "staff" })).status).toBe(401);
    expect((await get(port, "/api/meta", "127.0.0.2", { "x-forwarded-user": "bob" })).status).toBe(401);
    const page = await get(port, "/auth/proxy/sign-in?return_to=/", "127.0.0.2", { accept: "text/html", "x-forwarded-user": "bob", "x-forwarded-groups": "staff" });
    expect(page.status).toBe(403);
    expect(page.body).toContain("signed you in as bob");
  });
});
