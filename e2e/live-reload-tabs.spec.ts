/**
 * Ten tabs on one server: browsers allow six HTTP/1.1 connections per host, so a stream
 * held by every tab left the seventh without a connection. The tabs share one event stream
 * (a leader tab holds it and relays over a BroadcastChannel): all ten load, and all ten
 * reload when the run's file changes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { writeFailedRun } from "./fixtures/runs.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-tabs-"));
  await writeFailedRun(dir, { turns: 4, callsPerTurn: 8 });
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("ten tabs load, hold one event stream between them, and all reload", async ({ page, context }) => {
  test.setTimeout(180_000);
  const streams: string[] = [];
  context.on("request", (request) => {
    if (request.url().includes("/api/events")) streams.push(request.url());
  });
  const tabs: Page[] = [page];
  for (let i = 1; i < 10; i++) tabs.push(await context.newPage());
  for (const tab of tabs) await tab.goto(server.url);
  for (const [index, tab] of tabs.entries()) {
    await expect(tab.getByTestId("run-outcome"), `tab ${index + 1}`).toHaveText(/1 failed/);
    await expect(tab.locator("[data-testid=snapshot-link]"), `tab ${index + 1}`).toHaveCount(4);
  }
  // Every tab stays usable: each one loads another view with its own requests.
  for (const tab of tabs) await tab.keyboard.press("2");
  for (const tab of tabs) await expect(tab.getByTestId("turn-row").first()).toBeVisible();
  expect(streams.length).toBeLessThanOrEqual(2);

  // The run gains two turns (a fifth and a sixth snapshot line, a second failure): every tab shows them.
  await writeFailedRun(dir, { turns: 6, callsPerTurn: 8 });
  for (const [index, tab] of tabs.entries()) {
    await expect(tab.locator("[data-testid=snapshot-link]"), `tab ${index + 1}`).toHaveCount(6, { timeout: 20_000 });
  }
  // Closing the tab that holds the stream hands it to another one, which still hears changes.
  for (const tab of tabs.slice(0, 5)) await tab.close();
  await writeFailedRun(dir, { turns: 5, callsPerTurn: 8 });
  for (const tab of tabs.slice(5)) await expect(tab.locator("[data-testid=snapshot-link]")).toHaveCount(5, { timeout: 20_000 });
});
