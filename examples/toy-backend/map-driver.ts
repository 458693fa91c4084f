/**
 * A toy backend, as a backend author would start one: a `FilesystemDriver` over a flat `Map`
 * of paths (a few dozen lines), wrapped in `DriverFilesystem`, which supplies the whole
 * protocol above it — path rules, limits, pagination, glob, grep, streams and archives.
 * `map-driver.test.ts` runs the conformance suite against it in one call.
 */
import { DirectoryNotEmptyError, FileExistsError, FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionDeniedError } from "../../shared/errors.js";
import type { DriverEntry, DriverStat, DriverWriteOptions, FileSink, FilesystemDriver, TreeTransaction, WalkEntry } from "../../shared/filesystem/driver.js";
import { DriverFilesystem, type FilesystemOptions } from "../../shared/filesystem/driver-backed/driver-filesystem.js";

type MapNode = { kind: "file"; data: Uint8Array; mode: number; mtimeMs: number } | { kind: "directory"; mode: number; mtimeMs: number };

const parentOf = (path: string): string => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

export class MapDriver implements FilesystemDriver {
  readonly name = "map";
  readonly root = "/";
  private nodes = new Map<string, MapNode>([["", { kind: "directory", mode: 0o755, mtimeMs: Date.now() }]]);

  private need(path: string): MapNode {
    const node = this.nodes.get(path);
    if (node === undefined) {
      for (let parent = parentOf(path); parent !== ""; parent = parentOf(parent)) if (this.nodes.get(parent)?.kind === "file") throw new NotADirectoryError(parent);
      throw new FileNotFoundError(path);
    }
    return node;
  }

  private makeParents(path: string, create: boolean, nodes = this.nodes): void {
    const parent = parentOf(path);
    const node = nodes.get(parent);
    if (node?.kind === "directory") return;
    if (node?.kind === "file") throw new NotADirectoryError(parent);
    if (!create) throw new FileNotFoundError(parent);
    this.makeParents(parent, true, nodes);
    nodes.set(parent, { kind: "directory", mode: 0o755, mtimeMs: Date.now() });
  }

  async stat(path: string): Promise<DriverStat | null> {
    const node = this.nodes.get(path);
    if (node === undefined) return null;
    return { kind: node.kind, size: node.kind === "file" ? node.data.length : 0, mtimeMs: node.mtimeMs, birthtimeMs: null, mode: node.mode };
  }

  async readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array> {
    const node = this.need(path);
    if (node.kind !== "file") throw new IsADirectoryError(path);
    return range === undefined ? node.data.slice() : node.data.slice(range.offset, range.offset + range.length);
  }

  async writeFile(path: string, data: Uint8Array, options: DriverWriteOptions): Promise<void> {
    const old = this.nodes.get(path);
    if (old?.kind === "directory") throw new IsADirectoryError(path);
    if (old !== undefined && options.mode === "create") throw new FileExistsError(path);
    this.makeParents(path, options.createParents);
    const bytes = options.mode === "append" && old?.kind === "file" ? new Uint8Array([...old.data, ...data]) : data.slice();
    this.nodes.set(path, { kind: "file", data: bytes, mode: old?.mode ?? options.fileMode ?? 0o644, mtimeMs: Date.now() });
  }

  async list(path: string): Promise<DriverEntry[]> {
    if (this.need(path).kind !== "directory") throw new NotADirectoryError(path);
    const entries: DriverEntry[] = [];
    for (const [child, node] of this.nodes) if (child !== "" && parentOf(child) === path) entries.push({ name: child.slice(path === "" ? 0 : path.length + 1), kind: node.kind });
    return entries;
  }

  async mkdir(path: string, options: { parents: boolean; existOk: boolean }): Promise<void> {
    const old = this.nodes.get(path);
    if (old !== undefined) {
      if (old.kind === "directory" && options.existOk) return;
      throw new FileExistsError(path);
    }
    this.makeParents(path, options.parents);
    this.nodes.set(path, { kind: "directory", mode: 0o755, mtimeMs: Date.now() });
  }

  async remove(path: string, options: { recursive: boolean }): Promise<void> {
    if (path === "") throw new PermissionDeniedError(path, "Cannot delete root");
    const below = [...this.nodes.keys()].filter((key) => key.startsWith(`${path}/`));
    this.need(path);
    if (below.length > 0 && !options.recursive) throw new DirectoryNotEmptyError(path);
    for (const key of [path, ...below]) this.nodes.delete(key);
  }

  async *walk(path: string): AsyncIterable<WalkEntry> {
    const prefix = path === "" ? "" : `${path}/`;
    for (const [key, node] of [...this.nodes]) {
      if (key === "" || !key.startsWith(prefix) || key === path) continue;
      yield { path: key, kind: node.kind, size: node.kind === "file" ? node.data.length : 0, mode: node.mode, mtimeMs: node.mtimeMs };
    }
  }

  async replaceTree(fill: (tx: TreeTransaction) => Promise<void>): Promise<void> {
    // Build the new state in a separate map; swap it in only when `fill` succeeded.
    const next = new Map<string, MapNode>([["", { kind: "directory", mode: 0o755, mtimeMs: Date.now() }]]);
    await fill({
      mkdir: async (path, mode) => {
        this.makeParents(path, true, next);
        next.set(path, { kind: "directory", mode: mode ?? 0o755, mtimeMs: Date.now() });
      },
      createFile: async (path, mode): Promise<FileSink> => {
        this.makeParents(path, true, next);
        const chunks: Uint8Array[] = [];
        return {
          write: async (chunk) => void chunks.push(chunk.slice()),
          close: async () => void next.set(path, { kind: "file", data: new Uint8Array(Buffer.concat(chunks)), mode: mode ?? 0o644, mtimeMs: Date.now() }),
        };
      },
    });
    this.nodes = next;
  }
}

/** The toy backend: the whole protocol over `MapDriver`. */
export class MapFilesystem extends DriverFilesystem {
  constructor(options: FilesystemOptions = {}, driver = new MapDriver()) {
    super(driver, options);
  }
}
