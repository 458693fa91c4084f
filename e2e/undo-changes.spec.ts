/**
 * The bundled example (what `npx wink-debug` opens first) with its per-tool-call undo store:
 * in the timeline, the undone tool call shows its files and the undone marker and opens its
 * pre→post diff; the keyboard reaches all of it; a deep link reopens the diff. The same files
 * dropped into the page come without the store: nothing shows, and nothing fails.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { dropFiles } from "./support/drop.js";
import { REPO, startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

const EXAMPLE = path.join(REPO, "examples", "snapshots");
const FILE = "5f0c2b8e-3d41-4a9b-8c7e-1f2a3b4c5d6e.jsonl";

let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer(EXAMPLE);
});
test.afterAll(async () => {
  await server.stop();
});

test("the undone tool call: its files, the undone marker and its diff, by keyboard", async ({ page, guarded }) => {
  await page.goto(`${server.url}?file=${FILE}&line=2&view=timeline`);
  await expect(page.getByTestId("undo-store-card")).toContainText("1 undone");

  // The one undone call is marked on its row, with the number of files it changed.
  const undoneRow = page.locator("[data-testid=timeline-event]", { has: page.getByTestId("undone-marker") });
  await expect(undoneRow).toHaveCount(1);
  await expect(undoneRow).toContainText("write_file");
  await expect(undoneRow.getByTestId("event-changes")).toHaveText("1 file");
  await undoneRow.click();

  const panel = page.getByTestId("tool-call-changes");
  await expect(panel).toContainText("call_012");
  await expect(panel.getByTestId("undone-marker")).toHaveText("Undone at 2026-11-20 09:31:19.500");
  const readme = panel.locator('[data-testid=tool-call-file][data-path="README.md"]');
  await expect(readme.locator(".change-badge")).toHaveText("M");
  await expect(readme).toContainText("156 B → 12 B");
  await guarded.shot("timeline-tool-call-changes");

  // C opens the diff of its first file: README.md before the call (left) and what it wrote.
  await page.keyboard.press("c");
  const dialog = page.getByRole("dialog", { name: "write_file · call_012" });
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/change=README\.md/);
  await expect(dialog.getByTestId("diff-title")).toHaveText("README.md");
  await expect(dialog.getByTestId("tool-call-diff")).toContainText("post-image recorded when the call finished");
  const diff = dialog.getByTestId("merge-diff");
  await expect(diff.locator(".cm-mergeView")).toBeVisible();
  await expect(diff.locator(".cm-merge-a")).toContainText("A small cart library.");
  await expect(diff.locator(".cm-merge-b")).not.toContainText("A small cart library.");
  await guarded.shot("tool-call-diff");
  await page.keyboard.press("u");
  await expect(diff).toHaveClass(/layout-unified/);
  await expect(diff.locator(".cm-deletedChunk").first()).toBeVisible();
  await page.keyboard.press("u");
  await expect(diff).toHaveClass(/layout-split/);

  // Esc closes it; a deep link opens it again.
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page).not.toHaveURL(/change=/);
  const url = new URL(page.url());
  url.searchParams.set("change", "README.md");
  await page.goto(url.toString());
  await expect(page.getByRole("dialog", { name: "write_file · call_012" }).getByTestId("merge-diff")).toContainText("A small cart library.");
});

test("a call that removed a directory: J/K step through its entries, Tab reaches its files", async ({ page }) => {
  await page.goto(`${server.url}?file=${FILE}&line=3&view=timeline`);
  await expect(page.getByTestId("timeline-events")).toBeVisible();
  // The list is virtualised: filter it down to the call.
  await page.keyboard.press("/");
  await page.keyboard.type("under scratch");
  await page.keyboard.press("Escape");
  const rmRow = page.locator("[data-testid=timeline-event]", { hasText: "Deleted 2 entries under scratch." });
  await expect(rmRow.getByTestId("event-changes")).toHaveText("1 file");
  await rmRow.click();
  const files = page.getByTestId("tool-call-file");
  await expect(files).toHaveCount(2);
  await expect(files.locator(".change-badge")).toHaveText(["D", "D"]);

  await page.keyboard.press("c");
  const dialog = page.getByRole("dialog", { name: "rm · call_015" });
  await expect(dialog.getByTestId("diff-title")).toHaveText("scratch");
  await expect(dialog).toContainText("A directory removed");
  await page.keyboard.press("j");
  await expect(dialog.getByTestId("diff-title")).toHaveText("scratch/notes.md");
  await expect(dialog.getByTestId("merge-diff").locator(".cm-merge-a")).toContainText("check formatPrice rounding later");
  await page.keyboard.press("k");
  await expect(dialog.getByTestId("diff-title")).toHaveText("scratch");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);

  // Without the mouse: focus the second file's button and press Enter.
  await files.nth(1).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog", { name: "rm · call_015" }).getByTestId("diff-title")).toHaveText("scratch/notes.md");
});

test("dropped files have no undo store: the timeline shows no changes and no error", async ({ page, guarded }) => {
  await page.goto(server.url);
  await expect(page.locator("[data-testid=session-row]").first()).toBeVisible();
  // The session file and its archives; the undo store is a directory, which a drop of files does not carry.
  await dropFiles(page, EXAMPLE, (await readdir(EXAMPLE)).filter((name) => name.endsWith(".jsonl") || name.endsWith(".zip")));
  await expect(page.getByText("offline")).toBeVisible();
  await expect(page.getByTestId("snapshot-session")).not.toHaveText("");
  await page.keyboard.press("2");
  await expect(page.getByTestId("timeline-events")).toBeVisible();
  await page.locator(".snapshot-chip", { hasText: "line 2" }).click();
  await expect(page.locator("[data-testid=timeline-event]", { hasText: "Overwrote README.md" })).toBeVisible();
  await page.locator("[data-testid=timeline-event]", { hasText: "Overwrote README.md" }).click();
  await expect(page.getByTestId("undone-marker")).toHaveCount(0);
  await expect(page.getByTestId("event-changes")).toHaveCount(0);
  await expect(page.getByTestId("tool-call-changes")).toHaveCount(0);
  await expect(page.getByTestId("undo-store-card")).toHaveCount(0);
  expect(guarded.problems).toEqual([]);
});
