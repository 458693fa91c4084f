import { describe, expect, it } from "vitest";
import { stepPair } from "./step-pair.js";

const at = (line: number, file = "run.jsonl") => ({ file, line });
const order = [at(1), at(2), at(3), at(4), at(5)];

describe("stepping the compared pair", () => {
  it("moves base and target together, one snapshot", () => {
    expect(stepPair(order, at(2), at(3), 1)).toEqual({ base: at(3), target: at(4) });
    expect(stepPair(order, at(2), at(3), -1)).toEqual({ base: at(1), target: at(2) });
  });

  it("keeps the distance between them, whichever side is earlier", () => {
    expect(stepPair(order, at(1), at(3), 1)).toEqual({ base: at(2), target: at(4) });
    expect(stepPair(order, at(4), at(2), 1)).toEqual({ base: at(5), target: at(3) });
  });

  it("never yields the same snapshot on both sides", () => {
    for (let target = 1; target <= 5; target++) {
      for (const base of [undefined, ...order, at(9, "other.jsonl")]) {
        for (const delta of [1, -1]) {
          const pair = stepPair(order, base, at(target), delta);
          if (pair !== null) expect(pair.base).not.toEqual(pair.target);
        }
      }
    }
  });

  it("pairs a base from another run (or the target itself) with the snapshot before the new target", () => {
    expect(stepPair(order, at(7, "other.jsonl"), at(3), 1)).toEqual({ base: at(3), target: at(4) });
    expect(stepPair(order, at(3), at(3), -1)).toEqual({ base: at(1), target: at(2) });
    // No step: the target stays, a base equal to it becomes the snapshot before it.
    expect(stepPair(order, at(3), at(3), 0)).toEqual({ base: at(2), target: at(3) });
    expect(stepPair(order, at(1), at(1), 0)).toBeNull();
  });

  it("stops at either end, and when the target is not in the session", () => {
    expect(stepPair(order, at(4), at(5), 1)).toBeNull();
    expect(stepPair(order, at(1), at(2), -1)).toBeNull();
    expect(stepPair(order, at(1), at(8), 1)).toBeNull();
  });
});
