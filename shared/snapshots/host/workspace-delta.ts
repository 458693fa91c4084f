/**
 * How the workspace differs from the state its index mirrors, at the cost of the scan
 * plus reading the changed files: leaves the index trusts are skipped without reading or
 * allocating anything.
 */
import type { HashedLeaf, LeafReader } from "./leaf-reader.js";
import { isTrustworthy, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import type { WorkspaceScan } from "./workspace-scan.js";

function errnoOf(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** Index leaves the scan did not find (deleted, or turned into a directory or special file). */
export function missingLeaves(scan: WorkspaceScan, index: WorkspaceIndex | null): string[] {
  const missing: string[] = [];
  if (index !== null) for (const path of index.entries.keys()) if (!scan.leaves.has(path)) missing.push(path);
  return missing;
}

export interface ReadLeaves {
  /** Every leaf that had to be read: its new stat and content id (content may equal the index's). */
  readonly changed: Map<string, IndexEntry>;
  /** Leaves of the scan that vanished before they could be read. */
  readonly vanished: string[];
}

/**
 * Read the scanned leaves the index cannot vouch for. `onRead` sees each one with its
 * content (awaited, so a slow consumer such as a git pipe applies backpressure).
 */
export async function readUntrustedLeaves(
  scan: WorkspaceScan,
  index: WorkspaceIndex | null,
  reader: LeafReader,
  onRead?: (path: string, leaf: HashedLeaf) => Promise<void> | void,
): Promise<ReadLeaves> {
  const changed = new Map<string, IndexEntry>();
  const vanished: string[] = [];
  const entries = index?.entries;
  const since = index?.scanStartedAtMs ?? 0;
  for (const [path, stat] of scan.leaves) {
    const cached = entries?.get(path);
    if (cached !== undefined && isTrustworthy(cached, stat, since)) continue;
    let hashed: HashedLeaf;
    try {
      hashed = reader.hash(path, stat.kind);
    } catch (error) {
      if (errnoOf(error) === "ENOENT") {
        vanished.push(path);
        continue;
      }
      throw error;
    }
    changed.set(path, { ...hashed.stat, oid: hashed.oid });
    if (onRead) await onRead(path, hashed);
  }
  return { changed, vanished };
}

