import { describe, expect, it } from "vitest";
import { keys } from "../api/keys.js";
import { stalePrefixes } from "./useLiveReload.js";

describe("live reload invalidation", () => {
  it("refreshes the list, the diffs and each changed file", () => {
    expect(stalePrefixes({ added: ["n.jsonl"], changed: ["c.jsonl"], removed: ["r.jsonl"], archives: [] })).toEqual([
      keys.files(),
      keys.runs(),
      keys.newestRun(),
      keys.diffs(),
      keys.sessionFile("n.jsonl"),
      keys.sessionFile("c.jsonl"),
      keys.sessionFile("r.jsonl"),
    ]);
  });
  it("refreshes the run lists alone when session files indexed in the background are ready", () => {
    const stale = stalePrefixes("indexed");
    expect(stale).toEqual([keys.files(), keys.runList(), keys.runPageLists(), keys.newestRun()]);
    // Not the eval (it asks its own index again), nor an opened run or snapshot.
    const covers = (key: readonly unknown[]) => stale.some((prefix) => prefix.every((part, at) => key[at] === part));
    expect(covers(keys.runPages({ q: "", since: "", until: "" }))).toBe(true);
    expect(covers(keys.failures())).toBe(false);
    expect(covers(keys.evalRunPage({}, 0))).toBe(false);
    expect(covers(keys.run("a.jsonl"))).toBe(false);
    expect(covers(keys.meta({ file: "a.jsonl", line: 1 }))).toBe(false);
  });
  it("refreshes everything when an archive changed or the stream reconnected", () => {
    expect(stalePrefixes({ added: [], changed: [], removed: [], archives: ["a.fs.zip"] })).toEqual([keys.all]);
    expect(stalePrefixes(null)).toEqual([keys.all]);
  });
});
