/**
 * The shape of a workspace index, apart from how it is stored: the JSON and binary codecs
 * (`workspace-index.ts`, `workspace-index-binary.ts`) both read and write it.
 */
import type { LeafStat } from "./workspace-scan.js";

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
}
