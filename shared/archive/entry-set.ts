/**
 * Checks across all entries of an archive: duplicates, file/directory conflicts and
 * overlapping data (the "quoted overlap" zip bomb). Pure functions, O(n log n).
 */
import { ArchiveError } from "../errors.js";
import { displayPath } from "../filesystem/paths.js";

interface NamedEntry {
  /** Full entry name. */
  readonly name: string;
  /** Name without a directory's trailing "/". */
  readonly path: string;
  readonly isDirectory: boolean;
}

function conflict(entry: string, message: string, other: string): never {
  throw new ArchiveError("E_ARCHIVE_ENTRY", `${message}: ${displayPath(entry)}`, { entry, reason: "duplicate", conflictsWith: other });
}

/**
 * Index entries by path, refusing exact duplicates (`a` twice), a file and a directory
 * with the same path (`x/` and `x`) and entries below a file (`a` and `a/b`) — archives
 * that extractors disagree on or fail halfway through.
 */
export function indexEntries<T extends NamedEntry>(entries: readonly T[]): Map<string, T> {
  const byPath = new Map<string, T>();
  for (const entry of entries) {
    const previous = byPath.get(entry.path);
    if (previous !== undefined) {
      if (previous.name === entry.name) conflict(entry.name, "Duplicate entry", previous.name);
      conflict(entry.name, `Entry conflicts with ${previous.isDirectory ? "directory" : "file"} ${displayPath(previous.name)}`, previous.name);
    }
    byPath.set(entry.path, entry);
  }
  const directories = new Set<string>();
  // Entries usually come sorted, so most share the previous entry's parent: compare that
  // prefix instead of building and hashing the parent's name again.
  let lastParent = "";
  for (const entry of entries) {
    const path = entry.path;
    const lastSlash = path.lastIndexOf("/");
    if (lastSlash === lastParent.length && lastSlash > 0 && path.startsWith(lastParent)) continue;
    if (lastSlash > 0) lastParent = path.slice(0, lastSlash);
    for (let slash = lastSlash; slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
      const parent = path.slice(0, slash);
      if (directories.has(parent)) break;
      const holder = byPath.get(parent);
      if (holder !== undefined && !holder.isDirectory) conflict(entry.name, `Entry lies inside file ${displayPath(holder.name)}`, holder.name);
      directories.add(parent);
    }
  }
  return byPath;
}

interface PlacedEntry {
  readonly name: string;
  readonly localHeaderOffset: number;
}

/** `entries` ordered by local header offset (a copy only when they are not already in order). */
export function sortByOffset<T extends PlacedEntry>(entries: readonly T[]): readonly T[] {
  for (let i = 1; i < entries.length; i++) {
    if ((entries[i] as T).localHeaderOffset < (entries[i - 1] as T).localHeaderOffset) {
      return [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
    }
  }
  return entries;
}

/**
 * Refuse entries whose byte ranges overlap, given entries sorted by offset, where each one
 * ends (`endOf`, a lower bound is fine) and where the data area ends (the central directory).
 */
export function checkOverlaps<T extends PlacedEntry>(sorted: readonly T[], endOf: (entry: T) => number, dataEnd: number): void {
  for (let i = 0; i < sorted.length; i++) {
    const entry = sorted[i] as T;
    const next = sorted[i + 1];
    const limit = next === undefined ? dataEnd : next.localHeaderOffset;
    if (endOf(entry) > limit) {
      const what = next === undefined ? "the central directory" : `entry ${displayPath(next.name)}`;
      throw new ArchiveError("E_ARCHIVE_CORRUPT", `Entry overlaps ${what} (possible zip bomb): ${displayPath(entry.name)}`, {
        entry: entry.name,
        reason: "overlap",
        ...(next === undefined ? {} : { overlaps: next.name }),
      });
    }
  }
}
