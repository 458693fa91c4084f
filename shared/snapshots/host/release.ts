/**
 * Freeing what keeps host snapshots alive, from their records alone (so a store can prune
 * snapshots of a process that is long gone):
 * - git: the snapshot's ref is deleted, then one `git gc` per repository drops what no
 *   ref reaches any more;
 * - reflink/copy: the snapshot directory (only when it holds our manifest);
 * - archive: the `.fs.zip` and its record file.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import path from "node:path";

import type { FilesystemSnapshot } from "../types.js";
import { GitSnapshotRepo } from "./git-repo.js";

/** File inside every reflink/copy snapshot directory; its presence proves the directory is one. */
export const DIRECTORY_SNAPSHOT_MANIFEST = "manifest.json";

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** Delete the refs of `snapshotIds` in `gitDir` and collect garbage once. Missing repository or refs: nothing to do. */
export async function releaseGitSnapshots(gitDir: string, snapshotIds: readonly string[]): Promise<void> {
  if (snapshotIds.length === 0 || !isDirectory(gitDir)) return;
  const repo = new GitSnapshotRepo(gitDir, null);
  let deleted = 0;
  for (const id of snapshotIds) if (await repo.deleteSnapshotRef(id)) deleted += 1;
  if (deleted > 0) await repo.collectGarbage();
}

export function releaseDirectorySnapshot(storagePath: string): void {
  if (existsSync(path.join(storagePath, DIRECTORY_SNAPSHOT_MANIFEST))) rmSync(storagePath, { recursive: true, force: true });
}

export function releaseArchiveSnapshot(archivePath: string): void {
  if (!archivePath.endsWith(".fs.zip")) return;
  rmSync(archivePath, { force: true });
  rmSync(archivePath.replace(/\.fs\.zip$/, ".json"), { force: true });
}

/**
 * Free the storage of host snapshot records (records of other backends are skipped: an
 * in-memory snapshot lives and dies with its process). Returns how many were host records.
 */
export async function releaseSnapshotStorage(records: readonly FilesystemSnapshot[]): Promise<number> {
  const byGitDir = new Map<string, string[]>();
  let released = 0;
  for (const record of records) {
    if (record.backend !== "host") continue;
    released += 1;
    if (record.strategy === "git" && record.gitDir) {
      const ids = byGitDir.get(record.gitDir) ?? [];
      ids.push(record.snapshotId);
      byGitDir.set(record.gitDir, ids);
    } else if ((record.strategy === "copy" || record.strategy === "reflink") && record.storagePath) {
      releaseDirectorySnapshot(record.storagePath);
    } else if (record.strategy === "archive" && record.storagePath) {
      releaseArchiveSnapshot(record.storagePath);
    }
  }
  for (const [gitDir, ids] of byGitDir) await releaseGitSnapshots(gitDir, ids);
  return released;
}
