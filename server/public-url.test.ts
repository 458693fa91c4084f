// The real CLI with `--public-url` (a base path) over loopback HTTP, and with `--tls-cert`
// over HTTPS with a self-signed certificate made by openssl: every route, asset, deep link,
// the event stream and the server-drawn landing page live under /wink/, and nothing outside.
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import https from "node:https";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { cleanUp, snapshotLine, tempDir, writeSession } from "./server.test-support.js";

let dir: string;

beforeAll(async () => {
  dir = await tempDir("wink-public-url-");
  await writeSession(dir, "run-a.jsonl", [snapshotLine({ sessionId: "alpha", tags: { agent: "alpha" } })]);
});

afterAll(async () => {
  stopClis();
  await cleanUp();
});

describe("--public-url over loopback HTTP", () => {
  let base: string;
  let origin: string;
  beforeAll(async () => {
    const cli = startCli([dir, "--port", "0", "--public-url", "https://tools.example/wink/"]);
    const printed = await waitForUrl(cli.output, 60_000);
    origin = printed.replace(/\/$/, "");
    base = `${origin}/wink/`;
    expect(cli.output()).toContain(`${base}`);
    expect(cli.output()).toContain("public URL: https://tools.example/wink/");
  }, 90_000);

  it("answers the API, the page, its assets, deep links and the event stream under the base path", async () => {
    const meta = await fetch(`${base}api/meta`);
    expect(meta.status).toBe(200);
    expect((await fetch(`${base}api/run`)).status).toBe(200);

    const page = await fetch(base, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<meta name="wink-base-path" content="/wink/" />');
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]*)"/g)].map((match) => match[1] ?? "");
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect(asset.startsWith("/wink/")).toBe(true);
    for (const asset of assets.filter((url) => url.includes("/assets/"))) expect((await fetch(`${origin}${asset}`)).status).toBe(200);
    // The server-drawn landing page, its links under the base path.
    expect(html).toContain('id="wink-landing-run"');
    expect(html).toContain('href="/wink/?view=timeline"');
    expect(html).not.toMatch(/href="\/\?/);

    const deep = await fetch(`${base}?file=run-a.jsonl&view=timeline`, { headers: { accept: "text/html" } });
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('name="wink-base-path"');

    const controller = new AbortController();
    const events = await fetch(`${base}api/events`, { signal: controller.signal });
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    controller.abort();
  });

  it("answers nothing outside it: 404 there, the bare base path redirected into it", async () => {
    for (const outside of ["/", "/api/meta", "/api/run", "/winkx/", "/assets/x.js"]) {
      const answer = await fetch(`${origin}${outside}`, { headers: { accept: "text/html" } });
      expect(answer.status, outside).toBe(404);
    }
    const bare = await fetch(`${origin}/wink?file=run-a.jsonl`, { redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/wink/?file=run-a.jsonl");
  });

  it("takes the public Host with the public Origin, and refuses another origin", async () => {
    const request = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${base}api/meta`);
        import("node:http").then(({ default: http }) => http.get({ host: url.hostname, port: url.port, path: url.pathname, headers }, (response) => { response.resume(); resolve(response.statusCode ?? 0); }).on("error", reject), reject);
      });
    expect(await request({ host: "tools.example", origin: "https://tools.example" })).toBe(200);
    expect(await request({ host: "tools.example", origin: "http://tools.example" })).toBe(403);
    expect(await request({ host: "evil.example" })).toBe(403);
  });
});

describe("--tls-cert and --tls-key", () => {
  let certDir: string;
  beforeAll(async () => {
    certDir = await tempDir("wink-tls-");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", path.join(certDir, "key.pem"), "-out", path.join(certDir, "cert.pem")], { stdio: "ignore" });
    await writeFile(path.join(certDir, "not-a-cert.pem"), "hello\n");
  });

  it("serves HTTPS from the first request on, under the base path", async () => {
    const cli = startCli([dir, "--port", "0", "--public-url", "https://tools.example/wink/", "--tls-cert", path.join(certDir, "cert.pem"), "--tls-key", path.join(certDir, "key.pem")]);
    const deadline = Date.now() + 60_000;
    let match: RegExpExecArray | null;
    while ((match = /https:\/\/127\.0\.0\.1:(\d+)\/wink\//.exec(cli.output())) === null) {
      if (Date.now() > deadline) throw new Error(`no URL printed: ${cli.output()}${cli.errors()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const port = Number(match[1]);
    const get = (pathname: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        https
          .get({ host: "127.0.0.1", port, path: pathname, rejectUnauthorized: false, headers: { accept: "text/html" } }, (response) => {
            let body = "";
            response.on("data", (chunk: Buffer) => (body += chunk.toString()));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
          })
          .on("error", reject);
      });
    // The first stage answers this one before Fastify is loaded.
    const meta = await get("/wink/api/meta");
    expect(meta.status).toBe(200);
    expect(JSON.parse(meta.body)).toHaveProperty("version");
    expect((await get("/wink/")).body).toContain('name="wink-base-path"');
    expect((await get("/api/meta")).status).toBe(404);
  }, 90_000);

  it.each([
    [["--tls-cert", "missing.pem", "--tls-key", "key.pem"], /cannot read the TLS certificate .*missing\.pem: ENOENT/],
    [["--tls-cert", "not-a-cert.pem", "--tls-key", "key.pem"], /TLS certificate .*not-a-cert\.pem is not a PEM certificate/],
    [["--tls-cert", "cert.pem", "--tls-key", "not-a-cert.pem"], /TLS key .*not-a-cert\.pem is not a PEM private key/],
    [["--tls-cert", "cert.pem"], /--tls-cert needs --tls-key/],
  ])("refuses %j with exit 2, naming the file", async (args, message) => {
    const cli = startCli([dir, "--port", "0", ...args.map((arg) => (arg.endsWith(".pem") ? path.join(certDir, arg) : arg))]);
    expect(await cli.exit).toBe(2);
    expect(cli.errors()).toMatch(message);
  }, 60_000);
});
