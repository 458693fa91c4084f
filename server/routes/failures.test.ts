// The eval's routes on a folder of runs written by our own writer and a copy of WINK's bundles.
import { cp, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFailedRun } from "../../e2e/fixtures/runs.js";
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
    const response = await get(app, "/api/failures");
    expect(response.statusCode).toBe(200);
    const summary = response.json();
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
});
