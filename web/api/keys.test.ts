import { describe, expect, it } from "vitest";
import { keys } from "./keys.js";

const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) => prefix.every((part, index) => Object.is(key[index], part));

describe("query keys, from a route's name and request", () => {
  const ref = { file: "a.jsonl", line: 2 };
  const at = { file: ref.file, line: ref.line };
  it("nest session file → snapshot → route, so one prefix invalidates a file", () => {
    for (const key of [
      keys.route("meta", at),
      keys.route("timeline", at),
      keys.route("slicePage", { ...at, slice_type: "t", offset: 0, limit: 50 }),
      keys.route("browse", { ...at, compare: "previous" }),
      keys.route("fileContent", { ...at, path: "x.py" }),
      keys.route("search", { ...at, q: "q", scope: "all", limit: 500 }),
      keys.route("toolCallDiff", { ...at, call_id: "call_1", path: "x.py" }),
    ]) {
      expect(startsWith(key, keys.snapshot(ref))).toBe(true);
      expect(startsWith(key, keys.sessionFile("a.jsonl"))).toBe(true);
      expect(startsWith(key, keys.sessionFile("b.jsonl"))).toBe(false);
      expect(startsWith(key, keys.all)).toBe(true);
    }
    expect(startsWith(keys.route("run", { file: "a.jsonl" }), keys.sessionFile("a.jsonl"))).toBe(true);
  });

  it("hold every input of the request: two requests, two keys", () => {
    expect(keys.route("search", { ...at, q: "q", scope: "all", limit: 50 })).not.toEqual(keys.route("search", { ...at, q: "q", scope: "all", limit: 500 }));
    expect(keys.route("timeline", at)).not.toEqual(keys.route("timeline", { ...at, line: 3 }));
    expect(keys.route("runs", {})).not.toEqual(keys.route("failures", {}));
  });

  it("nest a debug bundle's own resources under its session file, and cross-bundle ones under bundles", () => {
    const file = "runs/a_20261126_054533.zip";
    for (const key of [keys.route("bundleSummary", { file }), keys.route("bundleLogs", { file, level: ["ERROR"] }), keys.route("bundleLogFacets", { file }), keys.route("bundleTranscript", { file }), keys.route("bundleEnvironment", { file }), keys.route("bundleError", { file }), keys.route("bundleIntegrity", { file })]) {
      expect(startsWith(key, keys.sessionFile(file))).toBe(true);
      expect(startsWith(key, keys.sessionFile("runs/b.zip"))).toBe(false);
    }
    for (const key of [keys.route("bundles", {}), keys.route("bundleGroups", {}), keys.route("bundleCompare", { target_file: file }), keys.route("bundleSearch", { q: "q", in: "group", file })]) expect(startsWith(key, keys.bundles())).toBe(true);
    expect(keys.route("bundleCompare", { target_file: file, base_file: "b.zip" })).not.toEqual(keys.route("bundleCompare", { target_file: "b.zip", base_file: file }));
  });

  it("keep comparisons of two snapshots under one prefix, outside both files", () => {
    const sides = { base_file: "a.jsonl", base_line: 1, target_file: "a.jsonl", target_line: 2 };
    for (const key of [keys.route("diff", sides), keys.route("diffStat", sides), keys.route("fileDiff", { ...sides, path: "p" }), keys.route("sliceDiff", { ...sides, slice_type: "t" })]) {
      expect(startsWith(key, keys.diffs())).toBe(true);
      expect(startsWith(key, keys.sessionFile("a.jsonl"))).toBe(false);
    }
    expect(keys.route("diff", sides)).not.toEqual(keys.route("diff", { ...sides, base_line: 2, target_line: 1 }));
  });

  it("put what names no file under its route's name", () => {
    expect(startsWith(keys.route("runs", { limit: 100 }), keys.routeName("runs"))).toBe(true);
    expect(startsWith(keys.route("run", {}), keys.routeName("run"))).toBe(true);
    expect(startsWith(keys.route("failureOccurrences", { signature: "s" }), keys.routeName("failureOccurrences"))).toBe(true);
  });
});
