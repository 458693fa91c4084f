/**
 * Reviewing a failed run, as the person who opens the viewer does: `wink-debug DIR` on a run
 * of our own making (six turns, 1,000+ events, two failed calls, a file renamed with small
 * edits, a reviewer sub-agent). Every failure is on the first screen with its path and turn,
 * one click opens it in context; N/Shift+N work from any view; the rename shows with its
 * score; search spans every snapshot; diffs have line permalinks and "viewed" marks; the
 * palette owns the keyboard; laptop screens keep room for the diff.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FAILED_RUN_CHILD, FAILED_RUN_FAILURES, FAILED_RUN_RENAME, FAILED_RUN_ROOT, writeFailedRun } from "./fixtures/runs.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-run-"));
  file = await writeFailedRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("the server sends the failures in the page itself; the app takes the page over without a redraw or an error", async ({ browser, page }) => {
  const html = await (await fetch(server.url, { headers: { accept: "text/html" } })).text();
  const root = /<div id="root">([^]*?)<script type="application\/json"/.exec(html)?.[1] ?? "";
  for (const failure of FAILED_RUN_FAILURES) {
    expect(root).toContain(`>${failure.tool}<`);
    expect(root).toContain(failure.path);
    expect(root).toContain(`turn ${failure.turn}`);
  }
  // Before any script runs, the rows are on screen and their links are real ones.
  const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1024, height: 768 } });
  const still = await noScript.newPage();
  await still.goto(server.url);
  await expect(still.getByTestId("failure-row")).toHaveCount(FAILED_RUN_FAILURES.length);
  await expect(still.getByTestId("failure-row").nth(1)).toBeInViewport();
  const href = await still.getByTestId("failure-link").nth(1).getAttribute("href");
  expect(href).toMatch(/view=timeline/);
  await noScript.close();

  // With script: the markup is hydrated (this page fails on any console error, a hydration mismatch included),
  // the row the server drew is the one React now owns, and it behaves as before.
  await page.goto(server.url);
  const serverRow = await page.getByTestId("failure-row").nth(1).elementHandle();
  await expect(page).toHaveURL(/file=/);
  expect(await serverRow?.evaluate((row) => row.isConnected)).toBe(true);
  await page.getByTestId("failure-link").nth(1).click();
  await expect(page).toHaveURL(/view=timeline/);
  await expect(page.locator("[data-testid=timeline-event][aria-current=true]")).toContainText(FAILED_RUN_FAILURES[1].path);
  // A link followed before the app took over opens the same place.
  await page.goto(new URL(href ?? "/", server.url).href);
  await expect(page.locator("[data-testid=timeline-event][aria-current=true]")).toContainText(FAILED_RUN_FAILURES[1].path);
});

test("the landing page shows every failure with its path and turn; one click opens it in context", async ({ page, guarded }) => {
  await page.goto(server.url);
  await expect(page.getByTestId("run-outcome")).toHaveText(/2 failed/);
  const rows = page.getByTestId("failure-row");
  await expect(rows).toHaveCount(FAILED_RUN_FAILURES.length);
  for (const [index, failure] of FAILED_RUN_FAILURES.entries()) {
    const row = rows.nth(index);
    await expect(row).toBeInViewport();
    await expect(row).toContainText(failure.tool);
    await expect(row.getByTestId("failure-argument")).toHaveText(failure.path);
    await expect(row.getByTestId("failure-turn")).toHaveText(`turn ${failure.turn}`);
    await expect(row).toContainText(failure.message);
  }
  await guarded.shot("run-overview");
  // The newest run came with the page (the server drew the landing page from it): never asked for again.
  const runRequests = await page.evaluate(() => performance.getEntriesByType("resource").filter((entry) => new URL(entry.name).pathname === "/api/run").length);
  expect(runRequests).toBe(0);

  // One action: the failing call in its timeline, its arguments and error beside it.
  await rows.nth(1).getByTestId("failure-link").click();
  await expect(page).toHaveURL(/view=timeline/);
  const selected = page.locator("[data-testid=timeline-event][aria-current=true]");
  await expect(selected).toContainText("read_file");
  await expect(selected).toContainText(FAILED_RUN_FAILURES[1].path);
  await expect(page.getByTestId("event-detail")).toContainText("turn 5");
  await expect(page.getByTestId("detail-error")).toContainText(FAILED_RUN_FAILURES[1].message);
  await expect(page.getByTestId("workspace-before")).toBeVisible();
  await expect(page.getByTestId("turn-diff")).toHaveText(/Diff of turn 5/);
  await guarded.shot("failure-in-context");

  // N / Shift+N from other views; the failure's turn is grouped and collapsible.
  await page.keyboard.press("5");
  await expect(page.getByTestId("base-picker")).toBeVisible();
  await page.keyboard.press("n");
  await expect(page.locator("[data-testid=timeline-event][aria-current=true]")).toContainText(FAILED_RUN_FAILURES[0].path);
  await page.keyboard.press("Shift+N");
  await expect(page.locator("[data-testid=timeline-event][aria-current=true]")).toContainText(FAILED_RUN_FAILURES[1].path);
  // Turns fold (O folds the selected event's turn); sub-agents sit inline in the turn they ran in.
  await page.keyboard.press("o");
  const turn5 = page.locator("[data-testid=turn-row][data-turn='5']");
  await expect(turn5).toHaveAttribute("aria-expanded", "false");
  await expect(turn5).toContainText("1 failed");
  await page.getByRole("button", { name: "Expand all turns" }).click();
  await page.getByRole("button", { name: "Collapse all turns" }).click();
  await expect(page.getByTestId("turn-row")).toHaveCount(6);
  await page.locator("[data-testid=turn-row][data-turn='4']").click();
  await page.getByTestId("timeline-events").evaluate((element) => {
    element.scrollTop = element.scrollHeight;
  });
  await expect(page.getByTestId("agent-row")).toContainText("sub-agent reviewer");
});

test("the sidebar lists the run, its sessions and their snapshots by turn, with links both ways", async ({ page, guarded }) => {
  await page.goto(server.url);
  const root = page.locator(`[data-testid=session-item][data-session="${FAILED_RUN_ROOT}"]`);
  await expect(root.locator("[data-testid=snapshot-link]").first()).toHaveText(/turn 1 · turn-1\.fs\.zip/);
  await expect(root.locator("[data-testid=snapshot-link]")).toHaveCount(6);
  // The reviewer sits under the snapshot of the turn it ran in.
  const child = root.locator(`[data-testid=session-item][data-session="${FAILED_RUN_CHILD}"]`);
  await expect(child).toBeVisible();
  await expect(child.getByTestId("parent-link")).toHaveText(/started by shop-fixer in turn 4/);
  await child.getByTestId("session-row").click();
  await expect(page.getByTestId("snapshot-session")).toHaveText(FAILED_RUN_CHILD);
  await expect(page.getByTestId("context-parent")).toHaveText(/parent shop-fixer · turn 4/);
  await page.getByTestId("context-parent").click();
  await expect(page.getByTestId("snapshot-session")).toHaveText(FAILED_RUN_ROOT);
  await expect(page.getByTestId("snapshot-where")).toContainText("turn 4 · turn-4.fs.zip");
  await expect(page.getByTestId("context-child")).toHaveText(/reviewer · turn 4/);
  await guarded.shot("sub-agent");
});

test("compare shows the rename with its score, a tree with line counts, permalinks and viewed marks", async ({ page, guarded }) => {
  await page.goto(server.url);
  await page.locator("[data-testid=turn-row], [data-testid=run-overview]").first().waitFor();
  await page.getByRole("link", { name: "diff" }).nth(1).click(); // turn 3's diff, from the overview
  const renamed = page.locator(`[data-testid=changed-file][data-path="${FAILED_RUN_RENAME.to}"]`);
  await expect(renamed).toContainText("98 %");
  await expect(renamed).toContainText(`from ${FAILED_RUN_RENAME.from}`);
  await expect(renamed).toContainText("+1");
  await expect(page.getByTestId("diff-title")).toHaveText(`renamed ${FAILED_RUN_RENAME.from} → ${FAILED_RUN_RENAME.to}, 98 %`);
  await expect(page.getByTestId("base-label")).toContainText("turn 2 · turn-2.fs.zip · line 2");
  await expect(page.getByTestId("target-label")).toContainText("turn 3 · turn-3.fs.zip · line 3");
  await guarded.shot("rename");

  // Unified: both line-number columns; a line number is a permalink that survives a reload.
  await page.keyboard.press("u");
  const firstAdded = page.locator("[data-testid=hunk-row].row-add").first();
  await expect(firstAdded.locator(".ln").nth(1)).toHaveText("1");
  await page.getByRole("button", { name: "Link to line 3 of the target" }).click();
  await expect(page).toHaveURL(/at=3/);
  await page.getByTestId("viewed-check").first().check();
  await expect(page.getByTestId("viewed-count")).toHaveText(/1 of 1 viewed/);
  await page.reload();
  await expect(page.locator("[data-testid=hunk-row].is-target")).toContainText("import math");
  await expect(page.getByTestId("viewed-count")).toHaveText(/1 of 1 viewed/);
});

test("search spans every snapshot of the session and its sub-agent, regex optional, grouped by turn", async ({ page, guarded }) => {
  await page.goto(`${server.url}?file=${file}&view=search`);
  await page.getByTestId("search-input").fill("settings");
  const groups = page.getByTestId("search-group");
  await expect(groups.filter({ hasText: "turn 5 · events" })).toHaveCount(1);
  await expect(groups.filter({ hasText: "reviewer" })).toHaveCount(1);
  await expect(groups.filter({ hasText: "turn-1.fs.zip" })).toContainText(".claude/settings.json");
  await page.getByTestId("search-regex").check();
  await page.getByTestId("search-input").fill("not found: [a-z]+/settings");
  await expect(groups).toHaveCount(1);
  await expect(groups).toContainText("turn 5");
  await guarded.shot("search");
});

test("the palette owns the keyboard from the moment it opens", async ({ page, guarded }) => {
  await page.goto(server.url);
  await expect(page.getByTestId("failure-row").first()).toBeVisible();
  const theme = await page.locator("html").getAttribute("data-theme");
  await page.keyboard.press("Control+k");
  await page.keyboard.type("dark", { delay: 0 });
  await expect(page.getByTestId("palette-input")).toHaveValue("dark");
  await expect(page.locator("html")).toHaveAttribute("data-theme", theme ?? "light");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect(guarded.problems).toEqual([]);
});

for (const [width, height] of [
  [1280, 800],
  [1024, 768],
] as const) {
  test(`at ${width}×${height} the diff keeps most of the screen`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto(`${server.url}?file=${file}&line=3&view=compare&base_file=${file}&base_line=2&path=${encodeURIComponent(FAILED_RUN_RENAME.to)}`);
    const diff = page.getByTestId("merge-diff");
    await expect(diff.locator(".cm-mergeView")).toBeVisible();
    const box = await page.locator(".compare-main").boundingBox();
    expect(box).not.toBeNull();
    // Header, context bar, tabs and pickers leave at least 60 % of the height and half the width to the diff.
    expect(box?.height ?? 0).toBeGreaterThan(height * 0.6);
    expect(box?.width ?? 0).toBeGreaterThan(width * 0.45);
    await page.keyboard.press("[");
    const wider = await page.locator(".compare-main").boundingBox();
    expect(wider?.width ?? 0).toBeGreaterThan((box?.width ?? 0) + 200);
  });
}
