/**
 * axe-core in the states a review reaches, not only the views' first screens (issue 32 item
 * 9): Files with changes since a base (modified, added and struck-through deleted rows, their
 * badges) with a commented file open, the compare view on a rename (its source line, the
 * similarity badge, the cut path) with comments in the changed lines, a slice diff that
 * overflows at 1024 px, real WINK session files with real comments, two real bundles compared
 * and the eval view over real bundles. Light and dark, at 1440×900 and 1024×768: none of them
 * may have a serious or critical violation. Dark mode drew comments at 3.4-4:1 and a few
 * syntax colours below 4:1 on the diff's word highlights; the eval view's "passed" was a
 * light-theme green on dark; a slice diff could not be scrolled by keyboard. In light mode
 * the muted grey (and comments, which share it) was 4.18:1 inside a text selection.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../fixtures/paths.js";
import { FIXTURE_INDEX } from "../shared/debug-bundle/bundle.test-support.js";
import { COMMENTED_RUN_RENAME, writeCommentedRun } from "./fixtures/runs.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { REVIEW_SIZES, expect, test } from "./support/test.js";

/** The real WINK session tree whose lines carry a VirtualFileSystem of real source files. */
const WINK_TREE = "db5c4ea2-559a-52c5-8313-741e72978682.jsonl";
const ITERATIONS = FIXTURE_INDEX.filter((fixture) => fixture.scenario === "06-iterations").sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0));
const [ITERATION_1, , ITERATION_3] = ITERATIONS;

let dir: string;
let file: string;
let ours: RunningServer;
let wink: RunningServer;
let bundles: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-a11y-states-"));
  file = await writeCommentedRun(dir);
  [ours, wink, bundles] = await Promise.all([startServer(dir), startServer(WINK_FIXTURES), startServer(WINK_BUNDLE_FIXTURES, ["-r"])]);
});
test.afterAll(async () => {
  await Promise.all([ours.stop(), wink.stop(), bundles.stop()]);
  await rm(dir, { recursive: true, force: true });
});

const q = encodeURIComponent;

interface State {
  readonly name: string;
  readonly url: () => string;
  /** What must be on screen before axe runs: the state itself, not just the view. */
  readonly ready: string;
}

const STATES: readonly State[] = [
  { name: "files since a base, a modified commented file open", url: () => `${ours.url}?file=${q(file)}&line=2&view=files&path=src%2Fcart.py`, ready: "[data-testid=tree-row].change-deleted" },
  { name: "files since a base, a deleted file open", url: () => `${ours.url}?file=${q(file)}&line=2&view=files&path=notes%2Fold-plan.txt`, ready: "[data-testid=tree-row].change-deleted" },
  { name: "compare on a rename", url: () => `${ours.url}?file=${q(file)}&line=2&view=compare&base_file=${q(file)}&base_line=1&path=${q(COMMENTED_RUN_RENAME.to)}`, ready: "[data-testid=merge-diff] .cm-mergeView .cm-changedText" },
  { name: "compare on a rename, unified", url: () => `${ours.url}?file=${q(file)}&line=2&view=compare&base_file=${q(file)}&base_line=1&layout=unified&path=${q(COMMENTED_RUN_RENAME.to)}`, ready: "[data-testid=merge-diff] .cm-deletedChunk, [data-testid=hunk-row]" },
  { name: "compare on a modified commented file", url: () => `${ours.url}?file=${q(file)}&line=2&view=compare&base_file=${q(file)}&base_line=1&path=src%2Fcart.py`, ready: "[data-testid=merge-diff] .cm-mergeView .cm-changedText" },
  { name: "WINK session file, a commented source file", url: () => `${wink.url}?file=${q(WINK_TREE)}&line=1&view=files&path=sunfish%2Fsunfish.py`, ready: "[data-testid=code-view] .cm-content" },
  { name: "WINK session file, a slice diff", url: () => `${wink.url}?file=${q(WINK_TREE)}&line=4&view=compare&base_file=${q(WINK_TREE)}&base_line=1`, ready: "[data-testid=hunk-row]" },
  { name: "two bundles compared, a Python file", url: () => `${bundles.url}?file=${q(ITERATION_3?.file ?? "")}&line=2&view=compare&base_file=${q(ITERATION_1?.file ?? "")}&base_line=2&path=src%2Finventory%2Fstock.py`, ready: "[data-testid=bundle-compare]" },
  { name: "eval over real bundles", url: () => `${bundles.url}?view=eval`, ready: "[data-testid=eval-run]" },
];

for (const theme of ["light", "dark"] as const) {
  for (const size of REVIEW_SIZES) {
    test(`axe finds nothing serious in the review's states (${theme}, ${size.width}×${size.height})`, async ({ page, guarded }) => {
      test.setTimeout(240_000);
      await page.setViewportSize(size);
      await page.addInitScript(`localStorage.setItem("wink-theme", ${JSON.stringify(theme)})`);
      const found: string[] = [];
      for (const state of STATES) {
        await page.goto(state.url());
        await page.locator(state.ready).first().waitFor({ timeout: 30_000 });
        await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
        // The diff and the tree settle (syntax highlighting is applied after the first paint).
        await page.waitForTimeout(500);
        for (const violation of await seriousViolations(page)) found.push(`${state.name}: ${violation}`);
      }
      await guarded.shot(`a11y-states-last-${theme}-${size.width}`);
      expect(found).toEqual([]);
    });
  }
}

test("the compare rename view shows what axe was run on: the source line, the similarity, the cut path", async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto(`${ours.url}?file=${q(file)}&line=2&view=compare&base_file=${q(file)}&base_line=1&path=${q(COMMENTED_RUN_RENAME.to)}`);
  const row = page.locator(`[data-testid=changed-file][data-path="${COMMENTED_RUN_RENAME.to}"]`);
  await expect(row).toContainText("%");
  await expect(row).toContainText("from");
  await expect(page.locator("[data-testid=merge-diff] .cm-line", { hasText: "# Moved to billing in turn 2." }).first()).toBeVisible();
});

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r = 0, g = 0, bl = 0] = (colour.match(/[\d.]+/g) ?? []).map(Number).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return ((x ?? 0) + 0.05) / ((y ?? 0) + 0.05);
}

test("light, the system's choice: a selected tree row passes axe, and muted text and comments inside a selection keep 4.5:1", async ({ page, guarded }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(`${wink.url}?file=${q(WINK_TREE)}&line=1&view=files&path=sunfish%2Fsunfish.py`);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await expect(page.locator("[data-testid=tree-row][aria-selected=true]")).toHaveCount(1);
  const comment = page.locator("[data-testid=code-view] .cm-line", { hasText: "#" }).first();
  await comment.click();
  await page.keyboard.press("Home");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Shift+ArrowDown");
  await page.locator("[data-testid=code-view] .cm-selectionBackground").first().waitFor();
  await page.waitForTimeout(300);
  expect(await seriousViolations(page)).toEqual([]);
  // axe does not see CodeMirror's selection layer: the colours are read as drawn. Comments are the muted colour (--syn-comment).
  const colours = await page.evaluate<{ selection: string; comment: string; muted: string }>(`(() => {
    const comment = [...document.querySelectorAll("[data-testid=code-view] .cm-line span")].find((span) => span.textContent.startsWith("#"));
    return {
      selection: getComputedStyle(document.querySelector("[data-testid=code-view] .cm-selectionBackground")).backgroundColor,
      comment: comment === undefined ? "" : getComputedStyle(comment).color,
      muted: getComputedStyle(document.querySelector(".muted") ?? document.body).color,
    };
  })()`);
  expect(colours.comment).not.toBe("");
  expect(contrast(colours.comment, colours.selection), `comment ${colours.comment} on the selection ${colours.selection}`).toBeGreaterThanOrEqual(4.5);
  expect(contrast(colours.muted, colours.selection), `muted ${colours.muted} on the selection ${colours.selection}`).toBeGreaterThanOrEqual(4.5);
  await guarded.shot("a11y-light-selection-1024");
});
