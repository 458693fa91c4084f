import { describe, expect, it } from "vitest";
import { MAX_GROUP_ARGUMENTS, failureReport, failureSignature, groupFailures, notLoadedDigest, reportSignatures } from "./failure-groups.js";
import type { RunDigestView, RunFailureDigestView } from "./types.js";

function call(tool: string, message: string, createdAt: string | null, argument: string | null = null): RunFailureDigestView {
  return { kind: "call", tool, error_type: null, argument: argument === null ? null : { name: "path", value: argument }, message, session_id: "s", turn: 1, call_id: null, created_at: createdAt };
}

function run(name: string, failures: RunFailureDigestView[]): RunDigestView {
  return { run: name, kind: "session_file", outcome: failures.length > 0 ? "failed" : "ok", reason: null, modified_at: "2026-11-26T00:00:00Z", started_at: null, ended_at: null, tool_calls: failures.length, failed_calls: failures.length, errors: failures.length, failures };
}

describe("failure groups", () => {
  it("signs a failure again once it changed (signatures are kept per failure while it stays the same)", () => {
    const failure = call("read_file", "File not found: b.py", null);
    expect(failureSignature(failure)).toBe("read_file: File not found: <path>");
    expect(failureSignature(failure)).toBe("read_file: File not found: <path>");
    failure.message = "Timed out after 3 s";
    expect(failureSignature(failure)).toBe("read_file: Timed out after <n> s");
    failure.tool = "shell";
    expect(failureSignature(failure)).toBe("shell: Timed out after <n> s");
    Object.assign(failure, { kind: "run_error", tool: null, error_type: "TimeoutError" });
    expect(failureSignature(failure)).toBe("run error TimeoutError: Timed out after <n> s");
  });

  it("counts occurrences and runs, the first and last time, and shows the earliest occurrence", () => {
    const [group] = groupFailures([
      run("b.jsonl", [call("read_file", "File not found: b.py", "2026-11-26T10:00:00+00:00", "b.py"), call("read_file", "File not found: c.py", "not a time", "c.py")]),
      run("a.jsonl", [call("read_file", "File not found: a.py", "2026-11-26T11:00:00+00:00", "a.py")]),
      run("c.jsonl", []),
    ]);
    expect(group).toMatchObject({
      signature: "read_file: File not found: <path>",
      template: "File not found: <path>",
      occurrences: 3,
      runs: 2,
      run_share: 0.6667,
      first_seen: "2026-11-26T10:00:00+00:00",
      last_seen: "2026-11-26T11:00:00+00:00",
      tools: [{ name: "read_file", occurrences: 3 }],
    });
    expect(group?.example).toMatchObject({ run: "b.jsonl", message: "File not found: b.py" });
  });

  it("sorts by runs affected, then occurrences, then signature, whatever order the runs come in", () => {
    const runs = [
      run("1", [call("x", "boom", null), call("x", "boom", null), call("y", "bang", null)]),
      run("2", [call("z", "pop", null), call("y", "bang", null)]),
      run("3", [call("w", "fizz", null)]),
    ];
    const groups = groupFailures(runs);
    expect(groups.map((group) => group.signature)).toEqual(["y: bang", "x: boom", "w: fizz", "z: pop"]);
    expect(groupFailures([...runs].reverse())).toEqual(groups);
  });

  it("lists the most frequent key arguments, at most a few", () => {
    const failures = ["a", "b", "b", "c", "d", "e", "f", "f", "f"].map((file) => call("read_file", `File not found: ${file}.py`, null, `${file}.py`));
    const [group] = groupFailures([run("r", failures)]);
    expect(group?.arguments).toHaveLength(MAX_GROUP_ARGUMENTS);
    expect(group?.arguments.map((argument) => [argument.value, argument.occurrences])).toEqual([
      ["f.py", 3],
      ["b.py", 2],
      ["a.py", 1],
      ["c.py", 1],
      ["d.py", 1],
    ]);
  });

  it("reports the counts, the runs that did not load and, against a baseline, what is new", () => {
    const runs = [run("ok", []), run("bad", [call("x", "boom 1", null)]), notLoadedDigest({ kind: "bundle", path: "cut.zip", name: "cut.zip" }, "2026-11-26T00:00:00Z", "truncated")];
    const plain = failureReport(runs);
    expect(plain).toMatchObject({ format: "wink-debug-failures", version: 1, runs: 3, failed_runs: 1, not_loaded_runs: 1, since: null, baseline: null });
    expect(plain.not_loaded).toEqual([{ run: "cut.zip", reason: "truncated" }]);
    expect(plain.groups[0]?.run_share).toBe(0.3333);
    expect("new" in (plain.groups[0] ?? {})).toBe(false);
    const signatures = reportSignatures(JSON.parse(JSON.stringify(plain)) as unknown);
    expect(signatures).toEqual(new Set(["x: boom <n>"]));
    const later = failureReport([...runs, run("worse", [call("x", "boom 2", null), call("y", "bang", null)])], { since: "2026-11-01", baseline: { file: "b.json", signatures } });
    expect(later.groups.map((group) => [group.signature, group.new])).toEqual([
      ["x: boom <n>", false],
      ["y: bang", true],
    ]);
    expect(later.baseline).toEqual({ file: "b.json", new_groups: 1 });
    expect(later.since).toBe("2026-11-01");
    expect(failureReport([]).groups).toEqual([]);
  });

  it("refuses a baseline that is not a report, saying what is wrong", () => {
    expect(() => reportSignatures([])).toThrow(/no "groups" list/);
    expect(() => reportSignatures(null)).toThrow(/no "groups" list/);
    expect(() => reportSignatures({ groups: [{ signature: "a" }, { runs: 2 }] })).toThrow(/groups\[1\] has no "signature" string/);
  });
});
