/**
 * `compareTimes` of shared/viewer/times.ts as it was before the run's sorts parsed each time
 * once (two `Date.parse` a comparison): the reference the new order is checked against, and
 * what the old build's sorts cost.
 */
export function referenceCompareTimes(a: string, b: string): number {
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (Number.isNaN(ta) || Number.isNaN(tb)) {
    if (Number.isNaN(ta) !== Number.isNaN(tb)) return Number.isNaN(ta) ? 1 : -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (ta !== tb) return ta - tb;
  return a < b ? -1 : a > b ? 1 : 0;
}
