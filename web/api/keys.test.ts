import { describe, expect, it } from "vitest";
import { keys } from "./keys.js";

const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) => prefix.every((part, index) => Object.is(key[index], part));

describe("query keys", () => {
  const ref = { file: "a.jsonl", line: 2 };
  it("nest session file → snapshot → resource, so one prefix invalidates a file", () => {
    for (const key of [keys.meta(ref), keys.timeline(ref), keys.slicePage(ref, "t", 0, 50), keys.browse(ref, "previous"), keys.file(ref, "x.py"), keys.search(ref, "q", "all", 500), keys.toolCallDiff(ref, "call_1", "x.py")]) {
      expect(startsWith(key, keys.snapshot(ref))).toBe(true);
      expect(startsWith(key, keys.sessionFile("a.jsonl"))).toBe(true);
      expect(startsWith(key, keys.sessionFile("b.jsonl"))).toBe(false);
      expect(startsWith(key, keys.all)).toBe(true);
    }
    expect(startsWith(keys.file(ref, "x.py"), keys.workspace(ref))).toBe(true);
    // A refreshed timeline refreshes the tool-call diffs it lists.
    expect(startsWith(keys.toolCallDiff(ref, "call_1", "x.py"), keys.timeline(ref))).toBe(true);
  });

  it("nest a debug bundle's own resources under its session file, and cross-bundle ones under bundles", () => {
    const file = "runs/a_20261126_054533.zip";
    for (const key of [keys.bundleSummary(file), keys.logs(file, { level: ["ERROR"] }), keys.logFacets(file), keys.transcript(file, {}), keys.environment(file), keys.bundleMember(file, "error"), keys.bundleMemberFile(file, "error.json"), keys.bundleIntegrity(file)]) {
      expect(startsWith(key, keys.bundle(file))).toBe(true);
      expect(startsWith(key, keys.sessionFile(file))).toBe(true);
      expect(startsWith(key, keys.sessionFile("runs/b.zip"))).toBe(false);
    }
    expect(startsWith(keys.logFacets(file), [...keys.bundle(file), "logs"])).toBe(true);
    for (const key of [keys.bundleList(), keys.bundleGroups(), keys.bundleCompare(file, null), keys.bundleSearch("q", { in: "group", file })]) expect(startsWith(key, keys.bundles())).toBe(true);
    expect(keys.bundleCompare(file, "b.zip")).not.toEqual(keys.bundleCompare("b.zip", file));
  });

  it("keep diffs of two snapshots under one prefix", () => {
    const base = { file: "a.jsonl", line: 1 };
    expect(startsWith(keys.fileDiff(base, ref, "p"), keys.diff(base, ref))).toBe(true);
    expect(startsWith(keys.sliceDiff(base, ref, "t"), keys.diffs())).toBe(true);
    expect(keys.diff(base, ref)).not.toEqual(keys.diff(ref, base));
  });
});
