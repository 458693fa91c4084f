/** Ordering of the ISO-8601 timestamps sessions carry (Python writes microseconds and offsets). */
import { atOnce, type Due } from "../session/event-loop-slices.js";

/** Orders ISO-8601 timestamps by instant; unparsable ones keep their text order, after valid ones. */
export function compareTimes(a: string, b: string): number {
  return compareKeyedTimes(Date.parse(a), a, Date.parse(b), b);
}

/**
 * {@link compareTimes} of two times whose `Date.parse` is already known (`ka` of `a`, `kb` of
 * `b`): a sort that parsed both sides of every comparison spent ~70% of a run's build of
 * 1.5 M lines in `Date.parse`.
 */
export function compareKeyedTimes(ka: number, a: string, kb: number, b: string): number {
  if (ka !== kb || ka !== ka) {
    const aBad = ka !== ka;
    const bBad = kb !== kb;
    if (aBad || bBad) {
      if (aBad !== bBad) return aBad ? 1 : -1;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    return ka - kb;
  }
  // Same millisecond: Python writes microseconds, so compare the text (same offsets sort right).
  return a < b ? -1 : a > b ? 1 : 0;
}


/** Positions `0 … count - 1` in time order, with the time key (`Date.parse`) of each position. */
export interface TimeOrder {
  /** Positions, earliest first. */
  readonly order: Uint32Array;
  /** `Date.parse` of each position's time (NaN: unparsable), by position. */
  readonly keys: Float64Array;
}

/** Positions sorted at once before they are merged: small enough to be one slice. */
const SORTED_RUN = 4096;

/**
 * The positions `0 … count - 1` ordered by their times as {@link compareTimes} orders them,
 * then by `tieBreak`, then by position (a stable sort): each time is parsed once. A
 * generator that pauses (a `yield`) wherever `due` says, so one session of 1.5 M lines is
 * sorted in event-loop slices; {@link timeOrder} runs it at once.
 */
export function* timeOrderSteps(count: number, timeAt: (position: number) => string, due: Due, tieBreak?: (a: number, b: number) => number): Generator<void, TimeOrder, void> {
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    keys[i] = Date.parse(timeAt(i));
    if (due()) yield;
  }
  const compare = (a: number, b: number): number => {
    const ka = keys[a] as number;
    const kb = keys[b] as number;
    if (ka !== kb && ka === ka && kb === kb) return ka - kb;
    return compareKeyedTimes(ka, timeAt(a), kb, timeAt(b)) || (tieBreak === undefined ? 0 : tieBreak(a, b)) || a - b;
  };
  let order = new Uint32Array(count);
  let sorted = true;
  for (let i = 0; i < count; i++) {
    order[i] = i;
    if (sorted && i > 0 && compare(i - 1, i) > 0) sorted = false;
    if (due()) yield;
  }
  // Lines are mostly written in time order: then there is nothing to sort.
  if (sorted) return { order, keys };
  for (let start = 0; start < count; start += SORTED_RUN) {
    order.subarray(start, Math.min(count, start + SORTED_RUN)).sort(compare);
    if (due(SORTED_RUN)) yield;
  }
  // Bottom-up merges of the sorted runs, pausing within a merge (the last one is all of them).
  let spare = new Uint32Array(count);
  for (let width = SORTED_RUN; width < count; width *= 2) {
    for (let low = 0; low < count; low += 2 * width) {
      const middle = Math.min(count, low + width);
      const high = Math.min(count, low + 2 * width);
      let left = low;
      let right = middle;
      for (let out = low; out < high; out++) {
        // Ties take the left run: the runs are in position order, so the merge is stable.
        if (left < middle && (right >= high || compare(order[left] as number, order[right] as number) <= 0)) spare[out] = order[left++] as number;
        else spare[out] = order[right++] as number;
        if (due()) yield;
      }
    }
    [order, spare] = [spare, order];
  }
  return { order, keys };
}

/** {@link timeOrderSteps} at once. */
export function timeOrder(count: number, timeAt: (position: number) => string, tieBreak?: (a: number, b: number) => number): TimeOrder {
  return atOnce(timeOrderSteps(count, timeAt, () => false, tieBreak));
}

/**
 * `items` sorted by their times as `[...items].sort((a, b) => compareTimes(timeOf(a),
 * timeOf(b)) || tieBreak(a, b))` sorts them, each time parsed once.
 */
export function sortedByTime<T>(items: readonly T[], timeOf: (item: T) => string, tieBreak?: (a: T, b: T) => number): T[] {
  const { order } = timeOrder(items.length, (position) => timeOf(items[position] as T), tieBreak === undefined ? undefined : (a, b) => tieBreak(items[a] as T, items[b] as T));
  const sorted = new Array<T>(order.length);
  for (let i = 0; i < order.length; i++) sorted[i] = items[order[i] as number] as T;
  return sorted;
}

/**
 * The first of `order`'s positions whose time is at or after `time` (as {@link compareTimes}
 * says), found by bisection; `order.length` when none is.
 */
export function firstAtOrAfter(order: TimeOrder, timeAt: (position: number) => string, time: string): number {
  const key = Date.parse(time);
  let low = 0;
  let high = order.order.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const position = order.order[middle] as number;
    if (compareKeyedTimes(order.keys[position] as number, timeAt(position), key, time) >= 0) high = middle;
    else low = middle + 1;
  }
  return low;
}
