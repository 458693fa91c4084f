import { describe, expect, it } from "vitest";
import { WeightedCache } from "./weighted-cache.js";

describe("WeightedCache", () => {
  it("evicts the least recently used values past its budget, and never stores a value heavier than it", () => {
    const evicted: string[] = [];
    const cache = new WeightedCache<string, number>(10, (key) => evicted.push(key));
    cache.set("a", 1, 4);
    cache.set("b", 2, 4);
    expect(cache.get("a")).toBe(1); // a is now the most recent
    cache.set("c", 3, 4);
    expect(evicted).toEqual(["b"]);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([1, undefined, 3]);
    expect(cache.weight).toBe(8);
    cache.set("huge", 4, 11);
    expect(cache.get("huge")).toBeUndefined();
    expect(evicted).toEqual(["b", "huge"]);
    cache.makeRoom(6);
    expect(cache.weight).toBeLessThanOrEqual(4);
  });

  it("with secondUseOf, stores a value only when its key comes back among the last keys offered", () => {
    const cache = new WeightedCache<string, string>(100, undefined, { secondUseOf: 3 });
    cache.set("a", "first", 1);
    expect(cache.get("a")).toBeUndefined();
    cache.set("a", "second", 1);
    expect(cache.get("a")).toBe("second");
    cache.set("a", "replaced", 1); // stored keys are replaced at once
    expect(cache.get("a")).toBe("replaced");
    // A scan of keys offered once stores nothing and forgets the oldest offers.
    for (const key of ["k1", "k2", "k3", "k4"]) cache.set(key, key, 1);
    expect(cache.size).toBe(1);
    cache.set("k1", "k1", 1); // forgotten: offered once again
    expect(cache.get("k1")).toBeUndefined();
    cache.set("k4", "k4", 1);
    expect(cache.get("k4")).toBe("k4");
    cache.clear();
    cache.set("k4", "k4", 1);
    expect(cache.get("k4")).toBeUndefined();
  });
});
