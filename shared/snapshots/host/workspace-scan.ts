/**
 * One pass over a host workspace: every directory, file and symlink with the stat fields
 * a change detector needs, never following symlinks. Paths are byte strings
 * (byte-paths.ts) relative to the root.
 *
 * The walk is synchronous on purpose: on this machine `lstatSync` walks 50,000 files in
 * ~160 ms while the promise version takes ~550 ms (a thread-pool round trip per call),
 * and the walk is the floor of every incremental snapshot and restore.
 */
import { constants, fstatSync, lstatSync, readdirSync, type Stats } from "node:fs";

import { isAsciiBytePath, joinBytePath, parentBytePath, toDisplayPath, toFsPath } from "./byte-paths.js";

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

/**
 * A walk compared with a workspace index as it goes: a leaf whose lstat matches its index
 * entry (and is not racy) is only counted — no object, no map entry — so what the callers
 * handle afterwards grows with the changes, not with the workspace.
 */
export interface IndexedScan {
  /** Wall-clock time before the first stat; entries modified after it are "racy". */
  readonly startedAtMs: number;
  /** Leaves the index does not vouch for: new, changed or racy (every leaf without an index). */
  readonly untrusted: Map<string, LeafStat>;
  /** Index leaves the walk did not find (deleted, or now a directory or special file). */
  readonly missing: string[];
  /** Files and symlinks found, and the sum of their sizes. */
  readonly leafCount: number;
  readonly totalBytes: number;
  /** Files whose permission bits are neither 0644 nor 0755 (the two a git mode implies). */
  readonly oddPerms: [string, number][];
  /** Directories below the root → permission bits. */
  readonly dirs: Map<string, number>;
  /** FIFOs, sockets and devices: never stored, removed by a restore. */
  readonly others: string[];
  /** Directories with at least one file or symlink somewhere below (the ones a git tree has). */
  readonly dirsWithLeaves: Set<string>;
}

/** A full walk: every leaf with its stat. */
export interface WorkspaceScan extends IndexedScan {
  readonly leaves: Map<string, LeafStat>;
}

export interface ScanOptions {
  /** Top-level names starting with this are not workspace content (the applier's staging). */
  readonly excludeTopLevelPrefix?: string;
}

/**
 * A file modified this close to (or after) the start of the scan that recorded it may be
 * modified again within the same timestamp tick, so its stat proves nothing. Kernel file
 * timestamps come from a coarse clock (a few ms behind wall time); 100 ms is ample.
 */
export const RACY_MARGIN_MS = 100;

/** The part of a workspace index a scan compares with (see workspace-index.ts). */
export interface ScanBaseline {
  readonly scanStartedAtMs: number;
  readonly entries: ReadonlyMap<string, LeafStat>;
}

/** A directory could not be read; the scan cannot be complete. */
export class ScanError extends Error {
  constructor(
    readonly relativePath: string,
    readonly errno: string | undefined,
    cause: unknown,
  ) {
    super(`cannot read ${toDisplayPath(relativePath) || "."}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "ScanError";
  }
}

function errnoOf(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

export function leafStatOf(stats: Stats, kind: LeafKind): LeafStat {
  return { kind, perm: stats.mode & 0o7777, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/** True when two stats describe the same unchanged file (git's stat-cache test). */
export function sameStat(a: LeafStat, b: LeafStat): boolean {
  return a.kind === b.kind && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.perm === b.perm;
}

/** Walk `rootBytes` (a byte-string absolute path) without an index: every leaf is returned. */
export function scanWorkspace(rootBytes: string, options: ScanOptions = {}): WorkspaceScan {
  const scan = scanAgainstIndex(rootBytes, null, options);
  return { ...scan, leaves: scan.untrusted };
}

/**
 * Walk `rootBytes` (a byte-string absolute path), comparing every leaf with `baseline` as
 * it is found (git's stat-cache test, racy entries excluded). Vanishing entries are
 * skipped; unreadable directories throw ScanError.
 */
export function scanAgainstIndex(rootBytes: string, baseline: ScanBaseline | null, options: ScanOptions = {}): IndexedScan {
  const startedAtMs = Date.now();
  const entries = baseline?.entries;
  // An entry recorded this late may have changed again within its timestamp tick.
  const racyFrom = (baseline?.scanStartedAtMs ?? 0) - RACY_MARGIN_MS;
  const untrusted = new Map<string, LeafStat>();
  const trusted: string[] = [];
  let knownUntrusted = 0;
  let leafCount = 0;
  let totalBytes = 0;
  const oddPerms: [string, number][] = [];
  const dirs = new Map<string, number>();
  const others: string[] = [];
  const dirsWithLeaves = new Set<string>();
  const excludePrefix = options.excludeTopLevelPrefix;
  const pending: string[] = [""];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const dirPath = joinBytePath(rootBytes, dir);
    const prefix = dirPath.endsWith("/") ? dirPath : `${dirPath}/`;
    const asciiPrefix = isAsciiBytePath(prefix);
    let names: string[];
    try {
      names = readdirSync(toFsPath(dirPath), { encoding: "latin1" });
    } catch (error) {
      const code = errnoOf(error);
      if (dir !== "" && (code === "ENOENT" || code === "ENOTDIR")) {
        dirs.delete(dir);
        continue;
      }
      throw new ScanError(dir, code, error);
    }
    let hasLeaf = false;
    for (const name of names) {
      if (dir === "" && excludePrefix !== undefined && name.startsWith(excludePrefix)) continue;
      const rel = dir === "" ? name : `${dir}/${name}`;
      let stats: Stats | undefined;
      try {
        stats = lstatSync(asciiPrefix && isAsciiBytePath(name) ? prefix + name : toFsPath(prefix + name), { throwIfNoEntry: false });
      } catch (error) {
        throw new ScanError(rel, errnoOf(error), error);
      }
      if (stats === undefined) continue;
      let kind: LeafKind;
      if (stats.isFile()) kind = "file";
      else if (stats.isSymbolicLink()) kind = "symlink";
      else {
        if (stats.isDirectory()) {
          dirs.set(rel, stats.mode & 0o7777);
          pending.push(rel);
        } else others.push(rel);
        continue;
      }
      hasLeaf = true;
      leafCount += 1;
      totalBytes += stats.size;
      const perm = stats.mode & 0o7777;
      if (kind === "file" && perm !== 0o644 && perm !== 0o755) oddPerms.push([rel, perm]);
      const entry = entries?.get(rel);
      if (entry !== undefined) {
        if (
          entry.kind === kind &&
          entry.size === stats.size &&
          entry.mtimeMs === stats.mtimeMs &&
          entry.ctimeMs === stats.ctimeMs &&
          entry.ino === stats.ino &&
          entry.perm === perm &&
          entry.mtimeMs < racyFrom &&
          entry.ctimeMs < racyFrom
        ) {
          trusted.push(rel);
          continue;
        }
        knownUntrusted += 1;
      }
      untrusted.set(rel, { kind, perm, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino });
    }
    if (hasLeaf) for (let d = dir; d !== "" && !dirsWithLeaves.has(d); d = parentBytePath(d)) dirsWithLeaves.add(d);
  }
  // A directory that vanished mid-scan has no leaves either.
  for (const d of dirsWithLeaves) if (!dirs.has(d)) dirsWithLeaves.delete(d);
  return { startedAtMs, untrusted, missing: missingFrom(entries, trusted, knownUntrusted, untrusted), leafCount, totalBytes, oddPerms, dirs, others, dirsWithLeaves };
}

/** Index entries the walk did not meet; free when every entry was met (the usual case). */
function missingFrom(entries: ReadonlyMap<string, LeafStat> | undefined, trusted: readonly string[], knownUntrusted: number, untrusted: ReadonlyMap<string, LeafStat>): string[] {
  if (entries === undefined || trusted.length + knownUntrusted === entries.size) return [];
  const met = new Set(trusted);
  const missing: string[] = [];
  for (const path of entries.keys()) if (!met.has(path) && !untrusted.has(path)) missing.push(path);
  return missing;
}

/** Flags for opening a workspace file for reading without following a final symlink or blocking on a FIFO. */
export const SAFE_READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Stat an open descriptor as a leaf (null when it is not a regular file). */
export function regularFileStat(fd: number): LeafStat | null {
  const stats = fstatSync(fd);
  return stats.isFile() ? leafStatOf(stats, "file") : null;
}
