/**
 * A run of more failures than `/api/run` lists (issue 29, item 5): the failures card counts
 * them all and says "… and N more failures" where the left-out ones would be, with a button
 * that lists the next page from `/api/run/failures`. Done from the keyboard, as a reviewer
 * who does not use the mouse would: Enter on the button, focus goes on to the next one.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeSessionRun } from "../server/failures.test-support.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, test } from "./support/test.js";

const FAILURES = 1_234;
let dir: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-failures-"));
  const calls = Array.from({ length: FAILURES }, (_, n) => ({ tool: "read_file", params: { path: `f-${n}.py` }, message: `No such file or directory: f-${n}.py`, success: false, callId: `call_${n}` }));
  await writeSessionRun(path.join(dir, "failing.jsonl"), "a0000000-0000-4000-8000-00000000e2e1", new Date("2026-11-26T10:00:00Z"), calls);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("the failures the run leaves out are listed from the keyboard, a page at a time", async ({ page, guarded }) => {
  await page.goto(server.url);
  const card = page.getByTestId("failures");
  await expect(card.getByRole("heading", { name: /Failures/ })).toContainText("1,234");
  const rows = card.getByTestId("failure-row");
  await expect(rows).toHaveCount(500);
  await expect(card.getByTestId("omitted-failures")).toContainText("and 734 more failures not listed here (failures 251–984 of 1,234");

  const next = card.getByRole("button", { name: "list the next 500" });
  await next.focus();
  await page.keyboard.press("Enter");
  await expect(rows).toHaveCount(1_000);
  await expect(card.getByTestId("omitted-failures")).toContainText("and 234 more failures not listed here (failures 751–984 of 1,234");
  const last = card.getByRole("button", { name: "list all 234" });
  await expect(last).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(rows).toHaveCount(FAILURES);
  await expect(card.getByTestId("omitted-failures")).toHaveCount(0);
  // In the run's order: the first page's rows follow the first half, the last half ends the card.
  await expect(rows.nth(250)).toContainText("f-250.py");
  await expect(rows.nth(983)).toContainText("f-983.py");
  await expect(rows.nth(FAILURES - 1)).toContainText(`f-${FAILURES - 1}.py`);
  await guarded.shot("failures-paged");
});
