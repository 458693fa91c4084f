/**
 * The run's sorts parse each time once (issue 29, item 5: two `Date.parse` a comparison were
 * ~70% of building the run of 1.5 M lines). The order must stay the one the old comparator
 * gave, ties, unparsable times, offsets and microseconds included: checked here against that
 * comparator, written out as it was, on random and edge-case times.
 */
import { describe, expect, it } from "vitest";
import { compareKeyedTimes, compareTimes, firstAtOrAfter, sortedByTime, timeOrder, timeOrderSteps } from "./times.js";
import { referenceCompareTimes } from "./times.test-support.js";

/** A small seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EDGE_CASES = [
  "2026-11-22T01:00:00.000000+00:00",
  "2026-11-22T01:00:00+00:00",
  "2026-11-22T01:00:00.000Z",
  "2026-11-22T01:00:00Z",
  "2026-11-22T01:00:00.000123+00:00",
  "2026-11-22T01:00:00.000999+00:00",
  "2026-11-22T01:00:00.001+00:00",
  "2026-11-22T02:00:00.000000+01:00",
  "2026-11-22T00:00:00.000000-01:00",
  "2026-11-22T06:30:00.000000+05:30",
  "2026-11-22T01:00:00.5+00:00",
  "2026-11-22",
  "2026-11-22T01:00",
  "2026-02-30T01:00:00+00:00",
  "2026-13-01T01:00:00+00:00",
  "1969-12-31T23:59:59.999999+00:00",
  "0001-01-01T00:00:00+00:00",
  "+275760-09-13T00:00:00.000Z",
  "9999-12-31T23:59:59.999999+00:00",
  "not a time",
  "",
  " 2026-11-22T01:00:00+00:00",
  "2026-11-22T01:00:00.000000+00:00 ",
  "Sun, 22 Nov 2026 01:00:00 GMT",
  "z",
  "0",
];

/** A random time: mostly WINK's form, often in the same second (ties of the millisecond), with other offsets, fractions, forms and garbage mixed in. */
function randomTime(next: () => number): string {
  const pick = next();
  if (pick < 0.1) return EDGE_CASES[Math.floor(next() * EDGE_CASES.length)] as string;
  if (pick < 0.15) return `garbage-${Math.floor(next() * 5)}`;
  const base = Date.parse("2026-11-22T01:00:00Z") + Math.floor(next() * 4) * 1000 + (next() < 0.3 ? Math.floor(next() * 3) : 0);
  const micros = String(Math.floor(next() * 1000)).padStart(3, "0");
  const offsetHours = next() < 0.2 ? Math.floor(next() * 5) - 2 : 0;
  const local = new Date(base + offsetHours * 3_600_000).toISOString().slice(0, 23);
  const offset = offsetHours === 0 ? (next() < 0.8 ? "+00:00" : "Z") : `${offsetHours > 0 ? "+" : "-"}${String(Math.abs(offsetHours)).padStart(2, "0")}:00`;
  const form = next();
  if (form < 0.6) return `${local}${micros}${offset}`;
  if (form < 0.8) return `${local}${offset}`;
  return `${local.slice(0, 19)}${offset}`;
}

function randomTimes(seed: number, count: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => randomTime(next));
}

describe("times parsed once order as compareTimes did (issue 29, item 5)", () => {
  it("compares every pair of edge cases and random times as the reference does", () => {
    const times = [...EDGE_CASES, ...randomTimes(1, 200)];
    for (const a of times) {
      for (const b of times) {
        const expected = Math.sign(referenceCompareTimes(a, b));
        expect(Math.sign(compareTimes(a, b)), `${a} vs ${b}`).toBe(expected);
        expect(Math.sign(compareKeyedTimes(Date.parse(a), a, Date.parse(b), b)), `${a} vs ${b}`).toBe(expected);
      }
    }
  });

  it("sorts as a stable sort by the reference does: random, sorted, reversed and tied times, past the runs it sorts at once", () => {
    for (const [seed, count] of [[2, 10], [3, 1000], [4, 5000], [5, 20_000]] as const) {
      const times = randomTimes(seed, count);
      const cases = [times, [...times].sort(referenceCompareTimes), [...times].sort(referenceCompareTimes).reverse(), times.map((time, i) => times[i % 7] ?? time)];
      for (const input of cases) {
        const expected = [...input.keys()].sort((a, b) => referenceCompareTimes(input[a] as string, input[b] as string));
        expect([...timeOrder(input.length, (i) => input[i] as string).order]).toEqual(expected);
      }
    }
  });

  it("breaks ties of equal times by the tie-break given, then by position", () => {
    const times = randomTimes(6, 10_000);
    const numbers = times.map((_, i) => (i * 7919) % 10_000);
    const items = times.map((time, i) => ({ time, number: numbers[i] as number, i }));
    const expected = [...items].sort((a, b) => referenceCompareTimes(a.time, b.time) || a.number - b.number);
    expect(sortedByTime(items, (item) => item.time, (a, b) => a.number - b.number)).toEqual(expected);
    // Without one, equal times keep their order (Array.prototype.sort is stable).
    const few = times.map((_, i) => times[i % 13] as string);
    expect(sortedByTime(few.map((time, i) => ({ time, i })), (item) => item.time).map((item) => item.i)).toEqual([...few.keys()].sort((a, b) => referenceCompareTimes(few[a] as string, few[b] as string)));
  });

  it("sorts the same when it pauses at every step", () => {
    const times = randomTimes(7, 9000);
    const steps = timeOrderSteps(times.length, (i) => times[i] as string, () => true);
    let pauses = 0;
    let step = steps.next();
    while (step.done !== true) {
      pauses++;
      step = steps.next();
    }
    expect(pauses).toBeGreaterThan(times.length);
    expect([...step.value.order]).toEqual([...times.keys()].sort((a, b) => referenceCompareTimes(times[a] as string, times[b] as string)));
  });

  it("finds the first time at or after another as a search of the reference's order does", () => {
    const times = randomTimes(8, 3000);
    const order = timeOrder(times.length, (i) => times[i] as string);
    const sorted = [...order.order].map((i) => times[i] as string);
    for (const probe of [...EDGE_CASES, ...randomTimes(9, 300)]) {
      const expected = sorted.findIndex((time) => referenceCompareTimes(time, probe) >= 0);
      expect(firstAtOrAfter(order, (i) => times[i] as string, probe), probe).toBe(expected === -1 ? sorted.length : expected);
    }
  });
});
