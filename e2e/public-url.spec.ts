/**
 * The viewer behind a real nginx reverse proxy at http://127.0.0.1:PORT/wink/, started with
 * `--public-url` pointing there: the landing page, opening a run, reloading a deep link and
 * a live change all work, and the browser never asks for anything outside /wink/.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DaemonGroup, freePort } from "../shared/remote/test-servers/daemons.test-support.js";
import { nginxConfig } from "../shared/remote/test-servers/nginx.test-support.js";
import { dumpsPython } from "../shared/session/index.js";
import { REPO, cliCommand } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let nginx: DaemonGroup;
let viewer: ChildProcess;
let publicUrl: string;

const line = (agent: string) =>
  dumpsPython({ children_ids: [], created_at: "2026-11-22T01:00:00.000000+00:00", parent_id: null, slices: [], tags: { agent, session_id: `${agent}-session` }, version: "1" }, { sortKeys: true });

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-public-"));
  await writeFile(path.join(dir, "run-alpha.jsonl"), `${line("alpha")}\n`);
  await writeFile(path.join(dir, "run-beta.jsonl"), `${line("beta")}\n`);
  const [viewerPort, proxyPort] = [await freePort(), await freePort()];
  publicUrl = `http://127.0.0.1:${proxyPort}/wink/`;
  const { command, args } = cliCommand([dir, "--port", String(viewerPort), "--no-open", "--no-cache", "--public-url", publicUrl]);
  viewer = spawn(command, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production" } });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wink-debug did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("public URL:")) {
        clearTimeout(timer);
        resolve();
      }
    };
    viewer.stdout?.on("data", onData);
    viewer.stderr?.on("data", onData);
  });
  nginx = new DaemonGroup("nginx");
  const conf = path.join(nginx.dir, "nginx.conf");
  await writeFile(
    conf,
    nginxConfig(
      nginx.dir,
      `  server {
    listen 127.0.0.1:${proxyPort};
    location /wink/ {
      proxy_pass http://127.0.0.1:${viewerPort};
      proxy_set_header Host $http_host;
      proxy_http_version 1.1;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }
    location / { return 418; }
  }
`,
      { accessLog: true },
    ),
  );
  nginx.spawn("nginx", ["-p", nginx.dir, "-c", conf, "-e", path.join(nginx.dir, "error.log")], "nginx");
  await nginx.waitFor("nginx", async () => (await fetch(`http://127.0.0.1:${proxyPort}/`, { signal: AbortSignal.timeout(1000) })).status === 418, 30_000);
});

test.afterAll(async () => {
  viewer?.kill("SIGTERM");
  await nginx?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("lands, opens a run, reloads a deep link and hears a change through nginx, all under /wink/", async ({ page, guarded }) => {
  const outside: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(publicUrl)) outside.push(request.url());
  });
  await page.goto(publicUrl);
  // Two runs: the landing is the eval, under the base path.
  await expect(page).toHaveURL(`${publicUrl}?view=eval`);
  await expect(page.getByTestId("eval-view")).toBeVisible();
  const sidebar = page.getByRole("navigation", { name: "Runs" });
  await expect(sidebar.getByText("run-beta.jsonl").or(sidebar.getByText("beta")).first()).toBeVisible();
  await sidebar.getByText(/alpha/).first().click();
  // With its line: the app writes the snapshot it picked into the URL just after the click,
  // and a link taken before that would not be the one the reload keeps.
  await expect(page).toHaveURL(/\/wink\/\?.*file=run-alpha\.jsonl&line=\d+/);
  const deepLink = page.url();
  await page.reload();
  await expect(page).toHaveURL(deepLink);
  await expect(page.getByText(/alpha/).first()).toBeVisible();
  // A live change: a new run appears without a reload (the event stream through the proxy).
  await writeFile(path.join(dir, "run-gamma.jsonl"), `${line("gamma")}\n`);
  await expect(sidebar.getByText(/gamma/).first()).toBeVisible({ timeout: 20_000 });
  expect(outside).toEqual([]);
  expect(guarded.problems).toEqual([]);
});
