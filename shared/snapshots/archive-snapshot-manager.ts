/**
 * Archive-level snapshots of any backend (the spec's `FilesystemSnapshot` manager): each
 * snapshot is a `.fs.zip` written by the filesystem's own `exportArchive`, and a rollback
 * is its `importArchive` (validated first, all-or-nothing). Works the same for memory,
 * host and Podman filesystems, and an archive restores into any of them.
 */
import { rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { SnapshotCreationError, SnapshotNotFoundError } from "../errors.js";
import type { ArchiveSummary, Filesystem } from "../filesystem/protocol.js";
import { checkSnapshotId, exportArchiveAtomically, restoreFailure } from "../filesystem/snapshot-support.node.js";

export { checkSnapshotId, exportArchiveAtomically, restoreFailure };

/**
 * Metadata of one archive snapshot. The vfs spec's manager puts the archive file's size in
 * `total_bytes`, while its manifest and `FilesystemSnapshotRef.total_bytes` mean the files'
 * bytes; here `totalBytes` has that second meaning everywhere and the archive's size is
 * `archiveBytes` (docs/spec-differences.md).
 */
export interface SnapshotInfo {
  readonly snapshotId: string;
  /** Absolute path of the `.fs.zip`. */
  readonly archivePath: string;
  readonly fileCount: number;
  /** Sum of the files' sizes (the archive manifest's `total_bytes`, as in a `FilesystemSnapshotRef`). */
  readonly totalBytes: number;
  /** Size of the archive file itself (the spec manager's `total_bytes`). */
  readonly archiveBytes: number;
  /** ISO-8601 with offset. */
  readonly createdAt: string;
}

/** Default directory of archive snapshots: `<tmp>/wink-fs-snapshots`. */
export function defaultArchiveSnapshotDir(): string {
  return path.join(tmpdir(), "wink-fs-snapshots");
}

export class ArchiveSnapshotManager {
  readonly filesystem: Filesystem;
  readonly snapshotDir: string;
  private readonly snapshots = new Map<string, SnapshotInfo>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(filesystem: Filesystem, snapshotDir: string = defaultArchiveSnapshotDir()) {
    this.filesystem = filesystem;
    this.snapshotDir = path.resolve(snapshotDir);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Archive the current state as `<snapshotDir>/<snapshotId>.fs.zip` (an existing id is replaced). */
  snapshot(snapshotId: string): Promise<SnapshotInfo> {
    checkSnapshotId(snapshotId);
    return this.serial(async () => {
      const archivePath = path.join(this.snapshotDir, `${snapshotId}.fs.zip`);
      let summary: ArchiveSummary;
      try {
        summary = await exportArchiveAtomically(this.filesystem, archivePath, { manifestExtra: { snapshot_id: snapshotId } });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new SnapshotCreationError(`Failed to create snapshot ${snapshotId}: ${reason}`, { snapshotId, archivePath }, { cause: error });
      }
      const info: SnapshotInfo = {
        snapshotId,
        archivePath,
        fileCount: summary.fileCount,
        totalBytes: summary.totalBytes,
        archiveBytes: statSync(archivePath).size,
        createdAt: new Date().toISOString(),
      };
      this.snapshots.set(snapshotId, info);
      return info;
    });
  }

  /**
   * Replace the filesystem's state with snapshot `snapshotId`; returns the number of files
   * restored. The archive is this manager's own export of the workspace, so the workspace's
   * nested `.git` directories come back with it.
   */
  rollback(snapshotId: string): Promise<number> {
    return this.serial(async () => {
      const info = this.snapshots.get(snapshotId);
      if (info === undefined) throw new SnapshotNotFoundError(snapshotId);
      return this.importFrom(info.archivePath, snapshotId, true);
    });
  }

  /**
   * Replace the filesystem's state with any `.fs.zip` (e.g. one saved next to a session
   * file). It is untrusted: `.git` paths are refused unless `allowGitMetadata`.
   */
  restore(archivePath: string, options: { allowGitMetadata?: boolean } = {}): Promise<number> {
    return this.serial(() => this.importFrom(path.resolve(archivePath), null, options.allowGitMetadata ?? false));
  }

  private async importFrom(archivePath: string, snapshotId: string | null, allowGitMetadata: boolean): Promise<number> {
    try {
      return (await this.filesystem.importArchive(archivePath, { allowGitMetadata })).fileCount;
    } catch (error) {
      throw restoreFailure(error, snapshotId ?? archivePath, { archivePath, ...(snapshotId === null ? {} : { snapshotId }) });
    }
  }

  get(snapshotId: string): SnapshotInfo | null {
    return this.snapshots.get(snapshotId) ?? null;
  }

  /** All snapshots, oldest first. */
  list(): SnapshotInfo[] {
    return [...this.snapshots.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  /** Forget a snapshot and delete its archive; false when there was none. */
  delete(snapshotId: string): Promise<boolean> {
    return this.serial(async () => {
      const info = this.snapshots.get(snapshotId);
      if (info === undefined) return false;
      this.snapshots.delete(snapshotId);
      rmSync(info.archivePath, { force: true });
      return true;
    });
  }
}
