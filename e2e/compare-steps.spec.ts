/**
 * Stepping through turns in the compare view (issue 32 item 5), keyboard only: Shift+→ /
 * Shift+← move base and target together one snapshot of the session (never onto each other),
 * the buttons do the same, the base list starts with the compared run's own snapshots, and
 * the palette finds a snapshot by its turn, names sessions by agent (no raw UUIDs or ISO
 * times), and compares the current snapshot with the previous turn.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { writeFailedRun, writeMultiTurnRun } from "./fixtures/runs.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-steps-"));
  // Another run whose file sorts first: the base list used to start with its snapshots.
  await writeMultiTurnRun(dir);
  file = await writeFailedRun(dir, { turns: 6, callsPerTurn: 4 });
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const pair = (page: Page) => {
  const url = new URL(page.url());
  return { base: url.searchParams.get("base_line"), target: url.searchParams.get("line"), baseFile: url.searchParams.get("base_file") };
};

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
]) {
  test(`Shift+← / Shift+→ and the buttons step base and target together (${viewport.width}×${viewport.height})`, async ({ page, guarded }) => {
    await page.setViewportSize(viewport);
    await page.goto(`${server.url}?file=${file}&line=2&view=compare&base_file=${file}&base_line=1`);
    await expect(page.getByTestId("target-label")).toContainText("turn 2");
    const options = page.getByTestId("base-picker").locator("option");
    expect(await options.first().getAttribute("value")).toBe(`1\n${file}`);
    await expect(page.getByTestId("base-picker").locator("optgroup").first()).toHaveAttribute("label", "This run");

    // The root session's snapshots are lines 1, 2, 3, 4, 6, 8 (the reviewer's lines sit between).
    const steps = [
      ["2", "3"],
      ["3", "4"],
      ["4", "6"],
      ["6", "8"],
    ];
    for (const [base, target] of steps) {
      await page.keyboard.press("Shift+ArrowRight");
      await expect.poll(() => pair(page)).toEqual({ base, target, baseFile: file });
      await expect(page.getByTestId("side-labels")).toBeVisible();
      await expect(page.getByText("Base and target are the same snapshot")).toHaveCount(0);
    }
    await expect(page.getByTestId("target-label")).toContainText("turn 6");
    await expect(page.getByTestId("base-label")).toContainText("turn 5");
    await expect(page.getByTestId("next-pair")).toBeDisabled();
    await page.keyboard.press("Shift+ArrowRight");
    await expect(page.getByText("This is the session's last pair of snapshots")).toBeVisible();
    expect(pair(page)).toEqual({ base: "6", target: "8", baseFile: file });
    await guarded.shot(`compare-steps-${viewport.width}`);

    await page.keyboard.press("Shift+ArrowLeft");
    await expect.poll(() => pair(page)).toEqual({ base: "4", target: "6", baseFile: file });
    await page.getByTestId("previous-pair").click();
    await expect.poll(() => pair(page)).toEqual({ base: "3", target: "4", baseFile: file });
    await page.getByTestId("next-pair").click();
    await expect.poll(() => pair(page)).toEqual({ base: "4", target: "6", baseFile: file });
    // A wider pair keeps its width.
    await page.goto(`${server.url}?file=${file}&line=3&view=compare&base_file=${file}&base_line=1`);
    await expect(page.getByTestId("target-label")).toContainText("turn 3");
    await page.keyboard.press("Shift+ArrowRight");
    await expect.poll(() => pair(page)).toEqual({ base: "2", target: "4", baseFile: file });
  });
}

test("← onto the base says so and offers the snapshot before the target as the base", async ({ page }) => {
  await page.goto(`${server.url}?file=${file}&line=3&view=compare&base_file=${file}&base_line=2`);
  await expect(page.getByTestId("target-label")).toContainText("turn 3");
  await page.keyboard.press("ArrowLeft");
  await expect(page.getByText("Base and target are the same snapshot")).toBeVisible();
  await page.getByTestId("compare-previous").focus();
  await page.keyboard.press("Enter");
  await expect.poll(() => pair(page)).toEqual({ base: "1", target: "2", baseFile: file });
  await expect(page.getByText("Base and target are the same snapshot")).toHaveCount(0);
});

test("? lists the pair keys", async ({ page }) => {
  await page.goto(`${server.url}?file=${file}&line=2&view=compare&base_file=${file}&base_line=1`);
  await expect(page.getByTestId("target-label")).toBeVisible();
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help.locator(".help-row", { hasText: "Shift+← / Shift+→" })).toContainText("Previous / next pair");
});

test("the palette finds a turn, names sessions by agent, and compares with the previous turn", async ({ page, guarded }) => {
  await page.goto(`${server.url}?file=${file}&line=8`);
  await expect(page.getByTestId("failure-row").first()).toBeVisible();
  await page.keyboard.press("Control+k");
  const input = page.getByTestId("palette-input");
  await input.fill("");
  const titles = await page.locator(".palette-item").allTextContents();
  for (const old of ["Reload Snapshot", "Next Slice", "Export JSON"]) expect(titles.join("\n")).not.toContain(old);
  // Sessions: by agent and turn, a short id and a local time; no UUID, no ISO time.
  const sessions = page.locator("[role=group][aria-labelledby=palette-group-Sessions] [role=option]");
  await expect(sessions.first()).toContainText("shop-fixer · turn 1");
  for (const text of await sessions.allTextContents()) expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|\d{2}T\d{2}:|\+00:00/);

  await input.fill("turn 4");
  await expect(sessions.first()).toContainText("shop-fixer · turn 4 · turn-4.fs.zip");
  await guarded.shot("palette-turn");
  await page.keyboard.press("Enter");
  await expect.poll(() => pair(page).target).toBe("4");

  await page.keyboard.press("Control+k");
  await input.fill("previous turn");
  await expect(page.locator(".palette-item.is-active")).toContainText("Compare with the Previous Turn");
  await expect(page.locator(".palette-item.is-active")).toContainText("turn 3 · turn-3.fs.zip → turn 4 · turn-4.fs.zip");
  await page.keyboard.press("Enter");
  await expect.poll(() => ({ view: new URL(page.url()).searchParams.get("view"), ...pair(page) })).toEqual({ view: "compare", base: "3", target: "4", baseFile: file });
  await expect(page.getByTestId("base-label")).toContainText("turn 3");
});

test("the palette's actions each do what they say", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(`${server.url}?file=${file}&line=8`);
  await expect(page.getByTestId("failure-row").first()).toBeVisible();
  await page.keyboard.press("Control+k");
  await page.getByTestId("palette-input").fill("copy the slice");
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Copied \d+ items? as JSON/)).toBeVisible();
  expect(new URL(page.url()).searchParams.get("view")).toBe("slices");
  await page.keyboard.press("Control+k");
  await page.getByTestId("palette-input").fill("reload data");
  await page.keyboard.press("Enter");
  await expect(page.getByText("Data reloaded")).toBeVisible();
});
