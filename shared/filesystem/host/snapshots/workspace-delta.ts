/**
 * How the workspace differs from the state its index mirrors, at the cost of the scan
 * plus reading the changed files: the scan already set aside the leaves the index cannot
 * vouch for (scanAgainstIndex), and only those are read.
 */
import type { HashedLeaf, LeafReader } from "./leaf-reader.js";
import type { IndexEntry } from "./workspace-index.js";
import type { IndexedScan } from "./workspace-scan.js";
import { errnoCode } from "../../errno.js";

export interface ReadLeaves {
  /** Every leaf that had to be read: its new stat and content id (content may equal the index's). */
  readonly changed: Map<string, IndexEntry>;
  /** Leaves of the scan that vanished before they could be read. */
  readonly vanished: string[];
}

/**
 * Read the leaves the scan did not trust. `onRead` sees each one with its content
 * (awaited, so a slow consumer such as a git pipe applies backpressure).
 */
export async function readUntrustedLeaves(scan: IndexedScan, reader: LeafReader, onRead?: (path: string, leaf: HashedLeaf) => Promise<void> | void): Promise<ReadLeaves> {
  const changed = new Map<string, IndexEntry>();
  const vanished: string[] = [];
  for (const [path, stat] of scan.untrusted) {
    let hashed: HashedLeaf;
    try {
      hashed = reader.hash(path, stat.kind);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") {
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
