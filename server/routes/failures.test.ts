// The eval's routes on a folder of runs written by our own writer and a copy of WINK's bundles.
import { cp, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFailedRun } from "../../e2e/fixtures/runs.js";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { outcomeText } from "../../shared/viewer/index.js";
import { cleanUp, get, tempDir, testApp } from "../server.test-support.js";

afterEach(cleanUp);

const BUNDLES = "/work/shared/fixtures/wink-bundles";

describe("GET /api/failures", () => {
  it("counts the runs' outcomes, groups their failures and lists a group's occurrences", async () => {
    const dir = await tempDir();
    await writeFailedRun(dir, { turns: 3, callsPerTurn: 4 });
    // Directory mode lists the bundles at the top level.
    for (const folder of ["01-small-success", "02-failed-run"]) for (const name of await readdir(path.join(BUNDLES, folder))) if (name.endsWith(".zip")) await cp(path.join(BUNDLES, folder, name), path.join(dir, name));
    const app = await testApp({ path: dir });
    // The answer is progressive (server/run-index.test.ts): this one is taken once every run is read.
    await app.runIndex.whenComplete();
    const response = await get(app, "/api/failures");
    expect(response.statusCode).toBe(200);
    const summary = response.json();
    expect(summary.index).toEqual({ indexed: summary.runs.length, total: summary.runs.length, complete: true });
    expect(summary.outcomes.runs).toBe(summary.runs.length);
    expect(summary.outcomes.runs).toBeGreaterThanOrEqual(3);
    expect(summary.outcomes.failed).toBeGreaterThanOrEqual(2);
    expect(summary.groups.length).toBeGreaterThan(0);
    const [group] = summary.groups;
    const occurrences = (await get(app, `/api/failures/occurrences?signature=${encodeURIComponent(group.signature)}`)).json();
    expect(occurrences.occurrences).toHaveLength(group.occurrences);
    const runsInGroup = summary.runs.filter((run: { groups: number[] }) => run.groups.includes(0)).length;
    expect(runsInGroup).toBe(group.runs);
    expect((await get(app, "/api/failures/occurrences")).statusCode).toBe(400);
  });

  it("says of each run what the sidebar's badge says (issue 30: the eval said 7 failed where the sidebar said 6)", async () => {
    const app = await testApp({ path: WINK_BUNDLE_FIXTURES, recursive: true });
    await app.runIndex.whenComplete();
    const summary = (await get(app, "/api/failures")).json();
    // The sidebar lists a run as pending until it is indexed: ask until none is.
    let list = (await get(app, "/api/runs")).json();
    for (let tries = 0; list.runs.some((run: { state: string }) => run.state === "pending" || run.state === "slow") && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      list = (await get(app, "/api/runs")).json();
    }
    const sidebar = new Map<string, string>(list.runs.map((run: { source: { path: string }; stats: { outcome: string; failed_calls: number; errors: number } }) => [run.source.path, outcomeText(run.stats)]));
    expect(summary.runs.length).toBeGreaterThan(3);
    for (const run of summary.runs) expect([run.run, outcomeText(run)]).toEqual([run.run, sidebar.get(run.run)]);
    // 02-failed-run: six failed calls and an error.json; the run error is a group of its own, not a seventh failed call.
    const failed = summary.runs.find((run: { run: string }) => run.run.startsWith("02-failed-run/"));
    expect(outcomeText(failed)).toBe("6 failed");
    expect(failed.failures).toBe(7);
  });
});
