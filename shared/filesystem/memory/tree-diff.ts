/**
 * Diff of two versions of the copy-on-write tree. Subtrees (and trie nodes inside a
 * directory) that are the same object in both versions are unchanged by construction and
 * are counted, not visited, so the cost follows the changes, not the file count.
 */
import type { FilesystemDiff } from "../snapshot-contract.js";
import { comparePaths } from "../paths.js";
import { type FrozenDirectory, type FrozenNode, type MemoryFile, filesIn, walkTree } from "./tree.js";

interface DiffAccumulator {
  readonly added: string[];
  readonly modified: string[];
  readonly deleted: string[];
  unchanged: number;
}

function joinPath(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}/${name}`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A file counts as modified when its bytes or its permission bits differ; a new mtime alone is not a change. */
export function sameFileContent(a: MemoryFile, b: MemoryFile): boolean {
  return a.mode === b.mode && sameBytes(a.data, b.data);
}

/** Every file path a node stands for: itself, or the files below it. */
function collectFiles(node: FrozenNode, path: string, into: string[]): void {
  if (node.kind === "file") {
    into.push(path);
    return;
  }
  for (const entry of walkTree(node, path)) if (entry.node.kind === "file") into.push(entry.path);
}

function compareNodes(base: FrozenNode, target: FrozenNode, path: string, acc: DiffAccumulator): void {
  if (base === target) {
    acc.unchanged += filesIn(base);
  } else if (base.kind === "file" && target.kind === "file") {
    if (sameFileContent(base, target)) acc.unchanged++;
    else acc.modified.push(path);
  } else if (base.kind === "directory" && target.kind === "directory") {
    compareDirectories(base, target, path, acc);
  } else {
    collectFiles(base, path, acc.deleted);
    collectFiles(target, path, acc.added);
  }
}

function compareDirectories(base: FrozenDirectory, target: FrozenDirectory, prefix: string, acc: DiffAccumulator): void {
  // Entries both versions share are skipped by the trie; their files are unchanged.
  let unchangedHere = base.fileCount;
  base.children.forEachDifference(target.children, (name, baseChild, targetChild) => {
    const path = joinPath(prefix, name);
    if (baseChild !== undefined) unchangedHere -= filesIn(baseChild);
    if (baseChild === undefined) {
      if (targetChild !== undefined) collectFiles(targetChild, path, acc.added);
    } else if (targetChild === undefined) {
      collectFiles(baseChild, path, acc.deleted);
    } else {
      compareNodes(baseChild, targetChild, path, acc);
    }
  });
  acc.unchanged += unchangedHere;
}

/** Files added, modified and deleted going from `base` to `target`, each list sorted by path. */
export function diffTrees(base: FrozenDirectory, target: FrozenDirectory): FilesystemDiff {
  const acc: DiffAccumulator = { added: [], modified: [], deleted: [], unchanged: 0 };
  compareNodes(base, target, "", acc);
  return {
    added: acc.added.sort(comparePaths),
    modified: acc.modified.sort(comparePaths),
    deleted: acc.deleted.sort(comparePaths),
    unchangedCount: acc.unchanged,
  };
}
