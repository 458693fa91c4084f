import { describe, expect, it } from "vitest";
import { evalSummary, failureOccurrences, placeFromPath } from "./eval-summary.js";
import type { EvalDigest } from "./eval-summary.js";
import { notLoadedDigest } from "./failure-groups.js";
import { outcomeText } from "./outcome-text.js";
import type { EvalRunView, RunFailureDigestView } from "./types.js";

function call(tool: string, message: string, createdAt: string, turn = 1): RunFailureDigestView {
  return { kind: "call", tool, error_type: null, argument: { name: "path", value: "a.py" }, message, session_id: "s", turn, call_id: null, created_at: createdAt };
}

function run(name: string, endedAt: string, failures: RunFailureDigestView[], place: Partial<EvalDigest> = {}): EvalDigest {
  const calls = failures.filter((failure) => failure.kind === "call").length;
  return { run: name, kind: "bundle", outcome: failures.length > 0 ? "failed" : "ok", reason: null, modified_at: endedAt, started_at: null, ended_at: endedAt, tool_calls: 3, failed_calls: calls, errors: calls, failures, ...place };
}

describe("evalSummary", () => {
  const digests: EvalDigest[] = [
    run("evals/s1/a.zip", "2026-11-26T10:00:00Z", [call("read_file", "File not found: x.py", "2026-11-26T09:59:00Z")]),
    run("evals/s1/b.zip", "2026-11-26T11:00:00Z", []),
    run("evals/s2/c.zip", "2026-11-26T12:00:00Z", [call("read_file", "File not found: y.py", "2026-11-26T11:59:00Z", 4), call("bash", "exit 1", "2026-11-26T11:59:30Z")], { tags: ["nightly"] }),
    { ...notLoadedDigest({ kind: "bundle", path: "evals/s3/d.zip", name: "d.zip" }, "2026-11-26T13:00:00Z", "not a zip"), attempt: 2 },
    { ...notLoadedDigest({ kind: "session_file", path: "truth.json", name: "truth.json" }, "2026-11-26T13:00:00Z", "not a session file"), outcome: "not_session" },
  ];
  const summary = evalSummary("evals", digests);

  it("says it covers every digest given unless told how far an index got (the in-page API is complete at once)", () => {
    expect(summary.index).toEqual({ indexed: 5, total: 5, complete: true });
    expect(evalSummary("evals", digests.slice(0, 2), { indexed: 2, total: 5, complete: false }).index).toEqual({ indexed: 2, total: 5, complete: false });
  });

  it("counts passed, failed and errored runs, listing non-session files apart", () => {
    expect(summary.outcomes).toEqual({ runs: 4, ok: 1, failed: 2, error: 1 });
    expect(summary.not_sessions).toEqual(["truth.json"]);
  });

  it("lists runs newest first with their groups, sample and attempt (in time within a sample, unless the run says)", () => {
    expect(summary.runs.map((row) => [row.run, row.outcome, row.sample, row.attempt, row.groups.map((at) => summary.groups[at]?.signature)])).toEqual([
      ["evals/s3/d.zip", "error", "s3", 2, []],
      ["evals/s2/c.zip", "failed", "s2", null, ["read_file: File not found: <path>", "bash: exit <n>"]],
      ["evals/s1/b.zip", "ok", "s1", 2, []],
      ["evals/s1/a.zip", "failed", "s1", 1, ["read_file: File not found: <path>"]],
    ]);
    expect(summary.groups[0]).toMatchObject({ signature: "read_file: File not found: <path>", runs: 2, run_share: 0.5 });
    expect(summary.tags).toEqual(["nightly"]);
  });

  it("breaks outcomes down by target and attempt", () => {
    expect(summary.breakdown).toEqual([
      { target: "evals", attempt: null, runs: 1, ok: 0, failed: 1, error: 0 },
      { target: "evals", attempt: 1, runs: 1, ok: 0, failed: 1, error: 0 },
      { target: "evals", attempt: 2, runs: 2, ok: 1, failed: 0, error: 1 },
    ]);
  });

  it("lists a group's occurrences earliest first", () => {
    expect(failureOccurrences(digests, "read_file: File not found: <path>").occurrences.map((o) => [o.run, o.turn, o.message])).toEqual([
      ["evals/s1/a.zip", 1, "File not found: x.py"],
      ["evals/s2/c.zip", 4, "File not found: y.py"],
    ]);
    expect(failureOccurrences(digests, "nope").occurrences).toEqual([]);
  });

  it("gives a run the badge its stats give it: a run error is not one more failed call", () => {
    const runError: RunFailureDigestView = { kind: "run_error", tool: null, error_type: "PromptEvaluationError", argument: null, message: "boom", session_id: "s", turn: null, call_id: null, created_at: "2026-11-26T10:00:00Z" };
    const calls = Array.from({ length: 6 }, (_, at) => call("bash", `exit ${at}`, "2026-11-26T09:00:00Z"));
    const failedRun = run("evals/s9/e.zip", "2026-11-26T10:00:00Z", [...calls, runError]);
    const errorOnly = run("evals/s9/f.zip", "2026-11-26T10:00:00Z", [runError]);
    const rows = evalSummary("evals", [failedRun, errorOnly]).runs;
    const row = (name: string) => rows.find((candidate) => candidate.run === name) as EvalRunView;
    expect(outcomeText(row("evals/s9/e.zip"))).toBe("6 failed");
    expect(outcomeText(row("evals/s9/e.zip"))).toBe(outcomeText({ outcome: "failed", failed_calls: failedRun.failed_calls, errors: failedRun.errors }));
    expect(row("evals/s9/e.zip").failures).toBe(7);
    expect(outcomeText(row("evals/s9/f.zip"))).toBe("error");
  });

  it("reads the place of a run from an EvalLoop folder", () => {
    expect(placeFromPath("t/a/b/req/x.zip")).toEqual({ target: "t/a/b", sample: "req" });
    expect(placeFromPath("t/x.zip")).toEqual({ target: "t", sample: null });
    expect(placeFromPath("x.jsonl")).toEqual({ target: null, sample: null });
  });
});
