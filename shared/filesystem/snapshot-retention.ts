/**
 * Retention of snapshots: which records a policy lets go. Pure and browser-safe.
 *
 * Semantics (the spec leaves them open; pinned here):
 * - Protected records are never pruned: tagged ones when `keepTagged`, and any id the
 *   caller protects (e.g. the snapshot the workspace is at).
 * - Unprotected records older than `maxAgeHours` are pruned.
 * - Of the rest, the newest fill the slots `maxCount` leaves after the protected ones; the
 *   older ones are pruned. Protected records alone may exceed `maxCount`.
 */
import { InvalidArgumentError } from "../errors.js";
import type { FilesystemSnapshot } from "./snapshot-contract.js";

export interface SnapshotRetentionPolicy {
  /** Most snapshots to keep (default 10). */
  readonly maxCount?: number;
  /** Prune snapshots older than this many hours (default: no age limit). */
  readonly maxAgeHours?: number | null;
  /** Never prune tagged snapshots (default true). */
  readonly keepTagged?: boolean;
}

export const DEFAULT_RETENTION_POLICY = { maxCount: 10, maxAgeHours: null, keepTagged: true } as const;

export interface PruneSelectionOptions {
  /** Ids that must survive whatever the policy says. */
  readonly protect?: Iterable<string>;
  /** "Now" in ms since the epoch (default Date.now()). */
  readonly now?: number;
}

/** Newest first; ties keep their given order. */
function newestFirst(records: readonly FilesystemSnapshot[]): FilesystemSnapshot[] {
  return records
    .map((record, index) => ({ record, index, time: Date.parse(record.createdAt) }))
    .sort((a, b) => b.time - a.time || b.index - a.index)
    .map((item) => item.record);
}

function checkPolicy(policy: SnapshotRetentionPolicy): { maxCount: number; maxAgeHours: number | null; keepTagged: boolean } {
  const maxCount = policy.maxCount ?? DEFAULT_RETENTION_POLICY.maxCount;
  const maxAgeHours = policy.maxAgeHours ?? DEFAULT_RETENTION_POLICY.maxAgeHours;
  if (!Number.isInteger(maxCount) || maxCount < 0) throw new InvalidArgumentError(`maxCount must be a non-negative integer, got ${String(maxCount)}`, { maxCount });
  if (maxAgeHours !== null && !(maxAgeHours >= 0)) throw new InvalidArgumentError(`maxAgeHours must be a non-negative number, got ${String(maxAgeHours)}`, { maxAgeHours });
  return { maxCount, maxAgeHours, keepTagged: policy.keepTagged ?? DEFAULT_RETENTION_POLICY.keepTagged };
}

/** The records `policy` prunes, oldest first. */
export function selectSnapshotsToPrune(records: readonly FilesystemSnapshot[], policy: SnapshotRetentionPolicy, options: PruneSelectionOptions = {}): FilesystemSnapshot[] {
  const { maxCount, maxAgeHours, keepTagged } = checkPolicy(policy);
  const protectedIds = new Set(options.protect ?? []);
  const now = options.now ?? Date.now();
  const isProtected = (record: FilesystemSnapshot): boolean => protectedIds.has(record.snapshotId) || (keepTagged && record.tag !== null && record.tag !== undefined);
  const ordered = newestFirst(records);
  const protectedCount = ordered.filter(isProtected).length;
  let slots = Math.max(0, maxCount - protectedCount);
  const pruned: FilesystemSnapshot[] = [];
  for (const record of ordered) {
    if (isProtected(record)) continue;
    const ageHours = (now - Date.parse(record.createdAt)) / 3_600_000;
    if (maxAgeHours !== null && ageHours > maxAgeHours) pruned.push(record);
    else if (slots > 0) slots -= 1;
    else pruned.push(record);
  }
  return pruned.reverse();
}
