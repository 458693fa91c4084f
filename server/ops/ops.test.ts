// The operable parts of the served mode (issue 31, item 5), over real loopback HTTP: the CLI
// as a child process, nginx as a remote store that goes away. /healthz and /readyz say a
// status word and nothing else; /metrics is off without a token and needs its bearer token
// with one, labels routes by pattern; --log-format json writes one line per request with
// the run opened and the signed-in user, and never a token, a cookie or an Authorization.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startNginx } from "../../shared/remote/test-servers/nginx.test-support.js";
import { buildApp } from "../app.js";
import { startCli, stopClis, waitForUrl } from "../cli.test-support.js";
import { FIXTURES, cleanUp, copyFixture, tempDir } from "../server.test-support.js";

const RUN = "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl";
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
/** Credentials a request carries that no log line may repeat. */
const BEARER = "hunter2-bearer-secret";
const COOKIE = "wink_session=cookie-secret-value";
const URL_TOKEN = "url-token-secret";

afterEach(stopClis);
afterAll(cleanUp);

async function tokenFile(): Promise<string> {
  const file = path.join(await tempDir("wink-ops-"), "metrics-token");
  await writeFile(file, `${METRICS_TOKEN}\n`, { mode: 0o600 });
  return file;
}

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("health, readiness, metrics and the JSON access log of the CLI", () => {
  it("answers /healthz and /readyz with a status word only", async () => {
    const cli = startCli([FIXTURES, "--port", "0"]);
    const url = await waitForUrl(cli.output);
    for (const [route, body] of [["healthz", { status: "ok" }], ["readyz", { status: "ready" }]] as const) {
      const response = await fetch(`${url}${route}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const text = await response.text();
      expect(JSON.parse(text)).toEqual(body);
      // Nothing of the store: no path, no file name, no count.
      expect(text).not.toContain(FIXTURES);
      expect(text).not.toMatch(/\d/);
    }
  }, 60_000);

  it("has no /metrics without --metrics-token-file, and logs no JSON lines by default", async () => {
    const cli = startCli([FIXTURES, "--port", "0"]);
    const url = await waitForUrl(cli.output);
    const response = await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(404);
    expect((await response.json()) as unknown).toMatchObject({ code: "WD_ERR_NOT_FOUND" });
    expect((await fetch(`${url}api/timeline?file=${RUN}`)).status).toBe(200);
    cli.child.kill("SIGTERM");
    await cli.exit;
    expect(cli.output().split("\n").filter((line) => line.startsWith("{"))).toEqual([]);
  }, 60_000);

  it("serves metrics to the bearer token only, by route pattern, and logs each request as JSON without credentials", async () => {
    const cli = startCli([FIXTURES, "--port", "0", "--log-format", "json", "--metrics-token-file", await tokenFile()]);
    const url = await waitForUrl(cli.output);
    const opened = await fetch(`${url}api/timeline?file=${RUN}&token=${URL_TOKEN}`, { headers: { authorization: `Bearer ${BEARER}`, cookie: COOKIE } });
    // An unknown query parameter is refused or ignored; either way it is answered and logged.
    expect([200, 400]).toContain(opened.status);
    const timelineStatus = opened.status;
    expect((await fetch(`${url}api/meta?file=${RUN}`, { headers: { cookie: COOKIE } })).status).toBe(200);
    expect((await fetch(`${url}api/diff/stat?base_file=${RUN}&base_line=1&target_file=${RUN}&target_line=1`)).status).toBe(200);

    const refused = await fetch(`${url}metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect((await refused.json()) as unknown).toMatchObject({ code: "WD_ERR_METRICS_TOKEN" });
    expect((await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${url}metrics`, { headers: { authorization: METRICS_TOKEN } })).status).toBe(401);

    const scraped = await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scraped.text();
    expect(text).toContain(`wink_http_requests_total{method="GET",route="/api/timeline",status="${timelineStatus}"} 1`);
    expect(text).toContain('wink_http_requests_total{method="GET",route="/api/meta",status="200"} 1');
    expect(text).toContain('wink_http_requests_total{method="GET",route="/metrics",status="401"} 3');
    // Which bucket an answer falls in depends on the machine's load; that it is counted by its
    // route pattern does not.
    expect(text).toMatch(/wink_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/meta"\} 1/);
    expect(text).toMatch(/wink_http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/api\/meta"\} [01]/);
    expect(text).toMatch(/wink_http_request_duration_seconds_count\{method="GET",route="\/api\/diff\/stat"\} 1/);
    expect(text).toMatch(/wink_index_files\{state="listed"\} [1-9]/);
    expect(text).toMatch(/wink_cache_hits_total\{cache="computed_response"\} \d+/);
    expect(text).toMatch(/wink_cache_bytes\{cache="memory_budget"\} [1-9]/);
    expect(text).toMatch(/wink_process_resident_memory_bytes [1-9]/);
    // Labels are patterns: no run name, query or token reaches the metrics.
    expect(text).not.toContain(RUN);
    expect(text).not.toContain(URL_TOKEN);

    cli.child.kill("SIGTERM");
    await cli.exit;
    const output = cli.output();
    const lines = output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === "request");
    expect(requests.find((line) => line.route === "/api/timeline")).toMatchObject({ method: "GET", status: timelineStatus, file: RUN, user: null, level: 30 });
    expect(requests.find((line) => line.route === "/api/meta")).toMatchObject({ status: 200, file: RUN });
    expect(requests.find((line) => line.route === "/api/diff/stat")).toMatchObject({ status: 200, file: null, base_file: RUN, target_file: RUN });
    for (const line of requests) expect(typeof line.ms).toBe("number");
    // A line is written when its answer has gone out, by which time the client may have sent the
    // next request: the lines of back-to-back requests can come in either order.
    expect(requests.filter((line) => line.route === "/metrics").map((line) => line.status).sort()).toEqual([200, 401, 401, 401]);
    for (const secret of [BEARER, "cookie-secret-value", URL_TOKEN, METRICS_TOKEN]) expect(output).not.toContain(secret);
  }, 60_000);

  it("refuses a metrics token file that is missing or too short (exit 2)", async () => {
    const missing = startCli([FIXTURES, "--port", "0", "--metrics-token-file", "/nonexistent/token"]);
    expect(await missing.exit).toBe(2);
    expect(missing.errors()).toContain("--metrics-token-file: cannot read /nonexistent/token: ENOENT");
    const short = path.join(await tempDir("wink-ops-"), "short");
    await writeFile(short, "abc\n");
    const refused = startCli([FIXTURES, "--port", "0", "--metrics-token-file", short]);
    expect(await refused.exit).toBe(2);
    expect(refused.errors()).toContain("at least 16 characters");
    expect(refused.errors()).not.toContain("abc\n");
  }, 60_000);
});

describe("/readyz follows the store", () => {
  it("turns 503 when the polled store stops answering, saying nothing of it", async () => {
    const folder = await copyFixture(path.join(FIXTURES, RUN));
    const store = await startNginx(folder);
    const cli = startCli([store.url, "--port", "0", "--poll", "1"]);
    // The store's own URL is printed first ("Listing http://…"): the viewer's is the indented one.
    const url = await until("the viewer's URL", async () => /^ {2}(http:\/\/127\.0\.0\.1:\d+\/)/m.exec(cli.output())?.[1] ?? null);
    expect((await fetch(`${url}readyz`)).status).toBe(200);
    await store.stop();
    const down = await until("a 503 from /readyz", async () => {
      const response = await fetch(`${url}readyz`);
      return response.status === 503 ? await response.text() : null;
    });
    expect(JSON.parse(down)).toEqual({ status: "not ready" });
    expect(down).not.toContain("127.0.0.1");
    // The process is still up: a load balancer takes it out of rotation, an orchestrator does not restart it.
    expect((await fetch(`${url}healthz`)).status).toBe(200);
  }, 90_000);
});

describe("the access log's user", () => {
  it("is the signed-in user the guard put on the request", async () => {
    const stream = new PassThrough();
    let written = "";
    stream.on("data", (chunk: Buffer) => (written += chunk.toString()));
    const built = await buildApp({ path: FIXTURES, watch: false, indexInBackground: false, logFormat: "json", logStream: stream, webDir: path.join(FIXTURES, "no-web-dir") });
    // Stands in for the sign-in guard (server/auth, built beside this): it sets the same field.
    built.app.addHook("onRequest", (request, _reply, done) => {
      request.viewerUser = { name: "ada@example.com", email: "ada@example.com", via: "proxy" };
      done();
    });
    await built.app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const address = built.app.server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      expect((await fetch(`http://127.0.0.1:${port}/api/meta?file=${RUN}`)).status).toBe(200);
    } finally {
      await built.app.close();
    }
    const line = written
      .split("\n")
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === "request");
    expect(line).toMatchObject({ method: "GET", route: "/api/meta", status: 200, user: "ada@example.com", file: RUN });
  }, 60_000);
});
