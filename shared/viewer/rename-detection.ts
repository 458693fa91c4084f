/**
 * Rename and copy detection over a changed-file list, with git's semantics (`git diff -M`, and
 * `-C` when copies are asked for):
 *
 * 1. Exact renames: a deleted file whose size and content fingerprint equal an added file's
 *    (the same basename preferred) is a rename at 100 % — nothing is read.
 * 2. Inexact renames: the remaining deleted files against the remaining added files, scored
 *    by {@link similarityScore}; pairs at or above the threshold (default 50 %) are taken
 *    best score first, each source and destination once. Only files whose sizes allow the
 *    threshold are read.
 * 3. Copies (only when asked for, as git only with `-C`): a remaining added file similar
 *    enough to a modified file (or to a file already renamed away) is a copy of it; sources
 *    may be copied many times. Off by default: at 50 % every new module written from the same
 *    template "copied" an old one (31 such rows in a five-turn compare).
 *
 * Like git's `diff.renameLimit`, inexact matching is skipped when sources × destinations
 * exceeds `limit²` (the answer says so), and files larger than `maxFileBytes` are not scored.
 */
import type { FileIndexEntry } from "../archive/index-diff.js";
import type { FileSource } from "./file-source.js";
import type { ChunkCounts } from "./similarity.js";
import { MAX_SCORE, chunkCounts, percentScore, scorePercent, similarityScore, sizesRuleOut } from "./similarity.js";
import type { FileChangeView, RenameDetectionView } from "./types.js";

export interface RenameOptions {
  /** Detect renames (default true). */
  renames?: boolean;
  /** Detect copies from modified (and renamed-away) files (default false: git finds them only with -C). */
  copies?: boolean;
  /** Minimum similarity in percent (default 50, as git). */
  threshold?: number;
  /** Inexact matching only while sources × destinations ≤ limit² (default 1,000, as git's `diff.renameLimit`). */
  limit?: number;
  /** Larger files are matched exactly only (default 8 MiB). */
  maxFileBytes?: number;
}

const basename = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * Chunk counts already computed, per file source (a source is one opened archive or slice,
 * whose files never change): comparing the same snapshots again (the compare view asks for
 * the diff and its line counts) reads no candidate twice. A few hundred bytes per file.
 */
const counted = new WeakMap<FileSource, Map<string, ChunkCounts>>();
const MAX_CACHED_COUNTS = 4096;

function countsCache(source: FileSource): Map<string, ChunkCounts> {
  let cache = counted.get(source);
  if (cache === undefined) {
    cache = new Map();
    counted.set(source, cache);
  }
  return cache;
}

/**
 * Detection answers per pair of sources and options. Sources never change, so the same
 * comparison asked again (the compare view, a reload, another tab) costs nothing: scoring
 * every remaining source against every destination is most of a warm diff otherwise.
 */
type Detected = { changes: FileChangeView[]; detection: RenameDetectionView };
const detected = new WeakMap<FileSource, WeakMap<FileSource, Map<string, Detected>>>();
const MAX_DETECTIONS_PER_PAIR = 8;

function detectionCache(base: FileSource | null, target: FileSource | null): Map<string, Detected> | null {
  if (base === null || target === null) return null;
  let byTarget = detected.get(base);
  if (byTarget === undefined) detected.set(base, (byTarget = new WeakMap()));
  let cache = byTarget.get(target);
  if (cache === undefined) byTarget.set(target, (cache = new Map()));
  return cache;
}

interface Candidate {
  readonly source: FileChangeView;
  readonly destination: FileChangeView;
  readonly score: number;
}

/**
 * `changes` (as `diffFileLists` lists them) with renames and copies found: a rename replaces
 * its deleted and added entries by one `renamed` entry (`old_path` → `path`), a copy replaces
 * the added entry by a `copied` one. Reads from `base` and `target` only the candidates' files.
 */
export async function detectRenames(
  changes: readonly FileChangeView[],
  baseEntries: readonly FileIndexEntry[],
  targetEntries: readonly FileIndexEntry[],
  base: FileSource | null,
  target: FileSource | null,
  options: RenameOptions = {},
): Promise<{ changes: FileChangeView[]; detection: RenameDetectionView }> {
  const cache = detectionCache(base, target);
  const key = JSON.stringify([options.renames ?? true, options.copies ?? false, options.threshold ?? 50, options.limit ?? 1000, options.maxFileBytes ?? null]);
  const known = cache?.get(key);
  if (known !== undefined) return { changes: [...known.changes], detection: { ...known.detection } };
  const answer = await detectUncached(changes, baseEntries, targetEntries, base, target, options);
  if (cache !== null) {
    if (cache.size >= MAX_DETECTIONS_PER_PAIR) cache.delete(cache.keys().next().value as string);
    cache.set(key, { changes: [...answer.changes], detection: { ...answer.detection } });
  }
  return answer;
}

async function detectUncached(
  changes: readonly FileChangeView[],
  baseEntries: readonly FileIndexEntry[],
  targetEntries: readonly FileIndexEntry[],
  base: FileSource | null,
  target: FileSource | null,
  options: RenameOptions,
): Promise<{ changes: FileChangeView[]; detection: RenameDetectionView }> {
  const threshold = Math.min(100, Math.max(1, options.threshold ?? 50));
  const detection: RenameDetectionView = { renames: options.renames ?? true, copies: options.copies ?? false, threshold, limited: false };
  if (!detection.renames && !detection.copies) return { changes: [...changes], detection };
  const minimum = percentScore(threshold);
  const maxFileBytes = options.maxFileBytes ?? 8 * 1024 * 1024;
  const limit = options.limit ?? 1000;
  const added = changes.filter((change) => change.status === "added" && (change.target_size ?? 0) > 0);
  const deleted = changes.filter((change) => change.status === "deleted" && (change.base_size ?? 0) > 0);
  // Fingerprints of the candidates only: a 10,000-file listing is walked once, nothing else kept.
  const wanted = { b: new Set(deleted.map((change) => change.path)), t: new Set(added.map((change) => change.path)) };
  const fingerprints = { b: new Map<string, FileIndexEntry>(), t: new Map<string, FileIndexEntry>() };
  if (wanted.b.size > 0 && wanted.t.size > 0) {
    for (const entry of baseEntries) if (wanted.b.has(entry.path)) fingerprints.b.set(entry.path, entry);
    for (const entry of targetEntries) if (wanted.t.has(entry.path)) fingerprints.t.set(entry.path, entry);
  }
  const identity = (side: "b" | "t", path: string) => {
    const entry = fingerprints[side].get(path);
    return entry === undefined ? null : `${entry.size}\n${String(entry.fingerprint)}`;
  };
  const modified = changes.filter((change) => change.status === "modified");
  const renamed = new Map<FileChangeView, { source: FileChangeView; score: number }>();
  const copied = new Map<FileChangeView, { source: FileChangeView; score: number }>();
  const usedSources = new Set<FileChangeView>();

  // 1. Exact renames: equal size and fingerprint, same basename first.
  if (detection.renames) {
    const byContent = new Map<string, FileChangeView[]>();
    for (const source of deleted) {
      const key = identity("b", source.path);
      if (key !== null) byContent.set(key, [...(byContent.get(key) ?? []), source]);
    }
    for (const sameName of [true, false]) {
      for (const destination of added) {
        if (renamed.has(destination)) continue;
        const key = identity("t", destination.path);
        const sources = key === null ? undefined : byContent.get(key);
        const source = sources?.find((candidate) => !usedSources.has(candidate) && (!sameName || basename(candidate.path) === basename(destination.path)));
        if (source === undefined) continue;
        usedSources.add(source);
        renamed.set(destination, { source, score: MAX_SCORE });
      }
    }
  }

  // 2 and 3. Inexact: score candidates from their contents.
  const destinations = added.filter((change) => !renamed.has(change));
  const renameSources = detection.renames ? deleted.filter((change) => !usedSources.has(change)) : [];
  const copySources = detection.copies ? [...modified, ...deleted] : [];
  const sources = [...new Set([...renameSources, ...copySources])];
  if (destinations.length > 0 && sources.length > 0) {
    if (destinations.length * sources.length > limit * limit) {
      detection.limited = true;
    } else {
      const sizeOf = (change: FileChangeView, side: "base" | "target") => (side === "base" ? (change.base_size ?? 0) : (change.target_size ?? 0));
      const plausible = (source: FileChangeView, destination: FileChangeView) =>
        sizeOf(source, "base") <= maxFileBytes && sizeOf(destination, "target") <= maxFileBytes && !sizesRuleOut(sizeOf(source, "base"), sizeOf(destination, "target"), minimum);
      const wantedSources = sources.filter((source) => destinations.some((destination) => plausible(source, destination)));
      const wantedDestinations = destinations.filter((destination) => wantedSources.some((source) => plausible(source, destination)));
      const read = async (source: FileSource | null, path: string): Promise<ChunkCounts | null> => {
        if (source === null) return null;
        const cache = countsCache(source);
        const known = cache.get(path);
        if (known !== undefined) return known;
        try {
          const counts = chunkCounts(await source.read(path, maxFileBytes, { transient: true }));
          if (cache.size >= MAX_CACHED_COUNTS) cache.delete(cache.keys().next().value as string);
          cache.set(path, counts);
          return counts;
        } catch {
          return null; // unreadable: it stays a plain add or delete
        }
      };
      // Both sides' candidates are read at once (an archive serves concurrent reads).
      const [sourceRead, destinationRead] = await Promise.all([Promise.all(wantedSources.map((change) => read(base, change.path))), Promise.all(wantedDestinations.map((change) => read(target, change.path)))]);
      const sourceCounts = new Map<FileChangeView, ChunkCounts>();
      wantedSources.forEach((change, index) => {
        const counts = sourceRead[index];
        if (counts !== null && counts !== undefined) sourceCounts.set(change, counts);
      });
      const candidates: Candidate[] = [];
      for (const [index, destination] of wantedDestinations.entries()) {
        const counts = destinationRead[index];
        if (counts === null || counts === undefined) continue;
        for (const [source, sourceChunks] of sourceCounts) {
          if (!plausible(source, destination)) continue;
          const score = similarityScore(sourceChunks, counts, minimum);
          if (score >= minimum) candidates.push({ source, destination, score });
        }
      }
      // Best first; on equal scores the same basename, then path order (stable across runs).
      candidates.sort(
        (a, b) =>
          b.score - a.score ||
          Number(basename(b.source.path) === basename(b.destination.path)) - Number(basename(a.source.path) === basename(a.destination.path)) ||
          (a.destination.path < b.destination.path ? -1 : a.destination.path > b.destination.path ? 1 : 0) ||
          (a.source.path < b.source.path ? -1 : 1),
      );
      const renameSet = new Set(renameSources);
      for (const candidate of candidates) {
        if (renamed.has(candidate.destination) || !renameSet.has(candidate.source) || usedSources.has(candidate.source)) continue;
        usedSources.add(candidate.source);
        renamed.set(candidate.destination, { source: candidate.source, score: candidate.score });
      }
      if (detection.copies) {
        const copySet = new Set(copySources);
        for (const candidate of candidates) {
          if (renamed.has(candidate.destination) || copied.has(candidate.destination) || !copySet.has(candidate.source)) continue;
          // A deleted file may be the source of copies only once it was renamed away (as git's -C).
          if (candidate.source.status === "deleted" && !usedSources.has(candidate.source)) continue;
          copied.set(candidate.destination, { source: candidate.source, score: candidate.score });
        }
      }
    }
  }

  const result: FileChangeView[] = [];
  const renamedOut: FileChangeView[] = [];
  const copiedOut: FileChangeView[] = [];
  for (const change of changes) {
    const rename = renamed.get(change);
    const copy = copied.get(change);
    if (rename !== undefined) {
      renamedOut.push({ ...change, status: "renamed", old_path: rename.source.path, base_size: rename.source.base_size, similarity: scorePercent(rename.score) });
    } else if (copy !== undefined) {
      copiedOut.push({ ...change, status: "copied", old_path: copy.source.path, base_size: copy.source.base_size, similarity: scorePercent(copy.score) });
    } else if (!(change.status === "deleted" && usedSources.has(change))) {
      result.push(change);
    }
  }
  const firstDeleted = result.findIndex((change) => change.status === "deleted");
  const at = firstDeleted === -1 ? result.length : firstDeleted;
  result.splice(at, 0, ...renamedOut, ...copiedOut);
  return { changes: result, detection };
}
