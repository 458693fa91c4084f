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

/** Finds an entry by path (a directory's path has no trailing "/"). */
export type EntryLookup<T> = (path: string) => T | undefined;

function comparePathsOf(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when paths strictly increase: then no path repeats, and an entry can be found by binary search. */
function strictlySorted(entries: readonly NamedEntry[]): boolean {
  for (let i = 1; i < entries.length; i++) if (!((entries[i - 1] as NamedEntry).path < (entries[i] as NamedEntry).path)) return false;
  return true;
}

function binarySearchLookup<T extends NamedEntry>(entries: readonly T[]): EntryLookup<T> {
  return (path) => {
    let low = 0;
    let high = entries.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const entry = entries[middle] as T;
      const order = comparePathsOf(entry.path, path);
      if (order === 0) return entry;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  };
}

function mapLookup<T extends NamedEntry>(entries: readonly T[]): EntryLookup<T> {
  const byPath = new Map<string, T>();
  for (const entry of entries) {
    const previous = byPath.get(entry.path);
    if (previous !== undefined) {
      if (previous.name === entry.name) conflict(entry.name, "Duplicate entry", previous.name);
      conflict(entry.name, `Entry conflicts with ${previous.isDirectory ? "directory" : "file"} ${displayPath(previous.name)}`, previous.name);
    }
    byPath.set(entry.path, entry);
  }
  return (path) => byPath.get(path);
}

/**
 * Index entries by path, refusing exact duplicates (`a` twice), a file and a directory
 * with the same path (`x/` and `x`) and entries below a file (`a` and `a/b`) — archives
 * that extractors disagree on or fail halfway through. Entries listed in path order (as
 * writers usually list them) are searched in place; others get a map.
 */
export function indexEntries<T extends NamedEntry>(entries: readonly T[]): EntryLookup<T> {
  const lookup = strictlySorted(entries) ? binarySearchLookup(entries) : mapLookup(entries);
  const directories = new Set<string>();
  // Entries usually come sorted, so most share the previous entry's parent: compare that
  // prefix instead of building and looking up the parent's name again.
  let lastParent = "";
  for (const entry of entries) {
    const path = entry.path;
    const lastSlash = path.lastIndexOf("/");
    if (lastSlash === lastParent.length && lastSlash > 0 && path.startsWith(lastParent)) continue;
    if (lastSlash > 0) lastParent = path.slice(0, lastSlash);
    for (let slash = lastSlash; slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
      const parent = path.slice(0, slash);
      if (directories.has(parent)) break;
      const holder = lookup(parent);
      if (holder !== undefined && !holder.isDirectory) conflict(entry.name, `Entry lies inside file ${displayPath(holder.name)}`, holder.name);
      directories.add(parent);
    }
  }
  return lookup;
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
