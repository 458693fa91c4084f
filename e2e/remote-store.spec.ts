/**
 * The viewer on a remote store: the real CLI serving an HTTP folder (a real nginx with JSON
 * listings) through a loopback proxy, polled every second. The sidebar pages 150 runs 100 at
 * a time and filters them by name and date; when the store goes away the page says so (and
 * what to check) while it keeps showing what it read, and the message goes when the store
 * is back. axe-core on the sidebar in both states.
 */
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startCutProxy } from "../shared/remote/test-servers/cut-proxy.test-support.js";
import type { CutProxy } from "../shared/remote/test-servers/cut-proxy.test-support.js";
import { startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import type { NginxServer } from "../shared/remote/test-servers/nginx.test-support.js";
import { dumpsPython } from "../shared/session/index.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

const RUNS = 150;
let dir: string;
let nginx: NginxServer;
let proxy: CutProxy;
let proxyPort: number;
let server: RunningServer;

/** Run i was written on day 1 + ⌊i / 50⌋ of November 2026, i minutes after midnight. */
function writtenAt(i: number): Date {
  return new Date(Date.UTC(2026, 10, 1 + Math.floor(i / 50), 0, i));
}

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-remote-"));
  const runs = path.join(dir, "runs");
  await mkdir(runs);
  for (let i = 0; i < RUNS; i++) {
    const name = `run-${String(i).padStart(3, "0")}`;
    const line = dumpsPython({ children_ids: [], created_at: writtenAt(i).toISOString().replace("Z", "+00:00"), parent_id: null, slices: [], tags: { agent: name, session_id: `${name}-session` }, version: "1" }, { sortKeys: true });
    const file = path.join(runs, `${name}.jsonl`);
    await writeFile(file, `${line}\n`);
    await utimes(file, writtenAt(i), writtenAt(i));
  }
  nginx = await startNginx(dir);
  proxy = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 0, cuts: 0 });
  proxyPort = Number(new URL(proxy.origin).port);
  server = await startServer(`${proxy.origin}/runs/`, ["--poll", "1"]);
});

test.afterAll(async () => {
  await server?.stop();
  await proxy?.close();
  await nginx?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("pages and filters the runs of an HTTP store, and says when the store cannot be read", async ({ page, guarded }) => {
  test.setTimeout(120_000);
  // The run view: a store of many runs lands on the eval otherwise.
  await page.goto(`${server.url}?view=run`);
  const sidebar = page.getByRole("navigation", { name: "Runs" });
  await expect(sidebar.getByTestId("runs-count")).toHaveText("runs · 150 runs");
  await expect(sidebar.getByTestId("run-row")).toHaveCount(100);
  await expect(sidebar.getByTestId("run-row").first()).toContainText("run-149");
  await expect(sidebar.getByTestId("more-runs")).toHaveText("Show 50 more (50 left)");
  await guarded.shot("remote-runs");
  expect(await seriousViolations(page)).toEqual([]);

  await sidebar.getByTestId("more-runs").click();
  await expect(sidebar.getByTestId("run-row")).toHaveCount(150);
  await expect(sidebar.getByTestId("more-runs")).toHaveCount(0);

  await sidebar.getByLabel("Filter runs by name").fill("run-12");
  await expect(sidebar.getByTestId("runs-count")).toHaveText("runs · 10 of 150 runs");
  await expect(sidebar.getByTestId("run-row")).toHaveCount(10);
  await sidebar.getByLabel("Filter runs by name").fill("");
  await sidebar.getByLabel("Modified on or after").fill("2026-11-03");
  await expect(sidebar.getByTestId("runs-count")).toHaveText("runs · 50 of 150 runs");
  await sidebar.getByLabel("Modified on or before").fill("2026-11-02");
  await expect(sidebar.getByText("No runs match the filter.")).toBeVisible();
  await sidebar.getByLabel("Modified on or after").fill("");
  await sidebar.getByLabel("Modified on or before").fill("");
  await expect(sidebar.getByTestId("runs-count")).toHaveText("runs · 150 runs");

  // The store goes away: the next poll fails and the page says so, keeping the runs it read.
  await proxy.close();
  const alert = sidebar.getByTestId("store-alert");
  await expect(alert).toBeVisible({ timeout: 20_000 });
  await expect(alert).toContainText(`${proxy.origin}/runs/ could not be read`);
  await expect(alert).toContainText("check the endpoint and the network");
  await expect(sidebar.getByTestId("run-row")).toHaveCount(150);
  await guarded.shot("remote-store-unreachable");
  expect(await seriousViolations(page)).toEqual([]);

  // Back, with a new run: the message goes and the run appears.
  const file = path.join(dir, "runs", "run-new.jsonl");
  await writeFile(file, `${dumpsPython({ children_ids: [], created_at: "2026-11-04T00:00:00+00:00", parent_id: null, slices: [], tags: { agent: "run-new", session_id: "new" }, version: "1" }, { sortKeys: true })}\n`);
  proxy = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 0, cuts: 0, port: proxyPort });
  await expect(alert).toHaveCount(0, { timeout: 20_000 });
  await expect(sidebar.getByTestId("runs-count")).toHaveText("runs · 151 runs", { timeout: 20_000 });
});
