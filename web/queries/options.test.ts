import { QueryClient, QueryObserver, type QueryObserverOptions, skipToken } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { Api, SnapshotRef } from "../api/api.js";
import { at } from "../api/api.js";
import { keys } from "../api/keys.js";
import * as q from "./options.js";
import { routeQuery } from "./route-query.js";

/** An Api any call of which fails the test: a waiting query must not fetch. */
const refusingApi = new Proxy({} as Api, {
  get: (_target, name) => {
    if (name === "ask") return new Proxy({}, { get: (_t, route) => () => Promise.reject(new Error(`ask.${String(route)} was called`)) });
    return () => Promise.reject(new Error(`${String(name)} was called`));
  },
});

const ref: SnapshotRef = { file: "run.jsonl", line: 3 };

describe("query options with an input missing", () => {
  const waiting = [
    routeQuery(refusingApi, "run", skipToken),
    routeQuery(refusingApi, "timeline", skipToken),
    routeQuery(refusingApi, "bundleLogs", skipToken),
    routeQuery(refusingApi, "diff", skipToken),
    q.metaQuery(refusingApi, null),
    q.bundleMemberQuery(refusingApi, null, "error"),
  ];

  it("wait with skipToken under a key outside every file, so no invalidation or prefetch meets them", () => {
    for (const options of waiting) {
      expect(options.queryFn).toBe(skipToken);
      expect(options.queryKey.slice(0, 2)).toEqual(["wink", "waiting"]);
    }
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
    expect(options.queryKey).toEqual(keys.route("meta", at(ref)));
    expect(await new QueryClient().fetchQuery(options)).toEqual({ file: "run.jsonl", line: 3 });
    const timeline = { ask: { timeline: (asked: { file: string; line: number }) => Promise.resolve({ asked }) } } as unknown as Api;
    const generic = routeQuery(timeline, "timeline", at(ref));
    expect(generic.queryKey).toEqual([...keys.snapshot(ref), "timeline", {}]);
    expect(await new QueryClient().fetchQuery(generic)).toEqual({ asked: { file: "run.jsonl", line: 3 } });
  });
});
