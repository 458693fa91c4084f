/**
 * One mutable version of the copy-on-write tree: its root and the token that may change
 * nodes in place. The driver's live tree and a tree being built by `replaceTree` are both
 * `MutableTree`s, so they follow the same copy and counting rules.
 */
import { FileNotFoundError, NotADirectoryError, type FilesystemError } from "../../errors.js";
import {
  type Location,
  type MemoryDirectory,
  type MemoryNode,
  type OwnerToken,
  DEFAULT_DIRECTORY_MODE,
  createDirectory,
  ownDirectory,
} from "./tree.js";

/** The error a failed lookup of `path` stands for. */
export function lookupError(location: Location & { found: false }, path: string): FilesystemError {
  return location.reason === "missing" ? new FileNotFoundError(path) : new NotADirectoryError(path);
}

export class MutableTree {
  constructor(
    public root: MemoryDirectory,
    public readonly token: OwnerToken,
  ) {}

  /**
   * The directories from the root down to `segments` (all of them), each made mutable by
   * this version, creating missing ones. Callers check for errors first, so the only
   * failure left here is a file in the way (ENOTDIR naming `path`), which is detected
   * before any directory is created.
   */
  ownedChain(segments: readonly string[], path: string, nowMs: number, lastMode?: number): MemoryDirectory[] {
    let dir = ownDirectory(this.root, this.token);
    this.root = dir;
    const chain = [dir];
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i] as string;
      const child: MemoryNode | undefined = dir.children.get(name);
      let next: MemoryDirectory;
      if (child === undefined) {
        const mode = i === segments.length - 1 && lastMode !== undefined ? lastMode : DEFAULT_DIRECTORY_MODE;
        next = createDirectory(this.token, nowMs, mode);
        dir.children.set(name, next);
        dir.mtimeMs = nowMs;
      } else if (child.kind === "file") {
        throw new NotADirectoryError(path);
      } else {
        next = ownDirectory(child, this.token);
        if (next !== child) dir.children.set(name, next);
      }
      chain.push(next);
      dir = next;
    }
    return chain;
  }

  /** Adds `files` and `bytes` to the counters of every directory on `chain`. */
  static adjust(chain: readonly MemoryDirectory[], files: number, bytes: number): void {
    if (files === 0 && bytes === 0) return;
    for (const dir of chain) {
      dir.fileCount += files;
      dir.totalBytes += bytes;
    }
  }
}
