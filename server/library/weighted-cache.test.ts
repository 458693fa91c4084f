import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryBudget, WeightedCache } from "./weighted-cache.js";

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

describe("MemoryBudget shared by caches", () => {
  it("keeps what all its caches hold under one budget, evicting the least recently used entry of any of them", () => {
    const budget = new MemoryBudget(10);
    const evicted: string[] = [];
    const lines = new WeightedCache<string, string>(budget, (key) => evicted.push(`lines:${key}`));
    const files = new WeightedCache<string, string>(budget, (key) => evicted.push(`files:${key}`));
    lines.set("a", "A", 4);
    files.set("x", "X", 3);
    lines.set("b", "B", 2);
    expect(budget.used).toBe(9);
    expect(lines.get("a")).toBe("A"); // x is now the least recently used
    files.set("y", "Y", 3); // 12 > 10: x goes, though it is another cache's
    expect(evicted).toEqual(["files:x"]);
    expect([lines.weight, files.weight, budget.used]).toEqual([6, 3, 9]);
    lines.makeRoom(8); // a big value is coming: b, a, y go, least recently used first
    expect(evicted).toEqual(["files:x", "lines:b", "lines:a", "files:y"]);
    expect(budget.used).toBe(0);
    files.set("too-big", "!", 11);
    expect(files.size).toBe(0);
    expect(() => new MemoryBudget(-1)).toThrow(RangeError);
  });

  it("counts held weight (the open file's index) in what it uses, makes room for it and never evicts it", () => {
    const budget = new MemoryBudget(10);
    const evicted: string[] = [];
    const cache = new WeightedCache<string, string>(budget, (key) => evicted.push(key));
    cache.set("a", "A", 4);
    cache.set("b", "B", 4);
    const release = budget.hold(5); // 13 > 10: a goes
    expect(evicted).toEqual(["a"]);
    expect([budget.used, budget.held]).toEqual([9, 5]);
    const releaseMore = budget.hold(20); // past the budget: everything else goes, the holds stay
    expect(evicted).toEqual(["a", "b"]);
    expect(budget.used).toBe(25);
    cache.set("c", "C", 1);
    expect(cache.get("c")).toBeUndefined();
    releaseMore();
    releaseMore(); // once only
    release();
    expect(budget.used).toBe(0);
    cache.set("d", "D", 4);
    expect(cache.get("d")).toBe("D");
  });
});

/** The obvious model: an array from least to most recent, and the list of pending offers. */
class ModelCache {
  entries: { key: string; value: number; weight: number }[] = [];
  offers: string[] = [];
  offerLog: string[] = [];
  evicted: string[] = [];
  constructor(
    readonly budget: number,
    readonly secondUseOf: number,
  ) {}
  get total(): number {
    return this.entries.reduce((sum, entry) => sum + entry.weight, 0);
  }
  get(key: string): number | undefined {
    const index = this.entries.findIndex((entry) => entry.key === key);
    if (index === -1) return undefined;
    const [entry] = this.entries.splice(index, 1);
    this.entries.push(entry!);
    return entry!.value;
  }
  set(key: string, value: number, weight: number): void {
    if (this.secondUseOf > 0 && !this.entries.some((entry) => entry.key === key)) {
      // Remembered: offered among the last `secondUseOf` recorded offers and not taken since.
      const recent = this.offerLog.slice(-this.secondUseOf);
      if (!(this.offers.includes(key) && recent.includes(key))) {
        this.offers = this.offers.filter((offered) => offered !== key);
        this.offers.push(key);
        this.offerLog.push(key);
        return;
      }
      this.offers = this.offers.filter((offered) => offered !== key);
    }
    this.delete(key);
    if (weight > this.budget) {
      this.evicted.push(key);
      return;
    }
    this.entries.push({ key, value, weight });
    while (this.total > this.budget) this.evicted.push(this.entries.shift()!.key);
  }
  delete(key: string): void {
    const index = this.entries.findIndex((entry) => entry.key === key);
    if (index !== -1) this.evicted.push(this.entries.splice(index, 1)[0]!.key);
  }
}

describe("WeightedCache against a model", () => {
  it("gives the same values, weights and evictions for random operations", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("get" as const), key: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 12 }), weight: fc.integer({ min: 0, max: 25 }) }),
      fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant("makeRoom" as const), weight: fc.integer({ min: 0, max: 25 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.array(op, { maxLength: 200 }), (secondUseOf, ops) => {
        const evicted: string[] = [];
        const cache = new WeightedCache<string, number>(20, (key) => evicted.push(key), { secondUseOf });
        const model = new ModelCache(20, secondUseOf);
        ops.forEach((operation, step) => {
          if (operation.kind === "get") expect(cache.get(`k${operation.key}`)).toBe(model.get(`k${operation.key}`));
          else if (operation.kind === "set") {
            cache.set(`k${operation.key}`, step, operation.weight);
            model.set(`k${operation.key}`, step, operation.weight);
          } else if (operation.kind === "delete") {
            cache.delete(`k${operation.key}`);
            model.delete(`k${operation.key}`);
          } else {
            cache.makeRoom(operation.weight);
            while (model.entries.length > 0 && model.total + operation.weight > model.budget) model.evicted.push(model.entries.shift()!.key);
          }
          expect(cache.weight).toBe(model.total);
          expect(cache.size).toBe(model.entries.length);
          expect(evicted).toEqual(model.evicted);
        });
      }),
      { numRuns: 300 },
    );
  });
});
