/**
 * Builds a whole new tree for `MemoryDriver.replaceTree` (archive import, restore). The
 * tree is private to the transaction until the driver swaps its root pointer, so a
 * failure at any point simply drops it and the live tree never changes.
 */
import { FileExistsError, IsADirectoryError, StorageIOError } from "../../errors.js";
import type { FileSink, TreeTransaction } from "../driver.js";
import { MutableTree, lookupError } from "./mutable-tree.js";
import { type MemoryDirectory, DEFAULT_FILE_MODE, PERMISSION_BITS, createFile, locate, splitPath } from "./tree.js";

const EMPTY = new Uint8Array(0);

export class MemoryTreeTransaction implements TreeTransaction {
  private finished = false;
  private readonly openFiles = new Set<string>();

  constructor(readonly tree: MutableTree) {}

  private checkOpen(path: string): void {
    if (this.finished) throw new StorageIOError(path, `Tree replacement already finished; cannot change ${path}`);
  }

  async mkdir(path: string, mode?: number): Promise<void> {
    this.checkOpen(path);
    const segments = splitPath(path);
    const location = locate(this.tree.root, segments);
    if (location.found) {
      if (location.node.kind === "file") throw new FileExistsError(path);
      // Created earlier as a parent of something: this is where its own mode arrives.
      if (mode !== undefined && segments.length > 0) {
        const chain = this.tree.ownedChain(segments, path, Date.now());
        (chain[chain.length - 1] as MemoryDirectory).mode = mode & PERMISSION_BITS;
      }
      return;
    }
    if (location.reason === "not-directory") throw lookupError(location, path);
    this.tree.ownedChain(segments, path, Date.now(), mode);
  }

  async createFile(path: string, mode?: number): Promise<FileSink> {
    this.checkOpen(path);
    const segments = splitPath(path);
    if (segments.length === 0) throw new IsADirectoryError(path);
    const location = locate(this.tree.root, segments);
    if (location.found) throw new FileExistsError(path);
    if (location.reason === "not-directory") throw lookupError(location, path);

    const name = segments.pop() as string;
    const fileMode = mode ?? DEFAULT_FILE_MODE;
    const created = Date.now();
    const chain = this.tree.ownedChain(segments, path, created);
    (chain[chain.length - 1] as MemoryDirectory).children.set(name, createFile(EMPTY, fileMode, created, created));
    MutableTree.adjust(chain, 1, 0);
    this.openFiles.add(path);

    const chunks: Uint8Array[] = [];
    let size = 0;
    let closed = false;
    return {
      write: async (chunk: Uint8Array): Promise<void> => {
        this.checkOpen(path);
        if (closed) throw new StorageIOError(path, `Write after close: ${path}`);
        chunks.push(new Uint8Array(chunk));
        size += chunk.byteLength;
      },
      close: async (): Promise<void> => {
        if (closed) return;
        this.checkOpen(path);
        closed = true;
        const data = new Uint8Array(size);
        let at = 0;
        for (const chunk of chunks) {
          data.set(chunk, at);
          at += chunk.byteLength;
        }
        chunks.length = 0;
        const now = Date.now();
        const parents = this.tree.ownedChain(segments, path, now);
        (parents[parents.length - 1] as MemoryDirectory).children.set(name, createFile(data, fileMode, now, created));
        MutableTree.adjust(parents, 0, size);
        this.openFiles.delete(path);
      },
    };
  }

  /** Ends the transaction successfully; every file must have been closed. */
  commit(): void {
    this.checkOpen("");
    const [unclosed] = this.openFiles;
    if (unclosed !== undefined) {
      this.finished = true;
      throw new StorageIOError(unclosed, `File was not closed before the tree replacement finished: ${unclosed}`);
    }
    this.finished = true;
  }

  /** Ends the transaction after a failure; later calls on it fail. */
  abandon(): void {
    this.finished = true;
  }
}
