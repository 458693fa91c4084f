/**
 * Native filesystem snapshots: the contract every snapshot-capable backend implements
 * (in-memory copy-on-write, host git/reflink/copy/archive, Podman overlay).
 */
import type { Filesystem } from "./protocol.js";

/** Which backend took a snapshot: the spec's `backend_type` values. */
export type SnapshotBackend = "in_memory" | "host" | "podman";

/**
 * An immutable, JSON-serialisable record of a snapshot. It can be stored in a session and
 * given back to `restore()` later, also by a fresh filesystem instance (host strategies).
 */
export interface FilesystemSnapshot {
  /** UUID. */
  readonly snapshotId: string;
  /** ISO-8601 with offset. */
  readonly createdAt: string;
  /** The snapshot the filesystem was restored from or last snapshotted to before this one. */
  readonly parentId: string | null;
  readonly tag: string | null;
  readonly fileCount: number;
  readonly totalBytes: number;
  readonly backend: SnapshotBackend;
  /** How it is stored: "memory-cow", "git", "reflink", "copy", "archive", … */
  readonly strategy: string;
  /** Backend reference: "mem-<n>", a 40-hex git commit, a storage directory name, … */
  readonly commitRef: string;
  /** Root of the filesystem when the snapshot was taken. */
  readonly rootPath: string;
  /** External git directory (git strategy). */
  readonly gitDir?: string | null;
  /** Where a copy/reflink/archive snapshot is stored. */
  readonly storagePath?: string | null;
}

/** Changes between two states, as sorted relative file paths. */
export interface FilesystemDiff {
  readonly added: readonly string[];
  readonly modified: readonly string[];
  readonly deleted: readonly string[];
  readonly unchangedCount: number;
}

export interface SnapshotOptions {
  readonly tag?: string | null;
}

export interface SnapshotableFilesystem extends Filesystem {
  snapshot(options?: SnapshotOptions): Promise<FilesystemSnapshot>;
  /** Restore exactly (files created since are removed); all-or-nothing. SnapshotRestoreError on failure. */
  restore(snapshot: FilesystemSnapshot): Promise<void>;
  /** Compare two snapshots, or a snapshot with the current state when `target` is omitted. */
  diff(base: FilesystemSnapshot, target?: FilesystemSnapshot | null): Promise<FilesystemDiff>;
  /** Id of the snapshot last taken or restored, if any. */
  readonly currentSnapshotId: string | null;
  /** Remove all snapshot storage (where the backend keeps any outside memory). Idempotent. */
  cleanup?(): Promise<void>;
}

export function isSnapshotable(fs: Filesystem): fs is SnapshotableFilesystem {
  const candidate = fs as Partial<SnapshotableFilesystem>;
  return typeof candidate.snapshot === "function" && typeof candidate.restore === "function" && typeof candidate.diff === "function";
}
