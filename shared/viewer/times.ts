/** Ordering of the ISO-8601 timestamps sessions carry (Python writes microseconds and offsets). */

/** Orders ISO-8601 timestamps by instant; unparsable ones keep their text order, after valid ones. */
export function compareTimes(a: string, b: string): number {
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (Number.isNaN(ta) || Number.isNaN(tb)) {
    if (Number.isNaN(ta) !== Number.isNaN(tb)) return Number.isNaN(ta) ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (ta !== tb) return ta - tb;
  // Same millisecond: Python writes microseconds, so compare the text (same offsets sort right).
  return a < b ? -1 : a > b ? 1 : 0;
}
