/**
 * `FilesystemDriver` over the persistent copy-on-write tree of `tree.ts`.
 *
 * Every method but `walk` and `replaceTree` runs synchronously inside its promise, so no
 * other call interleaves with it; `walk` iterates a frozen version and `replaceTree` builds
 * its tree off to the side, so writes meanwhile cannot tear either. Bytes are copied on the way in and out: the stored arrays are shared between versions
 * and must never be reachable by callers.
 */
import {
  DirectoryNotEmptyError,
  FileExistsError,
  IsADirectoryError,
  NotADirectoryError,
  PermissionDeniedError,
} from "../../errors.js";
import type {
  DriverEntry,
  DriverStat,
  DriverWriteOptions,
  FilesystemDriver,
  TreeTransaction,
  WalkEntry,
} from "../driver.js";
import { MutableTree, lookupError } from "./mutable-tree.js";
import { MemoryTreeTransaction } from "./tree-transaction.js";
import {
  type FrozenDirectory,
  type FrozenNode,
  type MemoryDirectory,
  DEFAULT_FILE_MODE,
  bytesIn,
  createDirectory,
  createFile,
  filesIn,
  locate,
  newToken,
  splitPath,
  walkTree,
} from "./tree.js";

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** An in-memory driver: a copy-on-write directory tree whose versions can be frozen and swapped. */
export class MemoryDriver implements FilesystemDriver {
  readonly name = "memory";
  readonly root = "/";
  private tree: MutableTree;

  constructor() {
    const token = newToken();
    this.tree = new MutableTree(createDirectory(token, Date.now()), token);
  }

  /**
   * The live root, for synchronous inspection only: it may change in place with the next
   * write, so hold on to it across an `await` only after `freezeVersion()`.
   */
  get currentVersion(): FrozenDirectory {
    return this.tree.root;
  }

  /** Makes the current tree immutable (O(1)) and returns its root; later writes copy their path. */
  freezeVersion(): FrozenDirectory {
    const root = this.tree.root;
    this.tree = new MutableTree(root, newToken());
    return root;
  }

  /** Makes a version returned by `freezeVersion()` the live tree again (O(1)). */
  restoreVersion(root: FrozenDirectory): void {
    // A frozen root's token is retired, so the fresh token below never mutates it in place.
    this.tree = new MutableTree(root as MemoryDirectory, newToken());
  }

  private find(path: string): FrozenNode {
    const location = locate(this.tree.root, splitPath(path));
    if (!location.found) throw lookupError(location, path);
    return location.node;
  }

  async stat(path: string): Promise<DriverStat | null> {
    const location = locate(this.tree.root, splitPath(path));
    if (!location.found) return null;
    const node = location.node;
    return {
      kind: node.kind,
      size: node.kind === "file" ? node.data.byteLength : 0,
      mtimeMs: node.mtimeMs,
      birthtimeMs: node.birthtimeMs,
      mode: node.mode,
    };
  }

  async readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array> {
    const node = this.find(path);
    if (node.kind !== "file") throw new IsADirectoryError(path);
    if (range === undefined) return node.data.slice();
    const start = Math.max(0, range.offset);
    return node.data.slice(start, start + Math.max(0, range.length));
  }

  async writeFile(path: string, data: Uint8Array, options: DriverWriteOptions): Promise<void> {
    const segments = splitPath(path);
    if (segments.length === 0) throw new IsADirectoryError(path);
    const location = locate(this.tree.root, segments);
    if (location.found) {
      if (location.node.kind === "directory") throw new IsADirectoryError(path);
      if (options.mode === "create") throw new FileExistsError(path);
    } else if (location.reason === "not-directory" || (location.index < segments.length - 1 && !options.createParents)) {
      throw lookupError(location, path);
    }

    const now = Date.now();
    const name = segments.pop() as string;
    const chain = this.tree.ownedChain(segments, path, now);
    const parent = chain[chain.length - 1] as MemoryDirectory;
    const old = parent.children.get(name);
    const previous = old?.kind === "file" ? old : undefined;
    // Copy the caller's bytes: a Buffer or reused array must not alias a stored version.
    const bytes = options.mode === "append" && previous ? concatBytes(previous.data, data) : new Uint8Array(data);
    const mode = previous?.mode ?? options.fileMode ?? DEFAULT_FILE_MODE;
    parent.children.set(name, createFile(bytes, mode, now, previous?.birthtimeMs ?? now));
    if (!previous) parent.mtimeMs = now;
    MutableTree.adjust(chain, previous ? 0 : 1, bytes.byteLength - (previous?.data.byteLength ?? 0));
  }

  async list(path: string): Promise<DriverEntry[]> {
    const node = this.find(path);
    if (node.kind !== "directory") throw new NotADirectoryError(path);
    const entries: DriverEntry[] = [];
    for (const [name, child] of node.children) entries.push({ name, kind: child.kind });
    return entries;
  }

  async mkdir(path: string, options: { parents: boolean; existOk: boolean }): Promise<void> {
    const segments = splitPath(path);
    const location = locate(this.tree.root, segments);
    if (location.found) {
      if (location.node.kind === "directory" && options.existOk) return;
      throw new FileExistsError(path);
    }
    if (location.reason === "not-directory" || (location.index < segments.length - 1 && !options.parents)) {
      throw lookupError(location, path);
    }
    this.tree.ownedChain(segments, path, Date.now());
  }

  async remove(path: string, options: { recursive: boolean }): Promise<void> {
    const segments = splitPath(path);
    if (segments.length === 0) throw new PermissionDeniedError(path, "Cannot delete root");
    const node = this.find(path);
    if (node.kind === "directory" && node.children.size > 0 && !options.recursive) {
      throw new DirectoryNotEmptyError(path);
    }
    const now = Date.now();
    const name = segments.pop() as string;
    const chain = this.tree.ownedChain(segments, path, now);
    const parent = chain[chain.length - 1] as MemoryDirectory;
    parent.children.delete(name);
    parent.mtimeMs = now;
    MutableTree.adjust(chain, -filesIn(node), -bytesIn(node));
  }

  async *walk(path: string): AsyncIterable<WalkEntry> {
    const start = this.find(path);
    if (start.kind !== "directory") throw new NotADirectoryError(path);
    // Freezing lets the walk see one consistent version while writes go on meanwhile.
    this.freezeVersion();
    for (const { path: childPath, node } of walkTree(start, path)) {
      yield {
        path: childPath,
        kind: node.kind,
        size: node.kind === "file" ? node.data.byteLength : 0,
        mode: node.mode,
        mtimeMs: node.mtimeMs,
      };
    }
  }

  async replaceTree(fill: (tx: TreeTransaction) => Promise<void>): Promise<void> {
    const token = newToken();
    const transaction = new MemoryTreeTransaction(new MutableTree(createDirectory(token, Date.now()), token));
    try {
      await fill(transaction);
      transaction.commit();
    } catch (error) {
      transaction.abandon();
      throw error;
    }
    this.tree = transaction.tree;
  }
}
