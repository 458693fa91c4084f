/**
 * A failed WINK bundle says the same thing everywhere (issue 32 item 6), at 1440×900 and
 * 1024×768: a folder holding a run that failed (`PromptEvaluationError`, no call of it
 * failed) and a newer successful run opens on the failed one; its session's badge does not
 * say "ok" under the red error, and the failures card says the run failed and none of its
 * calls did.
 *
 * The failed run is WINK's real failed bundle (02) without its transcript and its logs (which
 * carry the transcript too), so nothing records a failed call: its manifest is rewritten to
 * match (members and checksums), nothing else.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { FIXTURE_INDEX, fixtureBundle } from "../shared/debug-bundle/bundle.test-support.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { REVIEW_SIZES, expect, test } from "./support/test.js";

const FAILED = fixtureBundle("02-failed-run");
/** A newer run of the folder that succeeded with no failed call (iteration 1 of 06). */
const NEWER = FIXTURE_INDEX.find((fixture) => fixture.scenario === "06-iterations" && fixture.iteration === 1) ?? FAILED;

let dir: string;
let server: RunningServer;

/** Copies a bundle without `members`, its manifest's file list and checksums rewritten to match (Python's zipfile). */
async function withoutMembers(from: string, to: string, members: readonly string[]): Promise<void> {
  const script = [
    "import json, sys, zipfile",
    "src, dst, drop = sys.argv[1], sys.argv[2], sys.argv[3:]",
    "with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as zout:",
    "    for info in zin.infolist():",
    "        if info.filename.removeprefix('debug_bundle/') in drop: continue",
    "        data = zin.read(info)",
    "        if info.filename == 'debug_bundle/manifest.json':",
    "            manifest = json.loads(data)",
    "            manifest['files'] = [f for f in manifest['files'] if f not in drop]",
    "            for f in drop: manifest['integrity']['checksums'].pop(f, None)",
    "            data = json.dumps(manifest, indent=2).encode()",
    "        zout.writestr(info, data)",
  ].join("\n");
  await promisify(execFile)("python3", ["-c", script, from, to, ...members]);
}

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-failed-bundle-"));
  await withoutMembers(path.join(WINK_BUNDLE_FIXTURES, FAILED.file), path.join(dir, path.basename(FAILED.file)), ["transcript.jsonl", "logs/app.jsonl"]);
  await cp(path.join(WINK_BUNDLE_FIXTURES, NEWER.file), path.join(dir, path.basename(NEWER.file)));
  server = await startServer(dir);
});
test.afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const size of REVIEW_SIZES) {
  test(`at ${size.width}×${size.height} the run view opens on the folder's failed run, which nowhere says ok`, async ({ page, guarded }) => {
    expect(NEWER.file.slice(-19) > FAILED.file.slice(-19)).toBe(true);
    await page.setViewportSize(size);
    // Named: a folder of more than one run lands on the eval.
    await page.goto(`${server.url}?view=run`);
    // The newer run is listed first, but the failed one is opened.
    const runs = page.getByTestId("run-row");
    await expect(runs).toHaveCount(2);
    await expect(runs.first()).toHaveAttribute("href", new RegExp(encodeURIComponent(path.basename(NEWER.file)).replace(/\./g, "\\.")));
    await expect(page.getByTestId("run-error")).toContainText(`${FAILED.error?.type}: ${FAILED.error?.message}`);
    await expect(page.getByTestId("run-outcome")).not.toHaveText("ok");
    // The open run's session: its badge tells of the error too.
    const session = page.getByTestId("session-item").first();
    await expect(session).toBeVisible();
    const badge = session.locator(".session-head .status");
    await expect(badge).toHaveText("error");
    await expect(badge).toHaveClass(/status-fail/);
    // The failures card does not contradict the error above it.
    const overview = page.getByTestId("run-overview");
    await expect(overview).not.toContainText("No failures");
    await expect(overview).toContainText("No failed calls");
    await expect(overview).toContainText(`The run failed with ${FAILED.error?.type} (above); none of its tool calls failed.`);
    await guarded.shot(`failed-bundle-${size.width}`);
    expect(guarded.problems).toEqual([]);
  });
}
