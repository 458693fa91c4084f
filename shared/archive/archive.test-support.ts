/**
 * Helpers for the archive tests and bench: transactions that record or write to a real
 * directory, a directory walker producing `ArchiveSourceEntry`s, and a python3 runner.
 * Not part of the library (excluded from the build with the tests).
 */
import { execFile } from "node:child_process";
import { closeSync, createReadStream, fchmodSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, writeSync } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import nodePath from "node:path";
import { promisify } from "node:util";
import type { FileSink, TreeTransaction } from "../filesystem/driver.js";
import type { ArchiveSourceEntry } from "./writer.node.js";

export const execFileAsync = promisify(execFile);

const UMASK = process.umask();

/** A file or directory as a transaction received it. */
export interface RecordedNode {
  readonly kind: "file" | "directory";
  readonly mode: number | undefined;
  data: Uint8Array;
  closed: boolean;
}

/** A TreeTransaction that keeps everything in memory and logs every call. */
export class RecordingTransaction implements TreeTransaction {
  readonly calls: string[] = [];
  readonly nodes = new Map<string, RecordedNode>();

  async mkdir(path: string, mode?: number): Promise<void> {
    this.calls.push(`mkdir ${path}`);
    this.nodes.set(path, { kind: "directory", mode, data: new Uint8Array(0), closed: true });
  }

  async createFile(path: string, mode?: number): Promise<FileSink> {
    this.calls.push(`createFile ${path}`);
    if (this.nodes.has(path)) throw new Error(`createFile twice: ${path}`);
    const node: RecordedNode = { kind: "file", mode, data: new Uint8Array(0), closed: false };
    this.nodes.set(path, node);
    const parts: Uint8Array[] = [];
    return {
      write: async (chunk) => {
        if (node.closed) throw new Error(`write after close: ${path}`);
        parts.push(Uint8Array.from(chunk));
      },
      close: async () => {
        node.data = Buffer.concat(parts);
        node.closed = true;
      },
    };
  }

  /** Files as path → UTF-8/bytes, for assertions. */
  files(): Map<string, RecordedNode> {
    return new Map([...this.nodes].filter(([, node]) => node.kind === "file"));
  }
}

/**
 * Models a driver's `replaceTree`: `fill` builds a fresh transaction; only when it succeeds
 * does it become the committed state. Returns the transaction that was filled.
 */
export class RecordingWorkspace {
  committed: RecordingTransaction = new RecordingTransaction();

  async replaceTree(fill: (tx: RecordingTransaction) => Promise<unknown>): Promise<RecordingTransaction> {
    const tx = new RecordingTransaction();
    await fill(tx);
    this.committed = tx;
    return tx;
  }
}

/** A TreeTransaction writing straight into `root` (which must exist); refuses paths leaving it. */
export class DirectoryTransaction implements TreeTransaction {
  readonly #made = new Set<string>();

  /** `io: "sync"` uses synchronous fs calls (Node's async fs costs ~5× the CPU per small file). */
  constructor(
    readonly root: string,
    readonly options: { io?: "async" | "sync" } = {},
  ) {}

  #resolve(path: string): string {
    const target = nodePath.resolve(this.root, path);
    if (!target.startsWith(`${this.root}${nodePath.sep}`)) throw new Error(`path escapes the transaction root: ${path}`);
    return target;
  }

  async #parents(target: string): Promise<void> {
    const parent = nodePath.dirname(target);
    if (this.#made.has(parent)) return;
    if (this.options.io === "sync") mkdirSync(parent, { recursive: true });
    else await mkdir(parent, { recursive: true });
    this.#made.add(parent);
  }

  async mkdir(path: string, mode?: number): Promise<void> {
    const target = this.#resolve(path);
    await mkdir(target, { recursive: true, mode: mode ?? 0o755 });
    this.#made.add(target);
  }

  async createFile(path: string, mode?: number): Promise<FileSink> {
    const target = this.#resolve(path);
    await this.#parents(target);
    // open() applies the umask; only then is a chmod needed.
    const chmodNeeded = mode !== undefined && (mode & UMASK) !== 0;
    if (this.options.io === "sync") {
      const fd = openSync(target, "wx", mode ?? 0o644);
      return {
        write: async (chunk) => {
          for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done, chunk.length - done);
        },
        close: async () => {
          if (chmodNeeded) fchmodSync(fd, mode);
          closeSync(fd);
        },
      };
    }
    const handle = await open(target, "wx", mode ?? 0o644);
    return {
      write: async (chunk) => {
        for (let done = 0; done < chunk.length; ) done += (await handle.write(chunk, done, chunk.length - done)).bytesWritten;
      },
      close: async () => {
        if (chmodNeeded) await handle.chmod(mode);
        await handle.close();
      },
    };
  }
}

async function* readWhole(absolute: string): AsyncGenerator<Uint8Array> {
  yield await readFile(absolute);
}

async function* readWholeSync(absolute: string): AsyncGenerator<Uint8Array> {
  yield readFileSync(absolute);
}

export interface WalkOptions {
  /**
   * "async": fs/promises throughout. "sync": readdir/lstat and files up to 1 MiB read
   * synchronously (Node's async fs costs ~5× the CPU per small file, see the bench).
   */
  readonly io?: "async" | "sync";
}

/** Every node below `root` as archive source entries (lstat: symlinks are reported, not followed). */
export async function* walkDirectory(root: string, options: WalkOptions = {}, relative = ""): AsyncGenerator<ArchiveSourceEntry> {
  const sync = options.io === "sync";
  const names = sync ? readdirSync(nodePath.join(root, relative)) : await readdir(nodePath.join(root, relative));
  for (const name of names.sort()) {
    const path = relative === "" ? name : `${relative}/${name}`;
    const absolute = nodePath.join(root, path);
    const stat = sync ? lstatSync(absolute) : await lstat(absolute);
    const kind = stat.isFile() ? "file" : stat.isDirectory() ? "directory" : stat.isSymbolicLink() ? "symlink" : "other";
    const small = stat.size <= 1024 * 1024;
    yield {
      path,
      kind,
      size: stat.isFile() ? stat.size : 0,
      mode: stat.mode & 0o7777,
      mtimeMs: stat.mtimeMs,
      // Small files in one read: a 1 MiB stream buffer per small file would mostly measure GC.
      chunks: () => (small ? (sync ? readWholeSync(absolute) : readWhole(absolute)) : createReadStream(absolute, { highWaterMark: 1024 * 1024 })),
    };
    if (kind === "directory") yield* walkDirectory(root, options, path);
  }
}

/** In-memory source entries: `content` null makes a directory. */
export function memorySource(tree: ReadonlyArray<{ path: string; content: Uint8Array | string | null; mode?: number }>): ArchiveSourceEntry[] {
  return tree.map(({ path, content, mode }) => {
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    return {
      path,
      kind: bytes === null ? "directory" : "file",
      size: bytes?.length ?? 0,
      mode: mode ?? (bytes === null ? 0o755 : 0o644),
      mtimeMs: Date.UTC(2024, 0, 15, 10, 30, 0),
      async *chunks() {
        if (bytes !== null && bytes.length > 0) yield bytes;
      },
    };
  });
}

/** Run a python3 script with arguments; returns stdout. */
export async function python(script: string, args: readonly string[] = []): Promise<string> {
  const { stdout } = await execFileAsync("python3", ["-c", script, ...args], { maxBuffer: 512 * 1024 * 1024 });
  return stdout;
}

/** A fresh temporary directory and its cleanup. */
export async function makeTempDir(prefix = "wink-archive-test-"): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(nodePath.join(os.tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Overwrite the CRC-32 of entry `name` in both its central record and its local header,
 * so the headers agree with each other but not with the data.
 */
export async function patchCrc(archivePath: string, name: string, crc: number): Promise<void> {
  const bytes = await readFile(archivePath);
  const nameBytes = Buffer.from(name);
  for (let at = bytes.indexOf(CENTRAL_SIGNATURE); at !== -1; at = bytes.indexOf(CENTRAL_SIGNATURE, at + 4)) {
    if (bytes.readUInt16LE(at + 28) !== nameBytes.length || !bytes.subarray(at + 46, at + 46 + nameBytes.length).equals(nameBytes)) continue;
    bytes.writeUInt32LE(crc, at + 16);
    bytes.writeUInt32LE(crc, bytes.readUInt32LE(at + 42) + 14);
    await writeFile(archivePath, bytes);
    return;
  }
  throw new Error(`no central record for ${name}`);
}

const CENTRAL_SIGNATURE = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
