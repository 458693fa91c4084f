import { describe, expect, it } from "vitest";
import { evalSummary } from "../../../shared/viewer/index.js";
import type { EvalDigest } from "../../../shared/viewer/index.js";
import { filterGroups, filterRuns } from "./eval-filter.js";

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

  it("filters groups by text in the signature or the example", () => {
    expect(filterGroups(summary, "TIME").map((group) => group.signature)).toEqual(["bash: timeout"]);
    expect(filterGroups(summary, "")).toHaveLength(2);
  });
});
