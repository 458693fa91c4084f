/**
 * What a restore has to change: the current workspace (scan + content ids) against the
 * target state of a snapshot. Only differences become changes, so restoring a snapshot
 * after ten edits touches ten paths, and the result goes through the crash-safe applier
 * of the host backend (tree-apply.ts) in one all-or-nothing step.
 */
import { Buffer } from "node:buffer";

import { SnapshotRestoreError } from "../../../errors.js";
import {
  applyStagedChanges,
  createTreeStaging,
  type TreeApplyOptions,
  type TreeChange,
  type TreeStaging,
} from "../tree-apply/index.js";
import { lstatSync } from "node:fs";

import { compareBytePaths, joinBytePath, toDisplayPath, toFsPath } from "./byte-paths.js";
import type { IndexEntry } from "./workspace-index.js";
import { leafStatOf, type LeafKind, type LeafStat } from "./workspace-scan.js";

/** A file or symlink the target state holds. */
export interface TargetLeaf {
  readonly kind: LeafKind;
  readonly perm: number;
  readonly oid: string;
}

export interface TargetState {
  readonly leaves: ReadonlyMap<string, TargetLeaf>;
  /** Every directory of the target (also non-empty ones) → permission bits. */
  readonly dirs: ReadonlyMap<string, number>;
}

export interface CurrentState {
  readonly leaves: ReadonlyMap<string, IndexEntry>;
  readonly dirs: ReadonlyMap<string, number>;
  readonly others: readonly string[];
}

export interface RestorePlan {
  readonly deletes: string[];
  readonly mkdirs: [string, number][];
  /** Leaves whose content must be staged. */
  readonly puts: string[];
  readonly chmods: [string, number][];
}

export function planRestore(current: CurrentState, target: TargetState): RestorePlan {
  const deletes: string[] = [];
  const mkdirs: [string, number][] = [];
  const puts: string[] = [];
  const chmods: [string, number][] = [];
  // A leaf whose kind changes (file ↔ symlink) needs no delete: the put renames over it.
  for (const path of current.leaves.keys()) if (!target.leaves.has(path)) deletes.push(path);
  for (const [dir] of current.dirs) if (!target.dirs.has(dir)) deletes.push(dir);
  deletes.push(...current.others);
  for (const [dir, perm] of target.dirs) {
    const existing = current.dirs.get(dir);
    if (existing === undefined) mkdirs.push([dir, perm]);
    else if (existing !== perm) chmods.push([dir, perm]);
  }
  for (const [path, leaf] of target.leaves) {
    const entry = current.leaves.get(path);
    if (entry === undefined || entry.kind !== leaf.kind || entry.oid !== leaf.oid) puts.push(path);
    else if (leaf.kind === "file" && entry.perm !== leaf.perm) chmods.push([path, leaf.perm]);
  }
  deletes.sort(compareBytePaths);
  mkdirs.sort((a, b) => compareBytePaths(a[0], b[0]));
  puts.sort(compareBytePaths);
  return { deletes, mkdirs, puts, chmods };
}

export function planSize(plan: RestorePlan): number {
  return plan.deletes.length + plan.mkdirs.length + plan.puts.length + plan.chmods.length;
}

export function isEmptyPlan(plan: RestorePlan): boolean {
  return planSize(plan) === 0;
}

/** The applier takes UTF-8 paths; a name that is not valid UTF-8 cannot be expressed yet. */
function applierPath(bytePath: string): string {
  const text = toDisplayPath(bytePath);
  if (Buffer.from(text, "utf8").toString("latin1") !== bytePath) {
    throw new SnapshotRestoreError(`Cannot restore ${JSON.stringify(text)}: names that are not valid UTF-8 are not supported by the tree applier`, { path: text });
  }
  return text;
}

/** Name of the staged entry for put number `index`. */
export function stagedName(index: number): string {
  return `s${index}`;
}

/**
 * Stage the puts with `stage` (which writes put `i` as `stagedName(i)` in the staging
 * tree), then apply the whole plan atomically. Any failure before the commit leaves the
 * workspace untouched; the staging is always removed.
 */
export async function applyRestorePlan(
  root: string,
  plan: RestorePlan,
  stage: (staging: TreeStaging) => Promise<void>,
  options: TreeApplyOptions,
): Promise<void> {
  if (isEmptyPlan(plan)) return;
  const changes: TreeChange[] = [];
  for (const path of plan.deletes) changes.push({ op: "delete", path: applierPath(path) });
  for (const [path, mode] of plan.mkdirs) changes.push({ op: "mkdir", path: applierPath(path), mode });
  plan.puts.forEach((path, index) => changes.push({ op: "put", path: applierPath(path), source: stagedName(index) }));
  for (const [path, mode] of plan.chmods) changes.push({ op: "chmod", path: applierPath(path), mode });
  const staging = await createTreeStaging(root, options);
  try {
    await stage(staging);
  } catch (error) {
    await staging.discard().catch(() => undefined);
    throw error;
  }
  await applyStagedChanges(staging, changes, options);
}

/** Stat of a leaf the restore just wrote; a stat that never matches when it cannot be read. */
export function statOrNever(rootBytes: string, relative: string, kind: LeafKind): LeafStat {
  try {
    return leafStatOf(lstatSync(toFsPath(joinBytePath(rootBytes, relative))), kind);
  } catch {
    return { kind, perm: -1, size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };
  }
}

/**
 * The workspace index after a restore: every target leaf (the next snapshot deletes what
 * the index has and the scan lacks). Untouched files keep their scanned entry; written or
 * chmod-ed ones get their new stat, which is racy, so the next scan reads them once more.
 */
export function indexAfterRestore(
  rootBytes: string,
  target: ReadonlyMap<string, TargetLeaf>,
  current: ReadonlyMap<string, IndexEntry>,
  puts: readonly string[],
  oidOf: (path: string, leaf: TargetLeaf) => string,
): Map<string, IndexEntry> {
  const entries = new Map<string, IndexEntry>();
  const changed = new Set(puts);
  for (const [p, leaf] of target) {
    const known = current.get(p);
    const oid = oidOf(p, leaf);
    // An unchanged entry object is kept: the index save reuses its serialised form.
    if (!changed.has(p) && known !== undefined && known.perm === leaf.perm) entries.set(p, known.oid === oid ? known : { ...known, oid });
    else entries.set(p, { ...statOrNever(rootBytes, p, leaf.kind), oid });
  }
  return entries;
}
