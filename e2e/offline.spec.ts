/**
 * The same run without a server round trip: dropped onto the page, picked with the file
 * dialog, and opened from a bundled HTML file on file:// (no network at all).
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { WINK_BUNDLE_FIXTURES, winkFixture } from "../fixtures/paths.js";
import { BIG_FILE, writeMultiTurnRun } from "./fixtures/runs.js";
import { dropFiles } from "./support/drop.js";
import { cliCommand, startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-offline-"));
  file = await writeMultiTurnRun(path.join(dir, "run"));
  server = await startServer(winkFixture("."));
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("drag and drop a session file with its archives", async ({ page, guarded }) => {
  await page.goto(`${server.url}?view=run`);
  await expect(page.locator("[data-testid=session-row]").first()).toBeVisible();
  const runDir = path.join(dir, "run");
  await dropFiles(page, runDir, await readdir(runDir));
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page.getByTestId("snapshot-session")).toHaveText(/e2e-root/);
  await page.keyboard.press("4");
  await page.locator('[data-testid=tree-row][data-path="README.md"]').click();
  await expect(page.locator(".markdown-file h1")).toHaveText("Demo project");
  await guarded.shot("offline-drop");
  await page.getByRole("button", { name: "Back to server" }).click();
  await expect(page.getByText("offline")).toHaveCount(0);
});

test("dropped files of more than one run open on the eval, as the server's folder does; one run opens on it", async ({ page }) => {
  await page.goto(`${server.url}?view=run`);
  await expect(page.locator("[data-testid=session-row]").first()).toBeVisible();
  const fixtures = winkFixture(".");
  await dropFiles(page, fixtures, (await readdir(fixtures)).filter((name) => name.endsWith(".jsonl")));
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page).toHaveURL(/[?&]view=eval/);
  await expect(page.getByTestId("eval-view")).toBeVisible();
  await expect(page.getByTestId("eval-run")).toHaveCount(2);
  await page.getByRole("button", { name: "Back to server" }).click();
  await page.goto(`${server.url}?view=run`);
  const runDir = path.join(dir, "run");
  await dropFiles(page, runDir, await readdir(runDir));
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page.getByTestId("snapshot-session")).toHaveText(/e2e-root/);
  await expect(page).not.toHaveURL(/view=eval/);
});

test("dropped files: a truth.json beside one run is no run (the run opens), beside two the eval and the sidebar count the same runs", async ({ page }) => {
  await page.goto(`${server.url}?view=run`);
  await expect(page.locator("[data-testid=session-row]").first()).toBeVisible();
  const solo = path.join(dir, "solo");
  await cp(path.join(dir, "run"), solo, { recursive: true });
  await cp(path.join(WINK_BUNDLE_FIXTURES, "index.json"), path.join(solo, "truth.json"));
  await dropFiles(page, solo, await readdir(solo));
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page.getByTestId("snapshot-session")).toHaveText(/e2e-root/);
  await expect(page).not.toHaveURL(/view=eval/);
  const sidebar = page.getByRole("complementary", { name: "Runs and sessions" });
  await expect(sidebar.getByTestId("runs-count")).toHaveText(/ · 1 run · 1 other file$/);

  await page.getByRole("button", { name: "Back to server" }).click();
  await page.goto(`${server.url}?view=run`);
  await expect(page.locator("[data-testid=session-row]").first()).toBeVisible();
  const two = path.join(dir, "two");
  await cp(winkFixture("."), two, { recursive: true, filter: (source) => !source.includes("invalid") && !source.includes("fszip") });
  await cp(path.join(WINK_BUNDLE_FIXTURES, "index.json"), path.join(two, "truth.json"));
  await dropFiles(page, two, (await readdir(two)).filter((name) => /\.jsonl?$/.test(name)));
  await expect(page).toHaveURL(/[?&]view=eval/);
  await expect(page.locator(".eval-title")).toContainText("· 2 runs");
  await expect(sidebar.getByTestId("runs-count")).toHaveText(/^3 dropped files · 2 runs · 1 other file$/);
  await expect(sidebar.getByTestId("run-row")).toHaveCount(2);
  await expect(sidebar.locator("[aria-current], .is-current, .is-active")).toHaveCount(0);
});

test("pick a session file and its archive with the file dialog", async ({ page }) => {
  await page.goto(`${server.url}?view=run`);
  const pair = winkFixture("fszip-pr633");
  const names = await readdir(pair);
  await page.getByTestId("file-picker").setInputFiles(names.map((name) => path.join(pair, name)));
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page.getByTestId("snapshot-session")).not.toHaveText("");
  await page.keyboard.press("4");
  await expect(page.locator(".file-tree-summary")).toContainText("18 files");
});

test("a bundled HTML file opens offline from file://", async ({ page, guarded }) => {
  const output = path.join(dir, "run.html");
  const { command, args } = cliCommand(["bundle", path.join(dir, "run"), "-o", output]);
  const { stdout } = await promisify(execFile)(command, args);
  expect(stdout).toContain("4 files");
  await page.route(/^https?:/, (route) => route.abort());
  await page.goto(`file://${output}`);
  await expect(page.getByTestId("snapshot-session")).toHaveText(/e2e-root/);
  await page.goto(`file://${output}#file=${file}&line=5&view=compare&base_file=${file}&base_line=1&path=${encodeURIComponent(BIG_FILE)}`);
  await expect(page.getByTestId("merge-diff")).toContainText("changed in turn 2");
  await guarded.shot("bundle-compare");
  await page.keyboard.press("2");
  await expect(page.getByTestId("timeline-events")).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId("merge-diff")).toBeVisible();
});
