import { describe, expect, it } from "vitest";
import { eachAtMost } from "./at-most.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("eachAtMost", () => {
  it("works on every item, starting them in order, never more than the limit at once, a slow one holding one worker only", async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const finished: number[] = [];
    await eachAtMost([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3, async (item) => {
      started.push(item);
      running++;
      most = Math.max(most, running);
      await tick(item === 0 ? 60 : 5);
      running--;
      finished.push(item);
    });
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
    // Item 0 is slow: the other two workers did all the rest meanwhile.
    expect(finished.at(-1)).toBe(0);
  });

  it("takes items from a lazy source as workers free up, so what is queued meanwhile is taken too", async () => {
    const queue = new Set<number>([1, 2]);
    const taking = (function* () {
      for (let next = queue.values().next(); !next.done; next = queue.values().next()) {
        queue.delete(next.value);
        yield next.value;
      }
    })();
    const done: number[] = [];
    await eachAtMost(taking, 2, async (item) => {
      if (item === 1) queue.add(3);
      await tick(1);
      done.push(item);
    });
    expect(done.sort()).toEqual([1, 2, 3]);
  });

  it("resolves at once for no items, and rejects with the first failure", async () => {
    await expect(eachAtMost([], 4, () => Promise.reject(new Error("never called")))).resolves.toBeUndefined();
    await expect(eachAtMost([1, 2], 2, async (item) => { if (item === 2) throw new Error("two"); })).rejects.toThrow("two");
  });
});
