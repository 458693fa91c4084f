/**
 * Diff of two file indexes: what the server and the web app use to compare two archives,
 * two VFS slices, or an archive with a slice, without reading any file content. Browser-safe.
 */
import { comparePaths } from "../filesystem/paths.js";
import type { FilesystemDiff } from "../snapshots/types.js";

/** One file of an index: its path, size and a content fingerprint (CRC-32, hash, version…). */
export interface FileIndexEntry {
  readonly path: string;
  readonly size: number;
  /** Equal fingerprints (with equal sizes) mean equal content. Compared with `===`. */
  readonly fingerprint: string | number;
}

/**
 * Files added, modified (size or fingerprint differs) and deleted between `base` and
 * `target`, as sorted paths, plus the number of unchanged files. When a path occurs twice
 * in one index, the last occurrence counts.
 */
export function diffFileIndexes(base: Iterable<FileIndexEntry>, target: Iterable<FileIndexEntry>): FilesystemDiff {
  const before = new Map<string, FileIndexEntry>();
  for (const entry of base) before.set(entry.path, entry);
  const added: string[] = [];
  const modified: string[] = [];
  let unchangedCount = 0;
  const after = new Map<string, FileIndexEntry>();
  for (const entry of target) after.set(entry.path, entry);
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (old === undefined) added.push(path);
    else if (old.size !== entry.size || old.fingerprint !== entry.fingerprint) modified.push(path);
    else unchangedCount += 1;
  }
  const deleted: string[] = [];
  for (const path of before.keys()) if (!after.has(path)) deleted.push(path);
  return {
    added: added.sort(comparePaths),
    modified: modified.sort(comparePaths),
    deleted: deleted.sort(comparePaths),
    unchangedCount,
  };
}
