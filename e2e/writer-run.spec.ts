/**
 * A run written by our own writer: one session over three turns, each with its own
 * archive. Timeline across snapshots, workspace change badges, a 5,000-line file diff in
 * both layouts, exact big integers, rendered markdown, and live reload keeping the place.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BIG_FILE, MULTI_TURN_ROOT, writeBigRun, writeMultiTurnRun } from "./fixtures/runs.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-run-"));
  file = await writeMultiTurnRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("timeline across turns, change badges, and a 5,000-line diff in both layouts", async ({ page, guarded }) => {
  await page.goto(`${server.url}?file=${file}&line=3&view=timeline`);
  await expect(page.locator(".snapshot-strip li")).toHaveCount(3);
  await expect(page.locator(".snapshot-chip.is-active")).toContainText("line 3");
  await expect(page.locator(".timeline-summary")).toContainText("3 failed");

  // The workspace at turn 2, badges against turn 1.
  await page.keyboard.press("4");
  await expect(page.locator('[data-testid=tree-row][data-path="src/feature_2.py"] .change-badge')).toHaveText("A");
  await expect(page.locator('[data-testid=tree-row][data-path="notes/todo.txt"]')).toHaveClass(/change-deleted/);
  await expect(page.locator(`[data-testid=tree-row][data-path="${BIG_FILE}"] .change-badge`)).toHaveText("M");

  // Compare turn 1 with turn 3.
  await page.goto(`${server.url}?file=${file}&line=5&view=compare&base_file=${file}&base_line=1`);
  await expect(page.getByTestId("changed-file")).toHaveCount(6);
  await page.locator(`[data-testid=changed-file][data-path="${BIG_FILE}"]`).click();
  const diff = page.getByTestId("merge-diff");
  await expect(diff.locator(".cm-mergeView")).toBeVisible();
  await expect(diff).toContainText("changed in turn 2");
  await expect(diff.locator(".cm-changedText").first()).toBeVisible();
  // Collapsed stretches are marked with a glyph Debian's default fonts have (not @codemirror/merge's "⦚").
  await expect(diff.locator(".cm-collapsedLines").first()).toBeVisible();
  expect(await page.evaluate(`getComputedStyle(document.querySelector("[data-testid=merge-diff] .cm-collapsedLines"), "::before").content`)).toBe('"↕"');
  await guarded.shot("compare-file");
  await page.keyboard.press(".");
  // Unified: drawn from the hunks, with both line-number columns.
  await page.keyboard.press("u");
  await expect(page.getByTestId("hunk-list")).toHaveClass(/layout-unified/);
  await expect(page.locator("[data-testid=hunk-row].row-del").first()).toBeVisible();
  await expect(page).toHaveURL(/layout=unified/);
  await page.keyboard.press("j");
  await expect(page.getByTestId("diff-title")).not.toHaveText(BIG_FILE);
});

test("big integers stay exact, NaN is named, markdown is rendered", async ({ page }) => {
  await page.goto(`${server.url}?file=${file}&line=1&view=slices&slice=__main__%3AReviewNote`);
  const card = page.getByTestId("item-card").first();
  await expect(card).toContainText("18446744073709551617");
  await expect(card).toContainText("NaN");
  await expect(card.locator(".markdown-body h1")).toHaveText("Review after turn 1");
  await card.getByRole("button", { name: "Raw Markdown" }).click();
  await expect(card).toContainText("# Review after turn 1");
});

test("live reload shows a new session file and keeps the place", async ({ page }) => {
  await page.goto(`${server.url}?file=${file}&line=3&view=files&path=README.md`);
  await expect(page.getByTestId("file-path")).toHaveText("README.md");
  const extra = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-extra-"));
  try {
    const name = await writeBigRun(extra, 12);
    await cp(path.join(extra, name), path.join(dir, name));
    await expect(page.locator("[data-testid=run-row]", { hasText: "big-run-" })).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("file-path")).toHaveText("README.md");
    await expect(page).toHaveURL(new RegExp(`file=${MULTI_TURN_ROOT}.jsonl&line=3`));
  } finally {
    await rm(extra, { recursive: true, force: true });
  }
});
