import { describe, expect, it } from "vitest";
import { keys } from "../api/keys.js";
import { stalePrefixes } from "./useLiveReload.js";

describe("live reload invalidation", () => {
  it("refreshes the list, the diffs and each changed file", () => {
    expect(stalePrefixes({ added: ["n.jsonl"], changed: ["c.jsonl"], removed: ["r.jsonl"], archives: [] })).toEqual([
      keys.files(),
      keys.routeName("runs"),
      keys.routeName("failures"),
      keys.routeName("failureOccurrences"),
      keys.routeName("run"),
      keys.diffs(),
      keys.sessionFile("n.jsonl"),
      keys.sessionFile("c.jsonl"),
      keys.sessionFile("r.jsonl"),
    ]);
  });
  it("refreshes everything when an archive changed or the stream reconnected", () => {
    expect(stalePrefixes({ added: [], changed: [], removed: [], archives: ["a.fs.zip"] })).toEqual([keys.all]);
    expect(stalePrefixes(null)).toEqual([keys.all]);
  });
});
