import { describe, expect, it } from "vitest";
import { keys } from "../api/keys.js";
import type { Api } from "../api/api.js";
import { evalRunsRequest, runPagesQuery } from "./options.js";
import { routeQuery } from "./route-query.js";
import { stalePrefixes } from "./useLiveReload.js";

/** The keys are all this test asks of the factories: an Api that is never called. */
const api = {} as Api;

describe("live reload invalidation", () => {
  it("refreshes the list, the diffs and each changed file", () => {
    expect(stalePrefixes({ added: ["n.jsonl"], changed: ["c.jsonl"], removed: ["r.jsonl"], archives: [] })).toEqual([
      keys.files(),
      keys.routeName("runs"),
      keys.routeName("failures"),
      keys.routeName("failureOccurrences"),
      keys.routeName("evalRuns"),
      keys.routeName("run"),
      keys.diffs(),
      keys.sessionFile("n.jsonl"),
      keys.sessionFile("c.jsonl"),
      keys.sessionFile("r.jsonl"),
    ]);
  });
  it("refreshes the run lists alone when session files indexed in the background are ready", () => {
    const stale = stalePrefixes("indexed");
    expect(stale).toEqual([keys.files(), keys.routeName("runs"), keys.routeName("run")]);
    // Not the eval (it asks its own index again), nor an opened run or snapshot.
    const covers = (key: readonly unknown[]) => stale.some((prefix) => prefix.every((part, at) => key[at] === part));
    expect(covers(runPagesQuery(api, { q: "", since: "", until: "" }).queryKey)).toBe(true);
    expect(covers(routeQuery(api, "runs", {}).queryKey)).toBe(true);
    expect(covers(keys.route("run", {}))).toBe(true);
    expect(covers(keys.route("failures", {}))).toBe(false);
    expect(covers(keys.route("evalRuns", evalRunsRequest({}, 0)))).toBe(false);
    expect(covers(keys.route("run", { file: "a.jsonl" }))).toBe(false);
    expect(covers(keys.route("meta", { file: "a.jsonl", line: 1 }))).toBe(false);
  });
  it("refreshes everything when an archive changed or the stream reconnected", () => {
    expect(stalePrefixes({ added: [], changed: [], removed: [], archives: ["a.fs.zip"] })).toEqual([keys.all]);
    expect(stalePrefixes(null)).toEqual([keys.all]);
  });
});
