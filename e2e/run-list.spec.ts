/**
 * A quiet run list (issue 32 item 8), at 1440×900 and 1024×768, on WINK's real bundles beside
 * a session file and a JSON file that is no session: the JSON document is listed after the
 * runs as "not a session file" (not as a run whose 520 lines did not load); the iterations of
 * one request sit together though another run's time falls between them; runs that all read
 * "demo-agent" show when each ran, whole, first; and a session tree seven sub-agents deep
 * keeps every name readable.
 *
 * The run between the iterations is WINK's small successful bundle (01) under a name that
 * says it ran between them (a bundle's time is read from its name); nothing in it is changed.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { FIXTURE_INDEX, fixtureBundle } from "../shared/debug-bundle/bundle.test-support.js";
import { DEEP_TREE_LEVELS, deepTreeName, writeDeepTreeRun } from "./fixtures/deep-tree-run.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { REVIEW_SIZES, expect, test } from "./support/test.js";

const ITERATIONS = FIXTURE_INDEX.filter((fixture) => fixture.scenario === "06-iterations").sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0));
const FIRST = ITERATIONS[0] ?? fixtureBundle("06-iterations");
const THIRD = ITERATIONS[2] ?? fixtureBundle("06-iterations");
const SMALL = fixtureBundle("01-small-success");
/** 01, named as if it ran at 05:45:53, between iterations 1 (05:45:52) and 3 (05:45:54). */
const BETWEEN = `${path.basename(SMALL.file).slice(0, 36)}_20261126_054553.zip`;

let dir: string;
let tree: string;
let server: RunningServer;

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-run-list-"));
  for (const fixture of [FIRST, THIRD]) await cp(path.join(WINK_BUNDLE_FIXTURES, fixture.file), path.join(dir, path.basename(fixture.file)));
  await cp(path.join(WINK_BUNDLE_FIXTURES, SMALL.file), path.join(dir, BETWEEN));
  await cp(path.join(WINK_BUNDLE_FIXTURES, "index.json"), path.join(dir, "truth.json"));
  tree = await writeDeepTreeRun(dir);
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const size of REVIEW_SIZES) {
  test(`at ${size.width}×${size.height} the run list is quiet, grouped and readable`, async ({ page, guarded }) => {
    await page.setViewportSize(size);
    await page.goto(`${server.url}?view=run`);
    const rows = page.getByTestId("run-row");
    await expect(rows).toHaveCount(4);
    // The JSON document: after the runs, said to be no session, with no "did not load".
    const other = page.getByTestId("not-session");
    await expect(other).toHaveText("truth.json · not a session file");
    await expect(page.getByTestId("run-list")).not.toContainText("did not load");
    expect(await other.evaluate((element) => element.parentElement?.lastElementChild === element)).toBe(true);

    // Newest first, but the iterations of one request together (the deep tree is the newest file).
    await expect(page.getByTestId("run-group-note")).toHaveCount(2);
    const order = await rows.evaluateAll((links) => links.map((link) => link.getAttribute("title")));
    expect(order).toEqual([tree, path.basename(THIRD.file), path.basename(FIRST.file), BETWEEN]);

    // Three runs titled alike: each meta line starts with when it ran, drawn whole.
    const bundles = rows.filter({ hasText: "demo-agent" });
    await expect(bundles).toHaveCount(3);
    const metas = await bundles.getByTestId("run-meta").evaluateAll((elements) =>
      elements.map((element) => {
        const text = element.textContent ?? "";
        const time = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?/.exec(text)?.[0] ?? "";
        const node = element.firstChild;
        const range = element.ownerDocument.createRange();
        if (node !== null && time !== "") {
          range.setStart(node, 0);
          range.setEnd(node, time.length);
        }
        return { text, time, drawn: time !== "" && range.getBoundingClientRect().right <= element.getBoundingClientRect().right + 0.5 };
      }),
    );
    for (const meta of metas) expect(meta, meta.text).toMatchObject({ drawn: true });
    expect(new Set(metas.map((meta) => meta.time)).size).toBe(3);

    // Seven sub-agents deep, every name whole inside the sidebar.
    const sidebar = await page.locator(".runs-panel").boundingBox();
    const names = page.locator("[data-testid=session-row] .session-name");
    await expect(names).toHaveCount(DEEP_TREE_LEVELS + 1);
    const drawn = await names.evaluateAll((elements) => elements.map((element) => ({ text: element.textContent ?? "", whole: element.scrollWidth <= element.clientWidth, right: element.getBoundingClientRect().right })));
    expect(drawn.map((name) => name.text)).toEqual(Array.from({ length: DEEP_TREE_LEVELS + 1 }, (_, level) => deepTreeName(level)));
    for (const name of drawn) {
      expect(name.whole, name.text).toBe(true);
      expect(name.right, name.text).toBeLessThanOrEqual((sidebar?.x ?? 0) + (sidebar?.width ?? 0));
    }
    await guarded.shot(`run-list-${size.width}`);
    expect(guarded.problems).toEqual([]);
  });
}
