/**
 * Content ids of the leaves a scan found: taken from the workspace index when the stat
 * still matches, computed (and handed to the caller, content included) otherwise.
 */
import type { HashedLeaf, LeafReader } from "./leaf-reader.js";
import { isTrustworthy, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import type { WorkspaceScan } from "./workspace-scan.js";

function errnoOf(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

export interface IdentifyResult {
  /** Every leaf still present, with its content id and the stat that id belongs to. */
  readonly entries: Map<string, IndexEntry>;
  /** How many leaves had to be read. */
  readonly hashedCount: number;
}

/**
 * Identify every leaf of `scan`. `onHashed` sees each leaf that was read (awaited, so a
 * slow consumer such as a git pipe applies backpressure). Leaves that vanish meanwhile
 * are dropped.
 */
export async function identifyLeaves(
  scan: WorkspaceScan,
  index: WorkspaceIndex | null,
  reader: LeafReader,
  onHashed?: (path: string, leaf: HashedLeaf) => Promise<void> | void,
): Promise<IdentifyResult> {
  const entries = new Map<string, IndexEntry>();
  let hashedCount = 0;
  for (const [path, stat] of scan.leaves) {
    const cached = index?.entries.get(path);
    if (cached !== undefined && isTrustworthy(cached, stat, index!.scanStartedAtMs)) {
      entries.set(path, cached);
      continue;
    }
    let hashed: HashedLeaf;
    try {
      hashed = reader.hash(path, stat.kind);
    } catch (error) {
      if (errnoOf(error) === "ENOENT") continue;
      throw error;
    }
    hashedCount += 1;
    entries.set(path, { ...hashed.stat, oid: hashed.oid });
    if (onHashed) await onHashed(path, hashed);
  }
  return { entries, hashedCount };
}
