import { describe, expect, it } from "vitest";
import { evalRunPage, evalSummary, filterRuns } from "../../../shared/viewer/index.js";
import type { EvalDigest } from "../../../shared/viewer/index.js";
import { filterGroups } from "./eval-filter.js";

const digest = (run: string, endedAt: string, message: string | null, tags: string[] = []): EvalDigest => ({
  run,
  kind: "session_file",
  outcome: message === null ? "ok" : "failed",
  reason: null,
  modified_at: endedAt,
  started_at: null,
  ended_at: endedAt,
  tool_calls: 1,
  failed_calls: message === null ? 0 : 1,
  errors: message === null ? 0 : 1,
  failures: message === null ? [] : [{ kind: "call", tool: "bash", error_type: null, argument: null, message, session_id: "s", turn: 1, call_id: null, created_at: endedAt }],
  tags,
});

const summary = evalSummary("t", [digest("a.jsonl", "2026-11-25T10:00:00Z", "exit 1"), digest("b.jsonl", "2026-11-26T10:00:00Z", "timeout", ["nightly"]), digest("c.jsonl", "2026-11-26T12:00:00Z", null, ["nightly"])]);
const withSamples = evalSummary("t", [
  { ...digest("calc/s1/r1.jsonl", "2026-11-25T10:00:00Z", null), sample_id: "s1" },
  { ...digest("calc/s1/r2.jsonl", "2026-11-25T11:00:00Z", "exit 1"), sample_id: "s1" },
  { ...digest("calc/s1/r3.jsonl", "2026-11-25T09:00:00Z", null), sample_id: "s1" },
  { ...digest("calc/s2/r1.jsonl", "2026-11-25T12:00:00Z", "exit 2"), sample_id: "s2" },
]);
const names = (filter: Parameters<typeof filterRuns>[1]) => filterRuns(summary, filter).map((run) => run.run);

describe("eval filters", () => {
  it("keeps the runs of a group, an outcome, a tag", () => {
    expect(names({ group: "bash: exit <n>" })).toEqual(["a.jsonl"]);
    expect(names({ outcome: "ok" })).toEqual(["c.jsonl"]);
    expect(names({ tag: "nightly", outcome: "failed" })).toEqual(["b.jsonl"]);
    expect(names({ group: "no such group" })).toEqual([]);
  });

  it("keeps runs in a time range, a date until including its whole day", () => {
    expect(names({ since: "2026-11-26" })).toEqual(["c.jsonl", "b.jsonl"]);
    expect(names({ until: "2026-11-25" })).toEqual(["a.jsonl"]);
    expect(names({ since: "2026-11-26T11:00:00Z", until: "2026-11-26" })).toEqual(["c.jsonl"]);
  });

  it("pages the runs it keeps, counting them all, and names a failed run's newest passing peer of its sample", () => {
    const page = evalRunPage(summary, { tag: "nightly" }, 1, 5);
    expect(page).toMatchObject({ offset: 1, total: 2 });
    expect(page.runs.map((run) => run.run)).toEqual(["b.jsonl"]);
    expect(evalRunPage(summary, {}, 0, 2).runs.map((run) => run.run)).toEqual(["c.jsonl", "b.jsonl"]);
    expect(evalRunPage(summary, {}, 3, 2)).toEqual({ offset: 3, total: 3, runs: [] });
    const peers = new Map(evalRunPage(withSamples, {}).runs.map((run) => [run.run, run.peer]));
    expect(Object.fromEntries(peers)).toEqual({ "calc/s2/r1.jsonl": null, "calc/s1/r2.jsonl": "calc/s1/r1.jsonl", "calc/s1/r1.jsonl": null, "calc/s1/r3.jsonl": null });
  });

  it("filters groups by text in the signature or the example", () => {
    expect(filterGroups(summary, "TIME").map((group) => group.signature)).toEqual(["bash: timeout"]);
    expect(filterGroups(summary, "")).toHaveLength(2);
  });
});
