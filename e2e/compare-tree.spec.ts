/**
 * The compare view's tree of changed files keeps long names readable (issue 32 item 2): at
 * 1440×900 and 1024×768 a long file name deep in a package is shown whole (it wraps rather
 * than being cut to `vfs_…`), and a rename's long source path keeps its file name visible,
 * the path cut in the middle, the full path in its title.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { FAILED_RUN_DEEP_RENAME, writeFailedRun } from "./fixtures/runs.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { REVIEW_SIZES, expect, test } from "./support/test.js";

let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-tree-"));
  await writeFailedRun(dir, { deepRename: true });
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const size of REVIEW_SIZES) {
  test(`at ${size.width}×${size.height} a long file name and a rename's source stay readable in the compare tree`, async ({ page, guarded }) => {
    await page.setViewportSize(size);
    await page.goto(server.url);
    await page.locator("[data-testid=run-overview]").first().waitFor();
    await page.getByRole("link", { name: "diff" }).nth(1).click(); // turn 3's diff, from the overview
    const row = page.locator(`[data-testid=changed-file][data-path="${FAILED_RUN_DEEP_RENAME.to}"]`);
    await expect(row).toBeVisible();
    const name = row.locator(".change-name");
    await expect(name).toContainText(path.posix.basename(FAILED_RUN_DEEP_RENAME.to));
    // Not clipped: the name's box holds all of its text.
    const clip = await name.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
    expect(clip.scroll).toBeLessThanOrEqual(clip.client);
    // The rename's source: its file name is drawn inside the row, the full path in the title.
    const from = row.getByTestId("moved-from");
    await expect(from).toHaveAttribute("title", FAILED_RUN_DEEP_RENAME.from);
    const base = from.locator(".cut-tail");
    await expect(base).toHaveText(`/${path.posix.basename(FAILED_RUN_DEEP_RENAME.from)}`);
    await expect(from).toHaveText(`from ${FAILED_RUN_DEEP_RENAME.from}`);
    const [baseBox, rowBox] = await Promise.all([base.boundingBox(), row.boundingBox()]);
    expect(baseBox).not.toBeNull();
    expect(rowBox).not.toBeNull();
    if (baseBox !== null && rowBox !== null) expect(baseBox.x + baseBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
    expect(await base.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    await guarded.shot(`compare-tree-${size.width}`);
    expect(guarded.problems).toEqual([]);
  });
}
