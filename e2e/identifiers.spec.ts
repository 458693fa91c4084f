/**
 * Full identifiers without a click (issue 32 item 10), as WINK's viewer shows them: the
 * snapshot's session id, file, schema and every tag on a line of selectable text under the
 * context bar (they were behind "Details", and the id was cut at 1024 px), the id one click
 * from the clipboard; the slices view names each slice's `module:Qualname` type in full.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FAILED_RUN_ROOT, PLAN, writeFailedRun } from "./fixtures/runs.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-ids-"));
  file = await writeFailedRun(dir, { turns: 3, callsPerTurn: 4 });
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
]) {
  for (const theme of ["light", "dark"] as const) {
    test(`the session id, file and tags are on screen in full, as selectable text (${viewport.width}×${viewport.height}, ${theme})`, async ({ page, context, guarded }) => {
      await context.grantPermissions(["clipboard-read", "clipboard-write"]);
      await page.setViewportSize(viewport);
      await page.addInitScript(`localStorage.setItem("wink-theme", ${JSON.stringify(theme)})`);
      await page.goto(`${server.url}?file=${file}&line=3&view=slices&slice=${encodeURIComponent(PLAN)}`);
      const ids = page.getByTestId("snapshot-ids");
      const id = page.getByTestId("snapshot-session");
      await expect(id).toHaveText(FAILED_RUN_ROOT);
      await expect(id).toBeInViewport({ ratio: 1 });
      // Not cut: the text fits its box, and nothing hides it behind a click.
      expect(await page.evaluate<boolean>(`(() => { const node = document.querySelector("[data-testid=snapshot-session]"); return node.scrollWidth <= node.clientWidth + 1 && getComputedStyle(node).userSelect !== "none"; })()`)).toBe(true);
      await expect(page.getByRole("button", { name: "Details" })).toHaveCount(0);
      // The file is named after the session (as WINK writes it): the id says it all.
      expect(file).toBe(`${FAILED_RUN_ROOT}.jsonl`);
      await expect(ids).not.toContainText("file");
      // On one line at both widths: the diff keeps its height.
      expect((await ids.boundingBox())?.height ?? 100).toBeLessThan(30);
      await expect(ids.getByTestId("snapshot-tag")).toHaveText(["agent: shop-fixer", "env: ci"]);
      // The slice's full type, module:Qualname.
      await expect(page.locator(".pill", { hasText: `slice: ${PLAN}` })).toBeVisible();
      // Copied with one click (reached by Tab from the id's line).
      await ids.getByRole("button", { name: "Copy the session id" }).focus();
      await page.keyboard.press("Enter");
      await expect(page.getByText("Copied the session id")).toBeVisible();
      expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(FAILED_RUN_ROOT);
      for (const violation of await seriousViolations(page)) expect(violation).toBe("");
      await guarded.shot(`identifiers-${viewport.width}-${theme}`);
    });
  }
}
