/**
 * Reviewing a failure from the keyboard alone (issue 32): after `N` focus is on the failing
 * call's row, the timeline list is one tab stop (a roving tabindex; arrow keys and J/K move
 * within it), so Tab goes on to the failure's "Workspace before / after / Diff of turn" links
 * in a few presses; and the virtualised list still scrolls its focused row into view.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FAILED_RUN_FAILURES, writeFailedRun } from "./fixtures/runs.js";
import type { Page } from "@playwright/test";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-keys-"));
  await writeFailedRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

// Evaluated as a string: e2e/ is type-checked without the DOM library.
const focusedTestId = (page: Page) => page.evaluate<string | null>('document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.tagName ?? null');
const selectedRowFocused = (page: Page) => page.evaluate<boolean>('document.activeElement?.getAttribute("data-testid") === "timeline-event" && document.activeElement?.getAttribute("aria-current") === "true"');

test("after N focus is on the failing call's row, and Tab reaches the failure's links in a few presses", async ({ page, guarded }) => {
  await page.goto(server.url);
  await expect(page.getByTestId("failure-row").first()).toBeVisible();
  await page.keyboard.press("n");
  const selected = page.locator("[data-testid=timeline-event][aria-current=true]");
  await expect(selected).toContainText(FAILED_RUN_FAILURES[0].path);
  await expect(selected).toBeFocused();

  let presses = 0;
  while ((await focusedTestId(page)) !== "workspace-before" && presses < 10) {
    await page.keyboard.press("Tab");
    presses += 1;
  }
  expect(await focusedTestId(page)).toBe("workspace-before");
  await page.keyboard.press("Tab");
  await expect(page.getByTestId("workspace-after")).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(page.getByTestId("turn-diff")).toBeFocused();

  // Shift+Tab back into the list lands on the selected row, not on its neighbours.
  for (let back = 0; back < presses + 2 && !(await selectedRowFocused(page)); back += 1) await page.keyboard.press("Shift+Tab");
  await expect(selected).toBeFocused();
  await expect(page.locator(".timeline-scroller [tabindex='0']")).toHaveCount(1);
  await guarded.shot("keyboard-failure-focus");
  expect(guarded.problems).toEqual([]);
});

test("arrow keys move the focus and the selection through the virtualised list", async ({ page, guarded }) => {
  await page.goto(server.url);
  await expect(page.getByTestId("failure-row").first()).toBeVisible();
  await page.keyboard.press("n");
  const selected = page.locator("[data-testid=timeline-event][aria-current=true]");
  await expect(selected).toBeFocused();
  const start = Number(await selected.getAttribute("data-event"));

  await page.keyboard.press("ArrowDown");
  await expect(page.locator(":focus")).toHaveAttribute("data-event", String(start + 1));
  await expect(selected).toHaveAttribute("data-event", String(start + 1));
  await page.keyboard.press("k");
  await expect(selected).toHaveAttribute("data-event", String(start));
  await expect(selected).toBeFocused();

  // Far past the rows first drawn: the focused row is drawn, in view, and still the one tab stop.
  for (let step = 0; step < 60; step += 1) await page.keyboard.press("ArrowDown");
  const focused = page.locator(".timeline-scroller :focus");
  await expect(focused).toBeInViewport();
  await expect(page.locator(".timeline-scroller [tabindex='0']")).toHaveCount(1);
  // Home / End go to the list's first and last rows.
  await page.keyboard.press("End");
  await expect(page.locator(".timeline-scroller :focus")).toBeInViewport();
  await page.keyboard.press("Home");
  await expect(page.locator("[data-testid=turn-row]").first()).toBeFocused();
  expect(guarded.problems).toEqual([]);
});
