/**
 * `wink-debug --auth proxy` in Chromium: the proxy in front (here the browser itself, on a
 * trusted loopback address, sending the user header a real proxy would set) names the user;
 * the header says who is signed in and offers no "Sign out", which only the proxy can do (the
 * viewer holds no session: the next request would be signed in again). Without the header
 * the page says that sign-in happens at the proxy, and a session that ends under an open page
 * sends that page through sign-in again.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "@playwright/test";
import { writeLongPathsRun } from "./fixtures/long-paths-run.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect } from "./support/test.js";

const SLOW = { timeout: 30_000 };
let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-proxy-sign-in-"));
  await writeLongPathsRun(dir);
  server = await startServer(dir, ["--auth", "proxy", "--user-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1"], 60_000);
});

test.afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("a user named by the proxy is shown, with no Sign out the viewer could not keep", async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-User": "ada@example.test" } });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator("html[data-app=ready]").waitFor({ state: "attached", ...SLOW });
  await expect(page.getByTestId("signed-in")).toContainText("ada@example.test", SLOW);
  await expect(page.getByTestId("sign-out")).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
  await context.close();

  const signedOut = await browser.newContext();
  const bare = await signedOut.newPage();
  const response = await bare.goto(server.url);
  expect(response?.status()).toBe(401);
  await expect(bare.locator("body")).toContainText(/proxy/i, SLOW);
  await signedOut.close();
});

test("a session that ends under the page sends the page through sign-in again, not into errors", async ({ browser }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-User": "ada@example.test" } });
  const page = await context.newPage();
  await page.goto(`${server.url}?view=timeline`);
  await page.locator("html[data-app=ready]").waitFor({ state: "attached", ...SLOW });
  await expect(page.getByTestId("signed-in")).toContainText("ada@example.test", SLOW);
  // The proxy stops naming the user: the next API answer is 401, and the page is asked for again.
  await context.setExtraHTTPHeaders({});
  const reloaded = page.waitForResponse((response) => response.request().resourceType() === "document" && response.status() === 401, SLOW);
  // A request already under way (the page still fetching views in the background) may meet the
  // 401 first and send the page through sign-in before the tab is clicked: either way the page is
  // asked for again, so the click only has to happen if the tab is still there.
  const clicked = page.getByTestId("tab-files").click().then(() => "clicked" as const, () => "page already left" as const);
  await Promise.race([reloaded, clicked]);
  await reloaded;
  await expect(page.locator("body")).toContainText(/proxy/i, SLOW);
  await context.close();
});

