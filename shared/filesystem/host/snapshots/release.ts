/**
 * Freeing what keeps host snapshots alive, from their records alone (so a store can prune
 * snapshots of a process that is long gone):
 * - git: the snapshot's ref is deleted, then one `git gc` per repository drops what no
 *   ref reaches any more;
 * - reflink/copy: the snapshot's manifest is renamed away, then every released snapshot
 *   directory that no live snapshot reads files from is deleted (directories are touched
 *   only when they hold our manifest or our release marker);
 * - archive: the `.fs.zip` and its record file.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";

import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { DIRECTORY_SNAPSHOT_MANIFEST, DIRECTORY_SNAPSHOT_RELEASED, readDirectoryOwners } from "./directory-manifest.js";
import { GitSnapshotRepo } from "./git-repo.js";

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * Delete the refs of `snapshotIds` in `gitDir` and, unless `collect` is false, collect garbage
 * once. Missing repository or refs: nothing to do. Returns how many refs were deleted.
 */
export async function releaseGitSnapshots(gitDir: string, snapshotIds: readonly string[], options: { collect?: boolean } = {}): Promise<number> {
  if (snapshotIds.length === 0 || !isDirectory(gitDir)) return 0;
  const repo = new GitSnapshotRepo(gitDir, null);
  let deleted = 0;
  for (const id of snapshotIds) if (await repo.deleteSnapshotRef(id)) deleted += 1;
  if (deleted > 0 && (options.collect ?? true)) await repo.collectGarbage();
  return deleted;
}

const TRASH_PREFIX = ".released-";

export function releaseDirectorySnapshot(storagePath: string): void {
  const manifest = path.join(storagePath, DIRECTORY_SNAPSHOT_MANIFEST);
  if (existsSync(manifest)) {
    // One rename: from here on the snapshot is neither listed nor restorable, whatever happens next.
    renameSync(manifest, path.join(storagePath, DIRECTORY_SNAPSHOT_RELEASED));
  }
  if (existsSync(path.join(storagePath, DIRECTORY_SNAPSHOT_RELEASED))) collectDirectorySnapshots(path.dirname(storagePath));
}

/**
 * Delete the released snapshot directories of `dir` that no live snapshot reads from. A
 * snapshot stores only the files that changed since the one before and names where the
 * others are, so a released snapshot's tree lives on while a later one points into it.
 * A directory is renamed aside before it is deleted, so a tree is either whole or gone
 * (the next snapshot trusts a tree by its presence); a crash leaves only what the next
 * collection finishes.
 */
export function collectDirectorySnapshots(dir: string): void {
  if (!isDirectory(dir)) return;
  const live = new Set<string>();
  const released: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith(TRASH_PREFIX)) {
      rmSync(path.join(dir, name), { recursive: true, force: true });
      continue;
    }
    if (name.startsWith(".")) continue; // snapshots being written
    if (existsSync(path.join(dir, name, DIRECTORY_SNAPSHOT_MANIFEST))) {
      const owners = readDirectoryOwners(path.join(dir, name));
      if (owners === null) return; // cannot tell what it needs: delete nothing
      for (const owner of owners) live.add(owner);
    } else if (existsSync(path.join(dir, name, DIRECTORY_SNAPSHOT_RELEASED))) {
      released.push(name);
    }
  }
  for (const name of released) {
    if (live.has(name)) continue;
    const trash = path.join(dir, `${TRASH_PREFIX}${name}`);
    renameSync(path.join(dir, name), trash);
    rmSync(trash, { recursive: true, force: true });
  }
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
