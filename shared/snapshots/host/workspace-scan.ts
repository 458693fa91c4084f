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

import { joinBytePath, parentBytePath, toDisplayPath, toFsPath } from "./byte-paths.js";

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

export interface WorkspaceScan {
  /** Wall-clock time before the first stat; entries modified after it are "racy". */
  readonly startedAtMs: number;
  readonly leaves: Map<string, LeafStat>;
  /** Directories below the root → permission bits. */
  readonly dirs: Map<string, number>;
  /** FIFOs, sockets and devices: never stored, removed by a restore. */
  readonly others: string[];
  /** Directories with at least one file or symlink somewhere below (the ones a git tree has). */
  readonly dirsWithLeaves: Set<string>;
}

export interface ScanOptions {
  /** Top-level names starting with this are not workspace content (the applier's staging). */
  readonly excludeTopLevelPrefix?: string;
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

/** Walk `rootBytes` (a byte-string absolute path). Vanishing entries are skipped; unreadable directories throw ScanError. */
export function scanWorkspace(rootBytes: string, options: ScanOptions = {}): WorkspaceScan {
  const startedAtMs = Date.now();
  const leaves = new Map<string, LeafStat>();
  const dirs = new Map<string, number>();
  const others: string[] = [];
  const dirsWithLeaves = new Set<string>();
  const excludePrefix = options.excludeTopLevelPrefix;
  const pending: string[] = [""];
  const markLeafDir = (dir: string): void => {
    for (let d = dir; d !== "" && !dirsWithLeaves.has(d); d = parentBytePath(d)) dirsWithLeaves.add(d);
  };
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const dirPath = joinBytePath(rootBytes, dir);
    const prefix = dirPath.endsWith("/") ? dirPath : `${dirPath}/`;
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
    for (const name of names) {
      const rel = dir === "" ? name : `${dir}/${name}`;
      if (dir === "" && excludePrefix !== undefined && name.startsWith(excludePrefix)) continue;
      let stats: Stats | undefined;
      try {
        stats = lstatSync(toFsPath(prefix + name), { throwIfNoEntry: false });
      } catch (error) {
        throw new ScanError(rel, errnoOf(error), error);
      }
      if (stats === undefined) continue;
      if (stats.isDirectory()) {
        dirs.set(rel, stats.mode & 0o7777);
        pending.push(rel);
      } else if (stats.isFile()) {
        leaves.set(rel, leafStatOf(stats, "file"));
        markLeafDir(dir);
      } else if (stats.isSymbolicLink()) {
        leaves.set(rel, leafStatOf(stats, "symlink"));
        markLeafDir(dir);
      } else {
        others.push(rel);
      }
    }
  }
  // A directory that vanished mid-scan has no leaves either.
  for (const d of dirsWithLeaves) if (!dirs.has(d)) dirsWithLeaves.delete(d);
  return { startedAtMs, leaves, dirs, others, dirsWithLeaves };
}

/** Flags for opening a workspace file for reading without following a final symlink or blocking on a FIFO. */
export const SAFE_READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Stat an open descriptor as a leaf (null when it is not a regular file). */
export function regularFileStat(fd: number): LeafStat | null {
  const stats = fstatSync(fd);
  return stats.isFile() ? leafStatOf(stats, "file") : null;
}
