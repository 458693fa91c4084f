import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NameMap, hashName } from "./name-map.js";
import { newToken } from "./tree.js";

/** Names whose 32-bit hashes are equal, found by search so collision handling is exercised. */
function collidingNames(pairs: number): string[] {
  const seen = new Map<number, string>();
  const found: string[] = [];
  for (let i = 0; found.length < pairs * 2; i++) {
    const name = `n${i}`;
    const hash = hashName(name);
    const earlier = seen.get(hash);
    if (earlier === undefined) seen.set(hash, name);
    else found.push(earlier, name);
  }
  return found;
}

const colliding = collidingNames(3);
const keys = fc.constantFrom(...colliding, ...Array.from({ length: 60 }, (_, i) => `k${i}`));
const step = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key: keys, value: fc.nat(5) }),
  fc.record({ op: fc.constant("delete" as const), key: keys }),
  fc.record({ op: fc.constant("fork" as const) }),
);

function naiveDifferences(a: ReadonlyMap<string, object>, b: ReadonlyMap<string, object>): [string, object | undefined, object | undefined][] {
  const out: [string, object | undefined, object | undefined][] = [];
  for (const [key, value] of a) if (b.get(key) !== value) out.push([key, value, b.get(key)]);
  for (const [key, value] of b) if (!a.has(key)) out.push([key, undefined, value]);
  return out.sort(([x], [y]) => (x < y ? -1 : 1));
}

describe("NameMap", () => {
  it("the search found names that really collide", () => {
    expect(hashName(colliding[0] as string)).toBe(hashName(colliding[1] as string));
    expect(colliding[0]).not.toBe(colliding[1]);
  });

  it("behaves like a Map, and forked versions never change", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 120, size: "max" }), (steps) => {
        let map = NameMap.empty<object>(newToken());
        let model = new Map<string, object>();
        const versions: { map: NameMap<object>; model: Map<string, object> }[] = [];
        // Values are objects so that identity, not equality, is what the map keeps.
        const values = Array.from({ length: 6 }, (_, i) => ({ i }));
        for (const s of steps) {
          if (s.op === "set") {
            map.set(s.key, values[s.value] as object);
            model.set(s.key, values[s.value] as object);
          } else if (s.op === "delete") {
            expect(map.delete(s.key)).toBe(model.delete(s.key));
          } else {
            versions.push({ map, model });
            map = map.fork(newToken());
            model = new Map(model);
          }
          expect(map.size).toBe(model.size);
        }
        versions.push({ map, model });
        for (const version of versions) {
          expect(new Map(version.map)).toEqual(version.model);
          expect(version.map.size).toBe(version.model.size);
          for (const key of [...colliding, "k0", "k1", "absent"]) expect(version.map.get(key)).toBe(version.model.get(key));
        }
        // Each version against the next one and against the first (both directions).
        const pairs = versions.flatMap((v, i) => [[v, versions[i + 1] ?? v], [versions[0] ?? v, v], [v, versions[0] ?? v]] as const);
        for (const [a, b] of pairs) {
          const seen: [string, object | undefined, object | undefined][] = [];
          a.map.forEachDifference(b.map, (key, mine, theirs) => seen.push([key, mine, theirs]));
          expect(seen.sort(([x], [y]) => (x < y ? -1 : 1))).toEqual(naiveDifferences(a.model, b.model));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("a fork shares everything until it changes, and a change copies only a few trie nodes", () => {
    const base = NameMap.empty<number>(newToken());
    for (let i = 0; i < 10_000; i++) base.set(`file-${i}`, i);
    const fork = base.fork(newToken());
    let calls = 0;
    base.forEachDifference(fork, () => calls++);
    expect(calls).toBe(0);
    fork.set("file-42", -1);
    fork.delete("file-7");
    const seen: string[] = [];
    base.forEachDifference(fork, (key) => seen.push(key));
    expect(seen.sort()).toEqual(["file-42", "file-7"]);
    expect(base.get("file-42")).toBe(42);
    expect(base.get("file-7")).toBe(7);
    expect(fork.size).toBe(9_999);
  });
});
