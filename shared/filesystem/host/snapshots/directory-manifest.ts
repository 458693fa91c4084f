/**
 * The on-disk format of reflink/copy snapshots, one directory per snapshot:
 *
 *   <snapshotDir>/<snapshotId>/tree/…          the files this snapshot stored
 *   <snapshotDir>/<snapshotId>/manifest.json   the record, directories, and every leaf with its stat and owner
 *   <snapshotDir>/<snapshotId>/owners.json     the snapshot directories its leaves are stored in
 *   <snapshotDir>/<snapshotId>/released.json   instead of manifest.json once released (release.ts)
 *
 * The strategy (directory-strategy.ts) writes and reads it; release.ts reads only which
 * directories a live snapshot needs, so both learn the format here, versions included.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import type { LeafKind } from "./workspace-scan.js";

/** File inside every reflink/copy snapshot directory; its presence proves the directory is one. */
export const DIRECTORY_SNAPSHOT_MANIFEST = "manifest.json";
/** The snapshot directories whose trees a snapshot reads its files from (JSON array of names). */
export const DIRECTORY_SNAPSHOT_OWNERS = "owners.json";
/** What a released snapshot directory holds instead of its manifest, until nothing reads from it. */
export const DIRECTORY_SNAPSHOT_RELEASED = "released.json";
export const DIRECTORY_SNAPSHOT_TREE = "tree";

/** 1: a whole tree per snapshot, no owners. 2: each leaf names the snapshot directory holding it. */
const FORMAT_VERSION = 2;

/** A leaf as the manifest records it. */
export interface StoredLeaf {
  readonly kind: LeafKind;
  readonly perm: number;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * The owner: the snapshot directory whose tree holds the bytes. With the path it names
   * the stored content, so a manifest's leaves serve as a restore's target state as they are.
   */
  readonly oid: string;
}

export interface DirectoryManifest {
  readonly record: FilesystemSnapshot;
  readonly dirs: Map<string, number>;
  readonly owners: readonly string[];
  readonly leaves: Map<string, StoredLeaf>;
}

/** path, kind, perm, size, mtimeMs, index into `owners` (version 1: no owner, the snapshot itself). */
type PackedLeaf = [string, 0 | 1, number, number, number, number?];

/** A snapshot directory name: one path segment. */
export function isOwnerName(name: unknown): name is string {
  return typeof name === "string" && name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");
}

/** The manifest of the snapshot stored at `storagePath`; null when missing, unreadable or of another format. */
export function readDirectoryManifest(storagePath: string): DirectoryManifest | null {
  let parsed: { version?: unknown; record?: FilesystemSnapshot; dirs?: [string, number][]; owners?: unknown; leaves?: PackedLeaf[] };
  try {
    parsed = JSON.parse(readFileSync(path.join(storagePath, DIRECTORY_SNAPSHOT_MANIFEST), "utf8")) as typeof parsed;
  } catch {
    return null;
  }
  if ((parsed.version !== 1 && parsed.version !== FORMAT_VERSION) || parsed.record === undefined || !Array.isArray(parsed.dirs) || !Array.isArray(parsed.leaves)) return null;
  const owners = parsed.version === 1 ? [path.basename(storagePath)] : parsed.owners;
  if (!Array.isArray(owners) || !owners.every(isOwnerName)) return null;
  const leaves = new Map<string, StoredLeaf>();
  for (const [p, kind, perm, size, mtimeMs, ownerIndex = 0] of parsed.leaves) {
    const owner = owners[ownerIndex] as string | undefined;
    if (owner === undefined) return null;
    leaves.set(p, { kind: kind === 1 ? "symlink" : "file", perm, size, mtimeMs, oid: owner });
  }
  return { record: parsed.record, dirs: new Map(parsed.dirs), owners, leaves };
}

/** Write the manifest (and owners file) of a snapshot being stored at `storagePath`; returns its owners. */
export function writeDirectoryManifest(
  storagePath: string,
  record: FilesystemSnapshot,
  dirs: ReadonlyMap<string, number>,
  leaves: ReadonlyMap<string, StoredLeaf>,
): readonly string[] {
  const owners: string[] = [];
  const ownerIndex = new Map<string, number>();
  const packed: PackedLeaf[] = [];
  for (const [p, leaf] of leaves) {
    let at = ownerIndex.get(leaf.oid);
    if (at === undefined) {
      at = owners.push(leaf.oid) - 1;
      ownerIndex.set(leaf.oid, at);
    }
    packed.push([p, leaf.kind === "symlink" ? 1 : 0, leaf.perm, leaf.size, leaf.mtimeMs, at]);
  }
  writeFileSync(path.join(storagePath, DIRECTORY_SNAPSHOT_OWNERS), JSON.stringify(owners));
  writeFileSync(path.join(storagePath, DIRECTORY_SNAPSHOT_MANIFEST), JSON.stringify({ version: FORMAT_VERSION, record, dirs: [...dirs], owners, leaves: packed }));
  return owners;
}

/**
 * The snapshot directories the live snapshot at `storagePath` reads from: its owners file
 * (small), else its manifest. Null: cannot tell.
 */
export function readDirectoryOwners(storagePath: string): readonly string[] | null {
  try {
    const owners = JSON.parse(readFileSync(path.join(storagePath, DIRECTORY_SNAPSHOT_OWNERS), "utf8")) as unknown;
    return Array.isArray(owners) && owners.every(isOwnerName) ? owners : null;
  } catch {
    // no owners file (version 1, or lost): the manifest says
  }
  return readDirectoryManifest(storagePath)?.owners ?? null;
}
