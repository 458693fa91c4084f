/**
 * The contract between the host snapshot facade and its storage strategies.
 */
import type { Filesystem } from "../../protocol.js";
import type { TreeApplyOptions } from "../tree-apply/index.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../../snapshot-contract.js";

export type HostSnapshotStrategyName = "git" | "reflink" | "copy" | "archive";

export const HOST_SNAPSHOT_STRATEGIES: readonly HostSnapshotStrategyName[] = ["git", "reflink", "copy", "archive"];

/** The part of a snapshot record the facade decides; a strategy adds the storage fields. */
export interface SnapshotDraft {
  readonly snapshotId: string;
  readonly createdAt: string;
  readonly parentId: string | null;
  readonly tag: string | null;
}

export interface StrategyContext {
  /** Absolute workspace root. */
  readonly root: string;
  /** Options for the crash-safe applier (state directory, durability) — the same the host backend uses. */
  readonly treeApply: TreeApplyOptions;
  /** The filesystem itself (the archive strategy exports and imports through it). */
  readonly filesystem: Filesystem | null;
}

/** What the last capture or restore did (for benchmarks, tests and logs). */
export interface OperationStats {
  readonly operation: "capture" | "restore";
  /** Files and symlinks found in the workspace. */
  readonly leaves: number;
  /** Files whose content had to be read (the rest were known from the stat cache). */
  readonly read: number;
  /** Paths written, deleted or re-moded in the workspace (restore) or the snapshot storage (capture). */
  readonly changed: number;
}

export interface ReleaseOptions {
  readonly deferCollection?: boolean;
}

export interface HostSnapshotStrategy {
  readonly name: HostSnapshotStrategyName;
  /** Stats of the last capture/restore, when the strategy keeps them. */
  readonly lastStats: OperationStats | null;
  /** Capture the workspace as it is now. */
  capture(draft: SnapshotDraft): Promise<FilesystemSnapshot>;
  /** Make the workspace exactly the snapshot's state, all-or-nothing. */
  restore(snapshot: FilesystemSnapshot): Promise<void>;
  /** Compare two snapshots of this strategy, or one with the current workspace. */
  diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff>;
  /**
   * Free what keeps these snapshots alive (refs, directories, archives). Idempotent. They are
   * unrestorable at once; with `deferCollection` (retention after each snapshot) a strategy
   * may batch the expensive part of freeing their storage (git: one `gc` per few releases).
   */
  release(snapshots: readonly FilesystemSnapshot[], options?: ReleaseOptions): Promise<void>;
  /** Remove all storage. Idempotent. */
  cleanup(): Promise<void>;
  /** Records of the snapshots the storage still holds, oldest first. */
  list(): Promise<FilesystemSnapshot[]>;
}
