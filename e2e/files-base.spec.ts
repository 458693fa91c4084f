/**
 * The Files view keeps its own base: a compare with a later turn leaves `base_*` in the
 * URL, and the workspace of an earlier turn must not show the later turns' files as
 * deleted. Its file count is the files the workspace holds (deleted ones are shown, not counted).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { writeMultiTurnRun } from "./fixtures/runs.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-files-base-"));
  file = await writeMultiTurnRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const count = async (page: Page): Promise<number> => {
  const text = (await page.locator(".file-tree-summary").textContent()) ?? "";
  const match = /^([\d,]+) files?/.exec(text.trim());
  if (match?.[1] === undefined) throw new Error(`no file count in "${text}"`);
  return Number(match[1].replaceAll(",", ""));
};

test("after a compare with a later turn, Files at turn 1 shows turn 1 alone", async ({ page, guarded }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${server.url}?file=${file}&line=1&view=compare&base_file=${file}&base_line=3`);
  await expect(page.getByText("Base and target")).toHaveCount(0);
  await page.keyboard.press("4");
  await expect(page.locator(".file-tree-summary")).toBeVisible();
  await expect(page.locator(".file-tree-summary")).not.toContainText("since line 3");
  await expect(page.locator("[data-testid=tree-row].change-deleted")).toHaveCount(0);
  await guarded.shot("files-after-compare-turn1");
});

test("the file count leaves out deleted files", async ({ page }) => {
  // Turn 2 (line 3) adds src/feature_2.py and deletes notes/todo.txt: as many files as its base.
  await page.goto(`${server.url}?file=${file}&line=3&view=files`);
  await expect(page.locator('[data-testid=tree-row][data-path="notes/todo.txt"]')).toHaveClass(/change-deleted/);
  const since = /since line (\d+)/.exec((await page.locator(".file-tree-summary").textContent()) ?? "")?.[1];
  expect(since).toBeDefined();
  const after = await count(page);
  await expect(page.getByText(`${after} files. Use the tree`)).toBeVisible();
  await page.goto(`${server.url}?file=${file}&line=${since ?? ""}&view=files`);
  await expect(page.locator(".file-tree-summary")).toBeVisible();
  expect(after).toBe(await count(page));
});

test("C says why when there is no changed file to open", async ({ page }) => {
  await page.goto(`${server.url}?file=${file}&line=3&view=timeline`);
  await expect(page.locator(".timeline-summary")).toBeVisible();
  await page.keyboard.press("c");
  await expect(page.getByText("Select a tool call first (J/K)")).toBeVisible();
  await page.keyboard.press("j");
  await expect(page).toHaveURL(/event=\d+/);
  await page.keyboard.press("c");
  await expect(page.getByText(/not a tool call|undo store is not served|changed no files/)).toBeVisible();
});
