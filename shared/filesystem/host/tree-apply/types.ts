import path from "node:path";

/** Root-level names starting with this are the applier's own (staging inside the root). */
export const STAGING_PREFIX = ".wink-apply-";

export const JOURNAL_VERSION = 1;
export const PERMISSION_BITS = 0o777;
/** Operations between two turns of the event loop in long phases. */
export const YIELD_EVERY = 512;
/** Directory descriptors one `DirTree` keeps open at most (then it starts over). */
export const MAX_HELD_DIRS = 256;

/** One change to the tree. Paths are normalised, relative to the root, never "". */
export type TreeChange =
  /** Remove a file, symlink (the link itself) or directory tree; a missing path is fine. */
  | { readonly op: "delete"; readonly path: string }
  /** Create a directory if missing (parents too); set its mode when given. */
  | { readonly op: "mkdir"; readonly path: string; readonly mode?: number }
  /** Move the staged entry `source` (relative to the staging tree) to `path`, replacing a file or link there. */
  | { readonly op: "put"; readonly path: string; readonly source: string }
  /** Set permission bits of an existing file or directory. */
  | { readonly op: "chmod"; readonly path: string; readonly mode: number };

/** A change with its content inline, for `applyTreeChanges`. */
export type TreeEdit =
  | { readonly op: "write"; readonly path: string; readonly data: Uint8Array | AsyncIterable<Uint8Array>; readonly mode?: number }
  | { readonly op: "symlink"; readonly path: string; readonly target: string }
  | { readonly op: "delete"; readonly path: string }
  | { readonly op: "mkdir"; readonly path: string; readonly mode?: number }
  | { readonly op: "chmod"; readonly path: string; readonly mode: number };

/** Named points of an apply, for fault-injection tests (`onStep`). */
export type TreeApplyStep = "staged" | "validated" | "committed" | "deleted" | "op" | "applied" | "cleaned";

export interface TreeApplyOptions {
  /** Directory holding journals (and staging when on the root's filesystem). Default `defaultTreeApplyStateDir()`. */
  readonly stateDir?: string;
  /**
   * fsync staged data, the journal and the applied renames (default true). Off: no fsync
   * at all — a killed process is still recovered exactly (the kernel keeps what was
   * written), a power loss is not. Off only for throwaway trees.
   */
  readonly durable?: boolean;
  /** Test hook awaited at each step; throwing from it simulates a crash at that point. */
  readonly onStep?: (step: TreeApplyStep, detail: { readonly index?: number; readonly path?: string }) => void | Promise<void>;
}

export interface TreeApplyResult {
  /** Entries moved out of the workspace (deleted or replaced directories). */
  readonly deleted: number;
  readonly created: number;
  readonly moved: number;
  readonly chmodded: number;
}

export interface TreeRecoveryResult {
  /** An interrupted, committed apply was completed. */
  readonly rolledForward: boolean;
  /** Uncommitted or leftover staging directories removed. */
  readonly removedStagings: number;
}
