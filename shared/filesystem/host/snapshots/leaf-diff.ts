/**
 * FilesystemDiff from two maps of leaves (byte path → content identity).
 */
import type { FilesystemDiff } from "../../snapshot-contract.js";
import { compareBytePaths, toDisplayPath } from "./byte-paths.js";

/** Sort byte paths and decode them for the public record. */
export function finishDiff(added: string[], modified: string[], deleted: string[], unchangedCount: number): FilesystemDiff {
  const out = (paths: string[]): string[] => paths.sort(compareBytePaths).map(toDisplayPath);
  return { added: out(added), modified: out(modified), deleted: out(deleted), unchangedCount };
}
