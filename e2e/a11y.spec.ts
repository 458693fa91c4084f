/**
 * axe-core on every view, in light and dark: no serious or critical violation. Views are
 * opened as deep links on the failed-run fixture (run, timeline with a failure selected,
 * slices, files with a file open, compare with a rename, search with hits), plus the
 * palette and the help overlay.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FAILED_RUN_RENAME, writeFailedRun } from "./fixtures/runs.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-a11y-"));
  file = await writeFailedRun(dir, { turns: 6, callsPerTurn: 20 });
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const VIEWS: { name: string; query: (file: string) => string; ready: string }[] = [
  { name: "run", query: (f) => `?file=${f}`, ready: "[data-testid=failure-row]" },
  { name: "timeline", query: (f) => `?file=${f}&line=8&view=timeline&event=60`, ready: "[data-testid=event-detail]" },
  { name: "timeline-undetailed", query: (f) => `?file=${f}&line=8&view=timeline`, ready: "[data-testid=turn-row]" },
  { name: "slices", query: (f) => `?file=${f}&line=8&view=slices`, ready: "[data-testid=item-card]" },
  { name: "files", query: (f) => `?file=${f}&line=3&view=files&path=${encodeURIComponent(FAILED_RUN_RENAME.to)}`, ready: "[data-testid=code-view] .cm-content" },
  { name: "compare", query: (f) => `?file=${f}&line=3&view=compare&base_file=${f}&base_line=2&path=${encodeURIComponent(FAILED_RUN_RENAME.to)}`, ready: "[data-testid=merge-diff] .cm-mergeView" },
  { name: "compare-unified", query: (f) => `?file=${f}&line=3&view=compare&base_file=${f}&base_line=2&layout=unified&path=${encodeURIComponent(FAILED_RUN_RENAME.to)}`, ready: "[data-testid=hunk-row]" },
  { name: "search", query: (f) => `?file=${f}&line=8&view=search&q=settings`, ready: "[data-testid=search-group]" },
];

for (const theme of ["light", "dark"] as const) {
  test(`axe finds nothing serious on any view (${theme})`, async ({ page, guarded }) => {
    test.setTimeout(240_000);
    await page.addInitScript(`localStorage.setItem("wink-theme", ${JSON.stringify(theme)})`);
    const found: string[] = [];
    for (const view of VIEWS) {
      await page.goto(`${server.url}${view.query(file)}`);
      await page.locator(view.ready).first().waitFor();
      await page.waitForTimeout(300);
      for (const violation of await seriousViolations(page)) found.push(`${view.name}: ${violation}`);
      await guarded.shot(`a11y-${view.name}-${theme}`);
    }
    await page.keyboard.press("Control+k");
    await page.getByTestId("palette-input").fill("turn");
    for (const violation of await seriousViolations(page)) found.push(`palette: ${violation}`);
    await page.keyboard.press("Escape");
    await page.keyboard.press("?");
    await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    for (const violation of await seriousViolations(page)) found.push(`help: ${violation}`);
    expect(found).toEqual([]);
  });
}

test("keyboard focus is visible and the views are reachable by keyboard", async ({ page }) => {
  await page.goto(`${server.url}?file=${file}`);
  await page.getByTestId("failure-row").first().waitFor();
  // The skip link comes first, then the header's controls.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to the view" })).toBeFocused();
  const shadow = await page.evaluate("getComputedStyle(document.activeElement).boxShadow + getComputedStyle(document.activeElement).outlineStyle");
  expect(shadow).not.toBe("nonenone");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  const focused = await page.evaluate("document.activeElement.textContent");
  expect(String(focused)).not.toBe("");
  for (const [key, testId] of [
    ["2", "turn-row"],
    ["4", "file-tree"],
    ["6", "search-input"],
    ["1", "failure-row"],
  ] as const) {
    await page.keyboard.press("Escape");
    await page.locator("body").press(key);
    await expect(page.getByTestId(testId).first()).toBeVisible();
  }
});
