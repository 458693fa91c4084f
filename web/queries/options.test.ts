import { QueryClient, QueryObserver, type QueryObserverOptions, skipToken } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { Api, SnapshotRef } from "../api/api.js";
import { keys } from "../api/keys.js";
import * as q from "./options.js";

/** An Api any call of which fails the test: a waiting query must not fetch. */
const refusingApi = new Proxy({} as Api, {
  get: (_target, name) => {
    if (name === "bundles") return new Proxy({}, { get: (_t, member) => () => Promise.reject(new Error(`bundles.${String(member)} was called`)) });
    return () => Promise.reject(new Error(`${String(name)} was called`));
  },
});

const ref: SnapshotRef = { file: "run.jsonl", line: 3 };

describe("query options with an input missing", () => {
  const waiting = [
    q.runQuery(refusingApi, null),
    q.runSearchQuery(refusingApi, null, null, "x", false),
    q.diffStatQuery(refusingApi, ref, null),
    q.metaQuery(refusingApi, null),
    q.timelineQuery(refusingApi, null),
    q.toolCallDiffQuery(refusingApi, ref, null, "a.txt"),
    q.filesystemMetaQuery(refusingApi, null),
    q.browseQuery(refusingApi, null, "previous"),
    q.fileContentQuery(refusingApi, ref, null),
    q.diffQuery(refusingApi, null, ref),
    q.fileDiffQuery(refusingApi, ref, ref, null),
    q.sliceDiffQuery(refusingApi, ref, ref, null),
    q.bundleSummaryQuery(refusingApi, null),
    q.logsQuery(refusingApi, "b.zip", null),
    q.transcriptQuery(refusingApi, null, {}),
    q.bundleMemberQuery(refusingApi, null, "error"),
    q.bundleCompareQuery(refusingApi, null, null),
  ];

  it("wait with skipToken under a key outside every file, so no invalidation or prefetch meets them", () => {
    for (const options of waiting) {
      expect(options.queryFn).toBe(skipToken);
      expect(options.queryKey.slice(0, 2)).toEqual(["wink", "waiting"]);
    }
  });

  it("an empty search waits under its real key", () => {
    expect(q.searchQuery(refusingApi, ref, "  ", "all").queryFn).toBe(skipToken);
    expect(q.bundleSearchQuery(refusingApi, "", {}).queryFn).toBe(skipToken);
  });

  it("fetch nothing when observed as useQuery observes them", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const observers = waiting.map((options) => new QueryObserver(client, options as QueryObserverOptions));
    const stops = observers.map((observer) => observer.subscribe(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const observer of observers) expect(observer.getCurrentResult()).toMatchObject({ fetchStatus: "idle", status: "pending", error: null });
    for (const stop of stops) stop();
  });

  it("with every input present use the resource's own key and fetch", async () => {
    const meta = { file: ref.file };
    const api = { ask: { meta: (asked: { line?: number }) => Promise.resolve({ ...meta, line: asked.line }) } } as unknown as Api;
    const options = q.metaQuery(api, ref);
    expect(options.queryKey).toEqual(keys.meta(ref));
    expect(await new QueryClient().fetchQuery(options)).toEqual({ file: "run.jsonl", line: 3 });
  });
});
