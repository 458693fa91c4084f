import { describe, expect, it } from "vitest";
import { groupedRunOrder } from "./run-order.js";

const run = (path: string, state = "ready") => ({ source: { path }, state });

describe("groupedRunOrder", () => {
  it("puts the runs of one request together, where the newest of them is, each group newest first", () => {
    const groups: Record<string, string> = { "retry-ok.zip": "request:a", "attempt-1-failed.zip": "request:a", "iteration-2.zip": "trace:t", "iteration-1.zip": "trace:t" };
    const listed = [run("retry-ok.zip"), run("other.jsonl"), run("iteration-2.zip"), run("attempt-1-failed.zip"), run("alone.zip"), run("iteration-1.zip")];
    const { runs } = groupedRunOrder(listed, (path) => groups[path] ?? null);
    expect(runs.map((entry) => entry.source.path)).toEqual(["retry-ok.zip", "attempt-1-failed.zip", "other.jsonl", "iteration-2.zip", "iteration-1.zip", "alone.zip"]);
  });

  it("lists files that are not sessions apart, after the runs, in their order", () => {
    const { runs, others } = groupedRunOrder([run("truth.json", "not_session"), run("a.jsonl"), run("index.json", "not_session"), run("b.jsonl")], () => null);
    expect(runs.map((entry) => entry.source.path)).toEqual(["a.jsonl", "b.jsonl"]);
    expect(others.map((entry) => entry.source.path)).toEqual(["truth.json", "index.json"]);
  });
});
