/**
 * The shape of a workspace index and of the leaf stats it records, apart from how it is
 * stored: the JSON and binary codecs (`workspace-index.ts`, `workspace-index-binary.ts`)
 * both read and write it, and the walks (workspace-scan.ts) compare with it.
 */

export type LeafKind = "file" | "symlink";

/** What a scan knows about a file or symlink. `perm` is `mode & 0o7777`. */
export interface LeafStat {
  readonly kind: LeafKind;
  readonly perm: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

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
