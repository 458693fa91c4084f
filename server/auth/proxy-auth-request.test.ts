// --auth proxy behind a real nginx with `auth_request` (issue 31): nginx asks a small loopback
// sign-in service about each request's cookie, passes the user it names on in
// X-Forwarded-User, and connects to the real CLI from 127.0.0.2, the one trusted address.
// The test itself talks to the CLI from 127.0.0.1, as anyone else on the network would.
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonGroup, freePort, requireCommands } from "../../shared/remote/test-servers/daemons.test-support.js";
import { nginxConfig } from "../../shared/remote/test-servers/nginx.test-support.js";
import { type RunningCli, startCli, stopClis, waitForUrl } from "../cli.test-support.js";
import { FIXTURES } from "../server.test-support.js";

const RUN = "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl";
/** The sign-in service's cookie for a signed-in user, and who it is. */
const GOOD_COOKIE = "team_sso=ada-7f3c9e";
const USER = "ada@example.com";
/** Where nginx connects to the viewer from (all of 127.0.0.0/8 is loopback on Linux). */
const PROXY_ADDRESS = "127.0.0.2";

let nginx: DaemonGroup | null = null;
let signInService: http.Server | null = null;
let cli: RunningCli;
let viewer: string;
let proxied: string;
/** The very first request the viewer got, forged, while its first stage still answered /api/meta alone. */
let firstAnswer: { status: number; body: string };
/** The Cookie headers the sign-in service was asked about. */
const asked: string[] = [];

/** The operator's sign-in service: 200 naming the user for the good cookie, 401 for anything else. */
async function startSignInService(): Promise<number> {
  signInService = http.createServer((request, response) => {
    asked.push(request.headers.cookie ?? "");
    const signedIn = (request.headers.cookie ?? "").split(/;\s*/).includes(GOOD_COOKIE);
    response.writeHead(signedIn ? 200 : 401, signedIn ? { "x-auth-user": USER } : {});
    response.end();
  });
  const server = signInService;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function proxyConfig(dir: string, port: number, viewerPort: number, servicePort: number): string {
  return nginxConfig(
    dir,
    `  server {
    listen 127.0.0.1:${port};
    location = /_sign_in_check {
      internal;
      proxy_pass http://127.0.0.1:${servicePort}/check;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
    }
    location / {
      auth_request /_sign_in_check;
      auth_request_set $wink_user $upstream_http_x_auth_user;
      proxy_pass http://127.0.0.1:${viewerPort};
      proxy_bind ${PROXY_ADDRESS};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-User $wink_user;
    }
  }
`,
  );
}

function logLines(): Record<string, unknown>[] {
  return cli
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === "request");
}

/** Waits for the access-log line of a request the viewer answered (pino writes it after the answer). */
async function logged(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const line = logLines().find(match);
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(`no such access-log line in: ${cli.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  requireCommands(["nginx"], "Debian package nginx");
  const servicePort = await startSignInService();
  cli = startCli([FIXTURES, "--port", "0", "--auth", "proxy", "--user-header", "X-Forwarded-User", "--trusted-proxy", PROXY_ADDRESS, "--log-format", "json"]);
  viewer = await waitForUrl(cli.output, 60_000);
  const first = await fetch(`${viewer}api/meta`, { headers: { "x-forwarded-user": USER } });
  firstAnswer = { status: first.status, body: await first.text() };
  nginx = new DaemonGroup("nginx-auth-request");
  const port = await freePort();
  const conf = path.join(nginx.dir, "nginx.conf");
  writeFileSync(conf, proxyConfig(nginx.dir, port, Number(new URL(viewer).port), servicePort));
  nginx.spawn("nginx", ["-p", nginx.dir, "-c", conf, "-e", path.join(nginx.dir, "error.log")], "nginx");
  proxied = `http://127.0.0.1:${port}/`;
  await nginx.waitFor("nginx", async () => (await fetch(`${proxied}healthz`, { signal: AbortSignal.timeout(1000) })).status === 401, 30_000);
}, 120_000);

afterAll(async () => {
  stopClis();
  await nginx?.stop();
  await new Promise((resolve) => (signInService === null ? resolve(undefined) : signInService.close(resolve)));
});

describe("--auth proxy behind nginx auth_request", () => {
  it("lets a user signed in at the proxy reach the API, and logs who it was", async () => {
    const response = await fetch(`${proxied}api/meta?file=${RUN}`, { headers: { cookie: GOOD_COOKIE } });
    expect(response.status).toBe(200);
    expect(asked).toContain(GOOD_COOKIE);
    expect(await logged((line) => line.route === "/api/meta" && line.status === 200)).toMatchObject({ user: USER, file: RUN });
  }, 60_000);

  it("answers 401 at nginx without credentials, and the viewer never sees the request", async () => {
    const before = logLines().length;
    for (const cookie of [undefined, "team_sso=forged"]) {
      const response = await fetch(`${proxied}api/meta`, { headers: { ...(cookie === undefined ? {} : { cookie }), "x-forwarded-user": USER } });
      expect(response.status).toBe(401);
      expect(response.headers.get("server")).toMatch(/^nginx/);
    }
    // A round trip the viewer does answer, so any line of the refused ones would be written by now.
    await fetch(`${viewer}healthz`);
    await logged((line) => line.route === "/healthz");
    expect(logLines().slice(before).filter((line) => line.route !== "/healthz")).toEqual([]);
  }, 60_000);

  it("puts the proxy's user in place of one the client sends through it", async () => {
    const response = await fetch(`${proxied}api/timeline?file=${RUN}`, { headers: { cookie: GOOD_COOKIE, "x-forwarded-user": "admin" } });
    expect(response.status).toBe(200);
    expect(await logged((line) => line.route === "/api/timeline")).toMatchObject({ status: 200, user: USER });
  }, 60_000);

  it("refuses a forged X-Forwarded-User sent straight to the viewer's port, from the very first request", async () => {
    expect(firstAnswer.status).toBe(401);
    expect(JSON.parse(firstAnswer.body)).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    const api = await fetch(`${viewer}api/meta?file=${RUN}`, { headers: { "x-forwarded-user": USER, "x-forwarded-for": PROXY_ADDRESS } });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    expect(await logged((line) => line.route === "/api/meta" && line.status === 401)).toMatchObject({ user: null });

    const page = await fetch(`${viewer}?file=${RUN}`, { headers: { accept: "text/html", "x-forwarded-user": USER }, redirect: "manual" });
    expect(page.status).toBe(302);
    const signIn = await fetch(new URL(page.headers.get("location") ?? "", viewer), { headers: { accept: "text/html", "x-forwarded-user": USER }, redirect: "manual" });
    expect(signIn.status).toBe(401);
    expect(signIn.headers.get("location")).toBeNull();
    expect(await signIn.text()).toContain("Sign-in happens at the proxy");
  }, 60_000);
});

describe("wink-debug --auth proxy refuses bad options at start (exit 2)", () => {
  it("names a missing --trusted-proxy, a bad network, and proxy options without --auth proxy", async () => {
    for (const [args, named] of [
      [["--auth", "proxy", "--user-header", "X-Forwarded-User"], "--trusted-proxy"],
      [["--auth", "proxy", "--user-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1,10.0.0.0/40"], "10.0.0.0/40"],
      [["--auth", "proxy", "--user-header", "X-Forwarded-User", "--trusted-proxy", "proxy.internal"], "proxy.internal"],
      [["--trusted-proxy", "127.0.0.1"], "--trusted-proxy is for --auth (oidc, proxy or token)"],
    ] as const) {
      const refused = startCli([FIXTURES, "--port", "0", ...args]);
      expect(await refused.exit, args.join(" ")).toBe(2);
      expect(refused.errors(), args.join(" ")).toContain(named);
      expect(refused.output()).not.toContain("http://");
    }
  }, 120_000);
});
