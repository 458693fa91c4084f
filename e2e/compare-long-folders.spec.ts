/**
 * The compare view's tree at 1024×768 on a run that rewrites nine files of one deep package
 * (`weakincentives/contrib/tools/filesystem/runtime`): the folder's row keeps one line, its
 * path cut in the middle (its last folder stays readable), the full path in its title and
 * text. It wrapped anywhere inside words before, a three-line row of `weakincentives/contr` /
 * `ib/tools/filesystem/r` / `untime` above the files.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LONG_PATHS_WRITES, writeLongPathsRun } from "./fixtures/long-paths-run.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

const FOLDER = path.posix.dirname(LONG_PATHS_WRITES[0] ?? "");

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-long-folders-"));
  file = await writeLongPathsRun(dir, { rewrite: true });
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("at 1024×768 a long folder path in the compare tree keeps one line, its full path at hand", async ({ page, guarded }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  const q = encodeURIComponent;
  await page.goto(`${server.url}?file=${q(file)}&line=2&view=compare&base_file=${q(file)}&base_line=1`);
  await expect(page.getByTestId("changed-file")).toHaveCount(LONG_PATHS_WRITES.length);
  const folder = page.locator(".change-dir > details > summary");
  await expect(folder).toHaveCount(1);
  // The full path: in the title (hover) and in the text (what a screen reader reads).
  await expect(folder).toHaveAttribute("title", FOLDER);
  await expect(folder).toContainText(FOLDER);
  // One line: no taller than a file's row, and its text one line of its font.
  const name = folder.locator(".mono");
  const [folderBox, nameBox, rowBox] = await Promise.all([folder.boundingBox(), name.boundingBox(), page.getByTestId("changed-file").first().boundingBox()]);
  expect(folderBox).not.toBeNull();
  expect(nameBox).not.toBeNull();
  expect(rowBox).not.toBeNull();
  const lineHeight = await page.evaluate<number>(`(() => { const s = getComputedStyle(document.querySelector(".change-dir > details > summary .mono")); return s.lineHeight === "normal" ? parseFloat(s.fontSize) * 1.3 : parseFloat(s.lineHeight); })()`);
  if (folderBox !== null && nameBox !== null && rowBox !== null) {
    expect(nameBox.height).toBeLessThanOrEqual(lineHeight + 1);
    expect(folderBox.height).toBeLessThanOrEqual(rowBox.height + 1);
  }
  // The last folder is drawn whole inside the row; the cut is in the folders before it.
  const tail = folder.locator(".cut-tail");
  await expect(tail).toHaveText(`/${path.posix.basename(FOLDER)}`);
  expect(await tail.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  const tailBox = await tail.boundingBox();
  if (tailBox !== null && folderBox !== null) expect(tailBox.x + tailBox.width).toBeLessThanOrEqual(folderBox.x + folderBox.width + 0.5);
  await guarded.shot("compare-long-folders-1024");
});
