/**
 * The timeline's rows stay readable with the event panel open (issue 32 item 1), at 1440×900
 * and 1024×768: each row shows its tool and its key argument's file name (the path cut in the
 * middle, so nine `write_file` rows of one turn say which file each wrote), beside the panel
 * rather than under it; a turn's header stays on one line; and the row selected from the
 * keyboard is scrolled so the call after it is on screen too.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Locator } from "@playwright/test";
import { LONG_PATHS_WRITES, writeLongPathsRun } from "./fixtures/long-paths-run.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { REVIEW_SIZES, expect, test } from "./support/test.js";

let dir: string;
let file: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-rows-"));
  file = await writeLongPathsRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Turn 1: its prompt (event 0), nine `read_file`, then the nine `write_file` (events 10–18). */
const FIRST_WRITE = 1 + LONG_PATHS_WRITES.length;

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found ?? { x: 0, y: 0, width: 0, height: 0 };
}

/** Whether the element's text is drawn whole (not cut by its own box). */
function whole(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element.scrollWidth <= element.clientWidth);
}

for (const size of REVIEW_SIZES) {
  test(`at ${size.width}×${size.height} the rows keep the tool and the file name beside the open event panel`, async ({ page, guarded }) => {
    await page.setViewportSize(size);
    await page.goto(`${server.url}?file=${file}&line=2&view=timeline&event=${FIRST_WRITE + 4}`);
    const detail = page.getByTestId("event-detail");
    await expect(detail).toBeVisible();
    const detailBox = await box(detail);
    const names = new Set<string>();
    for (const [offset, written] of LONG_PATHS_WRITES.entries()) {
      const row = page.locator(`[data-testid=timeline-event][data-event="${FIRST_WRITE + offset}"]`);
      await row.scrollIntoViewIfNeeded();
      const tool = row.locator(".event-name");
      await expect(tool).toHaveText("write_file");
      expect(await whole(tool)).toBe(true);
      // The file name is drawn whole, inside the row, left of the event panel.
      const tail = row.locator(".cut-tail");
      await expect(tail).toHaveText(`/${path.posix.basename(written)}`);
      expect(await whole(tail)).toBe(true);
      const [tailBox, rowBox] = [await box(tail), await box(row)];
      expect(tailBox.width).toBeGreaterThan(0);
      expect(tailBox.x + tailBox.width).toBeLessThanOrEqual(Math.min(rowBox.x + rowBox.width, detailBox.x) + 0.5);
      // Its directories are there too, cut before the file name is.
      await expect(row.locator(".cut-head")).toHaveText(path.posix.dirname(written));
      names.add((await tail.textContent()) ?? "");
    }
    expect(names.size).toBe(LONG_PATHS_WRITES.length);

    // The turn's header is one line: none of its parts wraps. The list is virtualised: back at
    // its top, the header is drawn again (a shorter window leaves it out once scrolled past).
    await page.getByTestId("timeline-events").evaluate((element) => {
      element.scrollTop = 0;
    });
    const header = page.locator("[data-testid=turn-row][data-turn='1']");
    await header.scrollIntoViewIfNeeded();
    const headerBox = await box(header);
    const parts = await header.locator(":scope > *").evaluateAll((elements) => elements.map((element) => ({ text: element.textContent ?? "", lines: element.getClientRects().length, height: element.getBoundingClientRect().height })));
    for (const part of parts) {
      expect(part.lines, part.text).toBe(1);
      expect(part.height, part.text).toBeLessThan(headerBox.height);
    }
    expect(parts.map((part) => part.text).join(" ")).toMatch(/26 events · 24 calls/);
    await guarded.shot(`timeline-rows-${size.width}`);
    expect(guarded.problems).toEqual([]);
  });

  test(`at ${size.width}×${size.height} the row selected with J keeps the next call on screen`, async ({ page, guarded }) => {
    await page.setViewportSize(size);
    await page.goto(`${server.url}?file=${file}&line=2&view=timeline&event=0`);
    await expect(page.getByTestId("event-detail")).toBeVisible();
    const scroller = page.getByTestId("timeline-events");
    for (let selected = 1; selected <= 24; selected++) {
      await page.keyboard.press("j");
      await expect(page).toHaveURL(new RegExp(`event=${selected}(&|$)`));
      const current = page.locator(`[data-testid=timeline-event][data-event="${selected}"]`);
      await expect(current).toHaveAttribute("aria-current", "true");
      const next = page.locator(`[data-testid=timeline-event][data-event="${selected + 1}"]`);
      // The list has settled once the selected row is drawn inside it; then the next call must be too.
      await expect(async () => {
        const [view, row] = [await box(scroller), await box(next)];
        expect(row.y).toBeGreaterThanOrEqual(view.y - 0.5);
        expect(row.y + row.height, `the call after event ${selected}`).toBeLessThanOrEqual(view.y + view.height + 0.5);
      }).toPass({ timeout: 2000 });
    }
    await guarded.shot(`timeline-next-visible-${size.width}`);
    expect(guarded.problems).toEqual([]);
  });
}
