/**
 * "Previous / next pair" in the compare view: base and target move together one snapshot
 * along the target's session, keeping the distance between them, so stepping through turns
 * never lands the target on the base ("Base and target are the same snapshot").
 */
import type { SnapshotRef } from "../../api/api.js";

export interface SnapshotPair {
  readonly base: SnapshotRef;
  readonly target: SnapshotRef;
}

const indexOf = (order: readonly SnapshotRef[], ref: SnapshotRef | undefined) => (ref === undefined ? -1 : order.findIndex((entry) => entry.file === ref.file && entry.line === ref.line));

/**
 * The pair `delta` steps from (`base`, `target`) along `order` (the target's session, oldest
 * first); null at either end, or when the target is not in `order`. A base outside `order`
 * (another run, another session) or equal to the target becomes the snapshot just before the
 * new target.
 */
export function stepPair(order: readonly SnapshotRef[], base: SnapshotRef | undefined, target: SnapshotRef, delta: number): SnapshotPair | null {
  const at = indexOf(order, target);
  if (at === -1) return null;
  const from = indexOf(order, base);
  const gap = from === -1 || from === at ? 1 : at - from;
  const nextTarget = order[at + delta];
  const nextBase = order[at + delta - gap];
  if (nextTarget === undefined || nextBase === undefined) return null;
  return { base: { file: nextBase.file, line: nextBase.line }, target: { file: nextTarget.file, line: nextTarget.line } };
}
