/**
 * The snapshot strategies' stat cache: for one workspace root, the leaves of one stored
 * state (a git commit, a snapshot directory) with the stat fingerprint each file had when
 * its content id was computed. A file whose lstat still matches — and was not modified
 * too close to the scan that recorded it ("racy", as git calls it) — is not read again,
 * which keeps incremental snapshots and restores O(changes) in I/O.
 *
 * Persisted next to the snapshot storage, replaced atomically, as JSON or (the git
 * strategy, whose first restore in a process waits for the load) in the binary form of
 * workspace-index-binary.ts; a missing or unreadable index only costs a full re-read.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

import { decodeWorkspaceIndex, encodeWorkspaceIndex, isBinaryIndex } from "./workspace-index-binary.js";
import type { IndexEntry, WorkspaceIndex } from "./workspace-index-types.js";
import { RACY_MARGIN_MS, sameStat, type LeafKind, type LeafStat } from "./workspace-scan.js";

export { RACY_MARGIN_MS };
export type { IndexEntry, WorkspaceIndex } from "./workspace-index-types.js";

const FORMAT_VERSION = 1;

/** True when the cached entry still describes the file with stat `current`. */
export function isTrustworthy(entry: IndexEntry, current: LeafStat, scanStartedAtMs: number): boolean {
  if (!sameStat(entry, current)) return false;
  return Math.max(entry.mtimeMs, entry.ctimeMs) < scanStartedAtMs - RACY_MARGIN_MS;
}

type PackedEntry = [string, 0 | 1, number, number, number, number, number, string];

/** Read an index file (either form); null when missing, unreadable, for another root or another format. */
export function loadWorkspaceIndex(file: string, rootPath: string): WorkspaceIndex | null {
  let parsed: unknown;
  try {
    const data = readFileSync(file);
    if (isBinaryIndex(data)) return decodeWorkspaceIndex(data, rootPath);
    parsed = JSON.parse(data.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const data = parsed as { version?: unknown; root?: unknown; ref?: unknown; scanStartedAtMs?: unknown; entries?: unknown; treeDirs?: unknown };
  if (data.version !== FORMAT_VERSION || data.root !== rootPath || typeof data.ref !== "string" || typeof data.scanStartedAtMs !== "number" || !Array.isArray(data.entries)) {
    return null;
  }
  const entries = new Map<string, IndexEntry>();
  // Indexed reads, not `for…of` with array destructuring: this runs once per process on
  // cold code, where the iterator protocol per entry cost 4× the loop (40 vs 10 ms CPU for
  // 5,000 entries, first restore of a process).
  const items = data.entries as unknown[];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!Array.isArray(item) || item.length !== 8) return null;
    const packed = item as PackedEntry;
    const p = packed[0];
    const oid = packed[7];
    if (typeof p !== "string" || typeof oid !== "string") return null;
    const kind: LeafKind = packed[1] === 1 ? "symlink" : "file";
    entries.set(p, { kind, perm: packed[2], size: packed[3], mtimeMs: packed[4], ctimeMs: packed[5], ino: packed[6], oid });
  }
  const treeDirs = Array.isArray(data.treeDirs) && data.treeDirs.every((d) => typeof d === "string") ? new Set(data.treeDirs as string[]) : undefined;
  return { ref: data.ref, scanStartedAtMs: data.scanStartedAtMs, entries, ...(treeDirs === undefined ? {} : { treeDirs }) };
}

/** Serialised form of each entry object; entries are immutable and reused across indexes, so most saves only join strings. */
const packedCache = new WeakMap<IndexEntry, { path: string; text: string }>();

function packEntry(path: string, e: IndexEntry): string {
  const packed: PackedEntry = [path, e.kind === "symlink" ? 1 : 0, e.perm, e.size, e.mtimeMs, e.ctimeMs, e.ino, e.oid];
  return JSON.stringify(packed);
}

/** Write an index file atomically (temp file + rename in the same directory), as JSON or binary. */
export function saveWorkspaceIndex(file: string, rootPath: string, index: WorkspaceIndex, format: "json" | "binary" = "json"): void {
  const body = format === "binary" ? encodeWorkspaceIndex(rootPath, index) : jsonIndex(rootPath, index);
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    writeFileSync(temp, body);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function jsonIndex(rootPath: string, index: WorkspaceIndex): string {
  const parts: string[] = [];
  for (const [p, e] of index.entries) {
    let cached = packedCache.get(e);
    // Keyed by the entry object; one reused under another path is serialised again.
    if (cached === undefined || cached.path !== p) {
      cached = { path: p, text: packEntry(p, e) };
      packedCache.set(e, cached);
    }
    parts.push(cached.text);
  }
  const head = JSON.stringify({ version: FORMAT_VERSION, root: rootPath, ref: index.ref, scanStartedAtMs: index.scanStartedAtMs, treeDirs: index.treeDirs === undefined ? null : [...index.treeDirs] });
  return `${head.slice(0, -1)},"entries":[${parts.join(",")}]}`;
}

