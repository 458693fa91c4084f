/**
 * FilesystemDiff from two maps of leaves (byte path → content identity).
 */
import type { FilesystemDiff } from "../types.js";
import { compareBytePaths, toDisplayPath } from "./byte-paths.js";

/** `identity` is whatever makes two leaves equal: content id plus kind/mode. */
export function diffLeaves(base: ReadonlyMap<string, string>, target: ReadonlyMap<string, string>): FilesystemDiff {
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  let unchangedCount = 0;
  for (const [path, identity] of target) {
    const before = base.get(path);
    if (before === undefined) added.push(path);
    else if (before !== identity) modified.push(path);
    else unchangedCount += 1;
  }
  for (const path of base.keys()) if (!target.has(path)) deleted.push(path);
  return finishDiff(added, modified, deleted, unchangedCount);
}

/** Sort byte paths and decode them for the public record. */
export function finishDiff(added: string[], modified: string[], deleted: string[], unchangedCount: number): FilesystemDiff {
  const out = (paths: string[]): string[] => paths.sort(compareBytePaths).map(toDisplayPath);
  return { added: out(added), modified: out(modified), deleted: out(deleted), unchangedCount };
}
