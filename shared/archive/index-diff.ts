/**
 * Diff of two file indexes: what the server and the web app use to compare two archives,
 * two VFS slices, or an archive with a slice, without reading any file content. Browser-safe.
 *
 * Both indexes are walked side by side in path order. The lists the viewer holds are
 * already sorted and duplicate-free, so a diff of two 10,000-file archives is one pass with
 * no map built; other input is put in that form first (the last duplicate of a path wins).
 */
import { comparePaths } from "../filesystem/paths.js";
import type { FilesystemDiff } from "../filesystem/snapshot-contract.js";

/** One file of an index: its path, size and a content fingerprint (CRC-32, hash, version…). */
export interface FileIndexEntry {
  readonly path: string;
  readonly size: number;
  /** Equal fingerprints (with equal sizes) mean equal content. Compared with `===`. */
  readonly fingerprint: string | number;
}

/** The entries that differ between two indexes, each list sorted by path. */
export interface FileIndexChanges {
  readonly added: readonly FileIndexEntry[];
  /** `[base, target]` pairs. */
  readonly modified: readonly (readonly [FileIndexEntry, FileIndexEntry])[];
  readonly deleted: readonly FileIndexEntry[];
  readonly unchangedCount: number;
}

/** `entries` sorted by path with one entry per path (the last one given); the same array when it already is. */
function sortedUnique(entries: Iterable<FileIndexEntry>): readonly FileIndexEntry[] {
  if (Array.isArray(entries)) {
    const list = entries as readonly FileIndexEntry[];
    let ordered = true;
    for (let i = 1; i < list.length && ordered; i++) ordered = comparePaths((list[i - 1] as FileIndexEntry).path, (list[i] as FileIndexEntry).path) < 0;
    if (ordered) return list;
  }
  const byPath = new Map<string, FileIndexEntry>();
  for (const entry of entries) {
    byPath.set(entry.path, entry);
  }
  return [...byPath.values()].sort((a, b) => comparePaths(a.path, b.path));
}

/** Entries added, modified (size or fingerprint differs) and deleted from `base` to `target`. */
export function diffFileIndexEntries(base: Iterable<FileIndexEntry>, target: Iterable<FileIndexEntry>): FileIndexChanges {
  const before = sortedUnique(base);
  const after = sortedUnique(target);
  const added: FileIndexEntry[] = [];
  const modified: (readonly [FileIndexEntry, FileIndexEntry])[] = [];
  const deleted: FileIndexEntry[] = [];
  let unchangedCount = 0;
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    const old = before[i];
    const now = after[j];
    const order = old === undefined ? 1 : now === undefined ? -1 : comparePaths(old.path, now.path);
    if (order < 0) {
      deleted.push(old as FileIndexEntry);
      i++;
    } else if (order > 0) {
      added.push(now as FileIndexEntry);
      j++;
    } else {
      const a = old as FileIndexEntry;
      const b = now as FileIndexEntry;
      if (a.size !== b.size || a.fingerprint !== b.fingerprint) modified.push([a, b]);
      else unchangedCount += 1;
      i++;
      j++;
    }
  }
  return { added, modified, deleted, unchangedCount };
}

/**
 * Files added, modified (size or fingerprint differs) and deleted between `base` and
 * `target`, as sorted paths, plus the number of unchanged files. When a path occurs twice
 * in one index, the last occurrence counts.
 */
export function diffFileIndexes(base: Iterable<FileIndexEntry>, target: Iterable<FileIndexEntry>): FilesystemDiff {
  const changes = diffFileIndexEntries(base, target);
  return {
    added: changes.added.map((entry) => entry.path),
    modified: changes.modified.map(([, entry]) => entry.path),
    deleted: changes.deleted.map((entry) => entry.path),
    unchangedCount: changes.unchangedCount,
  };
}
