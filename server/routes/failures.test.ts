// The eval's routes on a folder of runs written by our own writer and a copy of WINK's bundles.
import { cp, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFailedRun } from "../../e2e/fixtures/runs.js";
import { WINK_BUNDLE_FIXTURES } from "../../fixtures/paths.js";
import { EVAL_RUN_PAGE, outcomeText } from "../../shared/viewer/index.js";
import { EVAL_RUN_PAGE_LIMIT } from "../../shared/viewer/routes/requests.js";
import { evalDay, failedCommand, writeMixedEval, writeSessionRun } from "../failures.test-support.js";
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
    // The first answer carries no run: they are paged (/api/failures/runs, below).
    expect(summary).not.toHaveProperty("runs");
    const runs = (await get(app, "/api/failures/runs?limit=1000")).json();
    expect(runs).toMatchObject({ offset: 0, total: summary.outcomes.runs });
    expect(runs.runs).toHaveLength(summary.outcomes.runs);
    expect(summary.index).toEqual({ indexed: runs.total, total: runs.total, complete: true });
    expect(summary.outcomes.runs).toBeGreaterThanOrEqual(3);
    expect(summary.outcomes.failed).toBeGreaterThanOrEqual(2);
    expect(summary.groups.length).toBeGreaterThan(0);
    const [group] = summary.groups;
    const occurrences = (await get(app, `/api/failures/occurrences?signature=${encodeURIComponent(group.signature)}`)).json();
    expect(occurrences.occurrences).toHaveLength(group.occurrences);
    const runsInGroup = runs.runs.filter((run: { groups: number[] }) => run.groups.includes(0)).length;
    expect(runsInGroup).toBe(group.runs);
    expect((await get(app, `/api/failures/runs?group=${encodeURIComponent(group.signature)}`)).json().total).toBe(group.runs);
    expect((await get(app, "/api/failures/occurrences")).statusCode).toBe(400);
  });

  it("says of each run what the sidebar's badge says (issue 30: the eval said 7 failed where the sidebar said 6)", async () => {
    const app = await testApp({ path: WINK_BUNDLE_FIXTURES, recursive: true });
    await app.runIndex.whenComplete();
    const summary = (await get(app, "/api/failures/runs?limit=1000")).json();
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

describe("GET /api/failures/runs", () => {
  it("pages the runs the filters keep, newest first, each failed one with a passing run of its sample", async () => {
    const dir = await tempDir();
    await writeMixedEval(dir);
    // A failed attempt at calc/req-02, whose run-03 passed.
    await writeSessionRun(path.join(dir, "calc", "req-02", "run-06.jsonl"), "a0000000-0000-4000-8000-000000000006", evalDay("2026-11-23"), [failedCommand(1, "call_0006")]);
    const app = await testApp({ path: dir, recursive: true });
    await app.runIndex.whenComplete();
    const all = (await get(app, "/api/failures/runs?limit=1000")).json();
    expect(all.total).toBeGreaterThan(4);
    const times = all.runs.map((run: { ended_at: string | null; started_at: string | null; modified_at: string }) => Date.parse(run.ended_at ?? run.started_at ?? run.modified_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Pages from an offset, as many as asked, counting them all.
    const page = (await get(app, "/api/failures/runs?offset=2&limit=2")).json();
    expect(page).toEqual({ offset: 2, total: all.total, runs: all.runs.slice(2, 4) });
    expect((await get(app, "/api/failures/runs")).json().runs).toHaveLength(Math.min(all.total, EVAL_RUN_PAGE));
    // The filters of the page's URL.
    const failed = (await get(app, "/api/failures/runs?outcome=failed&limit=1000")).json();
    expect(failed.total).toBe(all.runs.filter((run: { outcome: string }) => run.outcome === "failed").length);
    expect(failed.runs.every((run: { outcome: string }) => run.outcome === "failed")).toBe(true);
    const named = all.runs[1].run as string;
    expect((await get(app, `/api/failures/runs?q=${encodeURIComponent(named.toUpperCase())}`)).json().runs.map((run: { run: string }) => run.run)).toEqual([named]);
    expect((await get(app, "/api/failures/runs?since=2100-01-01")).json()).toEqual({ offset: 0, total: 0, runs: [] });
    // A failed run of a sample with a passing run is given it to compare with.
    const withPeer = failed.runs.find((run: { run: string }) => run.run === "calc/req-02/run-06.jsonl");
    expect(withPeer.peer).toBe("calc/req-02/run-03.jsonl");
    expect(failed.runs.filter((run: { peer: string | null }) => run.peer !== null)).toEqual([withPeer]);
    const peer = all.runs.find((run: { run: string }) => run.run === withPeer.peer);
    expect(peer).toMatchObject({ outcome: "ok", sample: withPeer.sample, target: withPeer.target });
    for (const bad of ["limit=0", `limit=${EVAL_RUN_PAGE_LIMIT + 1}`, "offset=-1", "outcome=maybe"]) expect((await get(app, `/api/failures/runs?${bad}`)).statusCode, bad).toBe(400);
  });
});
