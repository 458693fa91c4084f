/**
 * The plan of a git restore in O(changes) beyond the scan: only paths that changed in the
 * workspace since the state the index mirrors, or that differ between that state's tree
 * and the snapshot's tree, are looked at. Every other path is identical in all three
 * (workspace, index, snapshot) and needs nothing.
 */
import { parentBytePath } from "./byte-paths.js";
import { defaultPerm, gitModeOf, type CommitMeta } from "./git-repo.js";
import { targetLeaf, type TreeChanges } from "./git-target.js";
import { statOrNever, type RestorePlan, type TargetLeaf } from "./restore-plan.js";
import type { ReadLeaves } from "./workspace-delta.js";
import type { IndexEntry, WorkspaceIndex } from "./workspace-index.js";
import type { IndexedScan } from "./workspace-scan.js";

export interface GitRestoreInput {
  /** The workspace walked against `index`. */
  readonly scan: IndexedScan;
  /** Mirrors the commit `changes` start from (null: none, `changes` start from the empty tree). */
  readonly index: WorkspaceIndex | null;
  readonly read: ReadLeaves;
  readonly changes: TreeChanges;
  readonly baseMeta: CommitMeta | null;
  readonly targetMeta: CommitMeta | null;
}

export interface GitRestorePlan extends RestorePlan {
  /** Target leaf of every put. */
  readonly targets: Map<string, TargetLeaf>;
  /**
   * The index once the plan is applied (stats of touched files are read then). Takes over
   * the input index: its entries are updated in place rather than copied.
   */
  nextIndex(rootBytes: string, ref: string, scanStartedAtMs: number): WorkspaceIndex;
}

/** Directories of the index's tree: stored, or (older index files) derived from its leaves. */
function baseTreeDirs(index: WorkspaceIndex | null): Set<string> {
  if (index === null) return new Set();
  if (index.treeDirs !== undefined) return new Set(index.treeDirs);
  const dirs = new Set<string>();
  for (const path of index.entries.keys()) for (let d = parentBytePath(path); d !== "" && !dirs.has(d); d = parentBytePath(d)) dirs.add(d);
  return dirs;
}

interface LeafViews {
  /** The snapshot's leaf at `path` (null: none). */
  readonly targetAt: (path: string) => TargetLeaf | null;
  /** The workspace's leaf at `path` with its content id (null: none). */
  readonly currentAt: (path: string) => IndexEntry | null;
  /** The only paths where workspace and snapshot can differ. */
  readonly candidates: Set<string>;
}

function leafViews(input: GitRestoreInput): LeafViews {
  const { scan, index, read, changes } = input;
  const targetPerms = new Map(input.targetMeta?.perms ?? []);
  const basePerms = new Map(input.baseMeta?.perms ?? []);
  const vanished = new Set(read.vanished);
  const missing = new Set(scan.missing);
  const targetAt = (path: string): TargetLeaf | null => {
    if (changes.leaves.has(path)) {
      const leaf = changes.leaves.get(path) ?? null;
      return leaf === null ? null : targetLeaf(leaf, targetPerms.get(path));
    }
    const entry = index?.entries.get(path);
    return entry === undefined ? null : { kind: entry.kind, oid: entry.oid, perm: targetPerms.get(path) ?? defaultPerm(gitModeOf(entry.kind, entry.perm)) };
  };
  // Every untrusted leaf was read (or vanished); every other leaf of the index is as it records.
  const currentAt = (path: string): IndexEntry | null => {
    if (vanished.has(path) || missing.has(path)) return null;
    return read.changed.get(path) ?? (scan.untrusted.has(path) ? null : (index?.entries.get(path) ?? null));
  };

  const candidates = new Set<string>([...read.changed.keys(), ...read.vanished, ...scan.missing, ...changes.leaves.keys()]);
  for (const path of new Set([...basePerms.keys(), ...targetPerms.keys()])) if (basePerms.get(path) !== targetPerms.get(path)) candidates.add(path);
  return { targetAt, currentAt, candidates };
}

/** Paths as the diff of a snapshot (`input.changes` lead from the index's commit to it) against the workspace. */
export function diffSnapshotWithWorkspace(input: GitRestoreInput): { added: string[]; modified: string[]; deleted: string[]; unchangedCount: number } {
  const { targetAt, currentAt, candidates } = leafViews(input);
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const path of candidates) {
    const before = targetAt(path);
    const now = currentAt(path);
    if (before === null) {
      if (now !== null) added.push(path);
    } else if (now === null) deleted.push(path);
    else if (before.kind !== now.kind || before.oid !== now.oid || gitModeOf(before.kind, before.perm) !== gitModeOf(now.kind, now.perm)) modified.push(path);
  }
  const currentCount = input.scan.leafCount - input.read.vanished.length;
  return { added, modified, deleted, unchangedCount: currentCount - added.length - modified.length };
}

export function planGitRestore(input: GitRestoreInput): GitRestorePlan {
  const { scan, index, changes } = input;
  const { targetAt, currentAt, candidates } = leafViews(input);
  const targetPerms = new Map(input.targetMeta?.perms ?? []);
  const gitlinks: string[] = [];
  const deletes: string[] = [...scan.others];
  const puts: string[] = [];
  const chmods: [string, number][] = [];
  const targets = new Map<string, TargetLeaf>();
  for (const path of candidates) {
    if (changes.leaves.get(path)?.mode === "160000") gitlinks.push(path);
    const target = targetAt(path);
    const current = currentAt(path);
    if (target === null) {
      if (current !== null) deletes.push(path);
    } else if (current === null || current.kind !== target.kind || current.oid !== target.oid) {
      puts.push(path);
      targets.set(path, target);
    } else if (target.kind === "file" && current.perm !== target.perm) {
      chmods.push([path, target.perm]);
    }
  }

  // Directories: the target's trees, plus its empty directories (and their parents).
  const treeDirs = baseTreeDirs(index);
  for (const [dir, appears] of changes.dirs) {
    if (appears) treeDirs.add(dir);
    else treeDirs.delete(dir);
  }
  const targetDirs = new Map<string, number>();
  const addDir = (dir: string): void => {
    for (let d = dir; d !== "" && !targetDirs.has(d); d = parentBytePath(d)) targetDirs.set(d, targetPerms.get(d) ?? defaultPerm("dir"));
  };
  for (const dir of treeDirs) addDir(dir);
  for (const dir of [...(input.targetMeta?.emptyDirs ?? []), ...gitlinks]) addDir(dir);
  const mkdirs: [string, number][] = [];
  for (const [dir, perm] of scan.dirs) {
    const wanted = targetDirs.get(dir);
    if (wanted === undefined) deletes.push(dir);
    else if (wanted !== perm) chmods.push([dir, wanted]);
  }
  for (const [dir, perm] of targetDirs) if (!scan.dirs.has(dir)) mkdirs.push([dir, perm]);

  const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  deletes.sort(byPath);
  puts.sort(byPath);
  mkdirs.sort((a, b) => byPath(a[0], b[0]));

  return {
    deletes,
    mkdirs,
    puts,
    chmods,
    targets,
    nextIndex(rootBytes, ref, scanStartedAtMs) {
      const entries = index === null ? new Map<string, IndexEntry>() : index.entries;
      const touched = new Set([...puts, ...chmods.map(([path]) => path)]);
      for (const path of candidates) {
        const target = targetAt(path);
        if (target === null) {
          entries.delete(path);
          continue;
        }
        const current = currentAt(path);
        if (touched.has(path) || current === null) entries.set(path, { ...statOrNever(rootBytes, path, target.kind), oid: target.oid });
        else entries.set(path, current);
      }
      return { ref, scanStartedAtMs, entries, treeDirs };
    },
  };
}
