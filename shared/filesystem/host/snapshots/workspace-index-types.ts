/**
 * The shape of a workspace index, apart from how it is stored: the JSON and binary codecs
 * (`workspace-index.ts`, `workspace-index-binary.ts`) both read and write it.
 */
import type { BaselineRows, LeafStat } from "./workspace-scan.js";

export interface IndexEntry extends LeafStat {
  /** Content id (git blob id, or content hash for directory strategies). */
  readonly oid: string;
}

export interface WorkspaceIndex {
  /** What the entries mirror: a commit id, a snapshot directory name… */
  readonly ref: string;
  readonly scanStartedAtMs: number;
  readonly entries: Map<string, IndexEntry>;
  /** git: the directories that are trees of `ref` (those with leaves below). */
  readonly treeDirs?: ReadonlySet<string>;
  /**
   * A binary index's leaves as rows, while nothing has asked for `entries` (whose map is
   * made on first use, and from then on is the index): see workspace-index-rows.ts.
   */
  readonly rows?: IndexEntryRows | undefined;
}

/** The rows of a binary index (workspace-index-rows.ts), with the content ids and the updates a restore makes. */
export interface IndexEntryRows extends BaselineRows {
  /** The entry recorded for `path`, or undefined. */
  get(path: string): IndexEntry | undefined;
  /** Record `entry` for `path` (null: `path` is no leaf any more). */
  update(path: string, entry: IndexEntry | null): void;
  /** Every leaf as a map. */
  toMap(): Map<string, IndexEntry>;
}
