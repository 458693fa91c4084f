/**
 * The persistent copy-on-write directory tree behind the in-memory backend.
 *
 * Every directory carries the ownership token of the tree version that created it. The
 * driver may mutate a directory in place only while the directory's token is the driver's
 * current token; `freeze` (a snapshot) replaces the current token, so everything reachable
 * at that moment becomes immutable and later writes copy just the directories on the
 * changed path (and inside each directory only the trie nodes of `name-map.ts` on the
 * changed name's path). Files are immutable records whose bytes are shared by every version that
 * contains them. Directories keep the number and total size of the files below them, so
 * a snapshot's counts are read off its root in O(1).
 */

import { NameMap, type OwnerToken, type ReadonlyNameMap } from "./name-map.js";

export const DEFAULT_FILE_MODE = 0o644;
export const DEFAULT_DIRECTORY_MODE = 0o755;
/** Permission bits we keep (including setuid/setgid/sticky); the file type lives in `kind`. */
export const PERMISSION_BITS = 0o7777;

export type { OwnerToken };

export interface MemoryFile {
  readonly kind: "file";
  /** Never mutated after creation; shared between versions. */
  readonly data: Uint8Array;
  readonly mode: number;
  readonly mtimeMs: number;
  readonly birthtimeMs: number;
}

export interface MemoryDirectory {
  readonly kind: "directory";
  /** The version allowed to mutate this node in place. */
  owner: OwnerToken;
  readonly children: NameMap<MemoryNode>;
  mode: number;
  mtimeMs: number;
  readonly birthtimeMs: number;
  /** Files anywhere below this directory. */
  fileCount: number;
  /** Sum of the sizes of those files. */
  totalBytes: number;
}

export type MemoryNode = MemoryFile | MemoryDirectory;

/** A directory as seen through a frozen version: nothing may change it any more. */
export interface FrozenDirectory {
  readonly kind: "directory";
  readonly children: ReadonlyNameMap<FrozenNode>;
  readonly mode: number;
  readonly mtimeMs: number;
  readonly birthtimeMs: number;
  readonly fileCount: number;
  readonly totalBytes: number;
}

export type FrozenNode = MemoryFile | FrozenDirectory;

export function newToken(): OwnerToken {
  return Symbol("memory-tree-version");
}

export function createDirectory(owner: OwnerToken, nowMs: number, mode: number = DEFAULT_DIRECTORY_MODE): MemoryDirectory {
  return {
    kind: "directory",
    owner,
    children: NameMap.empty(owner),
    mode: mode & PERMISSION_BITS,
    mtimeMs: nowMs,
    birthtimeMs: nowMs,
    fileCount: 0,
    totalBytes: 0,
  };
}

export function createFile(data: Uint8Array, mode: number, mtimeMs: number, birthtimeMs: number): MemoryFile {
  return { kind: "file", data, mode: mode & PERMISSION_BITS, mtimeMs, birthtimeMs };
}

/** `dir` itself when `owner` may mutate it, else a shallow copy owned by `owner`. */
export function ownDirectory(dir: MemoryDirectory, owner: OwnerToken): MemoryDirectory {
  if (dir.owner === owner) return dir;
  return {
    kind: "directory",
    owner,
    children: dir.children.fork(owner),
    mode: dir.mode,
    mtimeMs: dir.mtimeMs,
    birthtimeMs: dir.birthtimeMs,
    fileCount: dir.fileCount,
    totalBytes: dir.totalBytes,
  };
}

/** Files a node stands for: 1 for a file, the count below a directory. */
export function filesIn(node: FrozenNode): number {
  return node.kind === "file" ? 1 : node.fileCount;
}

export function bytesIn(node: FrozenNode): number {
  return node.kind === "file" ? node.data.byteLength : node.totalBytes;
}

export function splitPath(path: string): string[] {
  return path === "" ? [] : path.split("/");
}

/** Where a lookup ended: the node, or the index of the segment that is missing or a file in the way. */
export type Location =
  | { readonly found: true; readonly node: FrozenNode }
  | { readonly found: false; readonly reason: "missing" | "not-directory"; readonly index: number };

/** Read-only lookup of `segments` below `root`. */
export function locate(root: FrozenDirectory, segments: readonly string[]): Location {
  let node: FrozenNode = root;
  for (let i = 0; i < segments.length; i++) {
    if (node.kind !== "directory") return { found: false, reason: "not-directory", index: i - 1 };
    const child: FrozenNode | undefined = node.children.get(segments[i] as string);
    if (child === undefined) return { found: false, reason: "missing", index: i };
    node = child;
  }
  return { found: true, node };
}

/** Visits every node strictly below `dir`, depth-first, parents before their children. */
export function* walkTree(dir: FrozenDirectory, prefix: string): Generator<{ path: string; node: FrozenNode }> {
  const stack: { path: string; dir: FrozenDirectory }[] = [{ path: prefix, dir }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    for (const [name, node] of top.dir.children) {
      const path = top.path === "" ? name : `${top.path}/${name}`;
      yield { path, node };
      if (node.kind === "directory" && node.children.size > 0) stack.push({ path, dir: node });
    }
  }
}
