/**
 * A tar stream (POSIX ustar, with GNU long-name records for paths over 100 bytes) written to
 * a temp file on the host, so a whole tree can enter a container in one request: the exec
 * backend's tree replacement builds it from a `TreeTransaction` and the container's busybox
 * `tar -x` unpacks it into the staging directory.
 *
 * File data is streamed into the spool as it arrives; each header is written first with a
 * placeholder size and patched in place when the file is closed, so no file is ever held in
 * memory. Only regular files and directories are written (no links, devices or owners).
 */
import { createReadStream, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidArgumentError } from "../../errors.js";
import type { FileSink } from "../driver.js";

const BLOCK = 512;
/** Largest size an 11-digit octal field holds. */
const MAX_SIZE = 8 ** 11 - 1;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\u0000`;
}

function header(name: Buffer, mode: number, size: number, type: "0" | "5" | "L", mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK, 0);
  name.copy(block, 0, 0, Math.min(name.length, 100));
  block.write(octal(mode & 0o7777, 8), 100, "latin1");
  block.write(octal(0, 8), 108, "latin1");
  block.write(octal(0, 8), 116, "latin1");
  block.write(octal(size, 12), 124, "latin1");
  block.write(octal(mtime, 12), 136, "latin1");
  block.write("        ", 148, "latin1");
  block.write(type, 156, "latin1");
  block.write("ustar\u000000", 257, "latin1");
  block.write("root", 265, "latin1");
  block.write("root", 297, "latin1");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, "latin1");
  return block;
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest, 0);
}

/** A tar archive being written to a host temp file. */
export class TarSpool {
  private position = 0;
  private openSink = false;
  private finished = false;
  private readonly mtime = Math.floor(Date.now() / 1000);

  private constructor(
    private readonly dir: string,
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  static async create(parent = tmpdir()): Promise<TarSpool> {
    const dir = await fsp.mkdtemp(join(parent, "wink-tar-"));
    const path = join(dir, "tree.tar");
    return new TarSpool(dir, path, await fsp.open(path, "wx", 0o600));
  }

  /** Bytes written so far (the archive size once finished). */
  get size(): number {
    return this.position;
  }

  private async append(data: Buffer): Promise<void> {
    if (data.length === 0) return;
    await this.handle.write(data, 0, data.length, this.position);
    this.position += data.length;
  }

  /** Headers for `path`: a GNU long-name record first when the name does not fit. */
  private async writeHeader(path: string, mode: number, size: number, type: "0" | "5"): Promise<number> {
    if (this.finished) throw new InvalidArgumentError("Tar spool already finished", {});
    if (this.openSink) throw new InvalidArgumentError("Tree transaction files must be written one at a time", { path });
    const name = Buffer.from(type === "5" ? `${path}/` : path, "utf8");
    if (name.length > 100) {
      const longName = Buffer.concat([name, Buffer.from([0])]);
      await this.append(header(Buffer.from("././@LongLink", "latin1"), 0, longName.length, "L", this.mtime));
      await this.append(longName);
      await this.append(padding(longName.length));
    }
    const at = this.position;
    await this.append(header(name, mode, size, type, this.mtime));
    return at;
  }

  async directory(path: string, mode = 0o755): Promise<void> {
    await this.writeHeader(path, mode, 0, "5");
  }

  /** A sink for one file's bytes; the next entry can start once it is closed. */
  async file(path: string, mode = 0o644): Promise<FileSink> {
    const headerAt = await this.writeHeader(path, mode, 0, "0");
    this.openSink = true;
    let size = 0;
    let closed = false;
    return {
      write: async (chunk: Uint8Array) => {
        if (closed) throw new InvalidArgumentError(`File ${path} is already closed`, { path });
        size += chunk.length;
        if (size > MAX_SIZE) throw new InvalidArgumentError(`File ${path} is too large for the container transfer (over 8 GiB)`, { path });
        await this.append(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await this.append(padding(size));
        const nameBytes = Buffer.from(path, "utf8");
        const patched = header(nameBytes, mode, size, "0", this.mtime);
        await this.handle.write(patched, 0, BLOCK, headerAt);
        this.openSink = false;
      },
    };
  }

  /** Write the end-of-archive blocks; returns the archive size. */
  async finish(): Promise<number> {
    if (this.openSink) throw new InvalidArgumentError("A file of the tree transaction was never closed", {});
    if (!this.finished) {
      await this.append(Buffer.alloc(BLOCK * 2, 0));
      this.finished = true;
      await this.handle.close();
    }
    return this.position;
  }

  /** The finished archive's bytes, in chunks. */
  async *chunks(): AsyncIterable<Uint8Array> {
    for await (const chunk of createReadStream(this.path, { highWaterMark: 1024 * 1024 })) yield chunk as Buffer;
  }

  /** Remove the temp file. Idempotent. */
  async dispose(): Promise<void> {
    if (!this.finished) await this.handle.close().catch(() => undefined);
    this.finished = true;
    await fsp.rm(this.dir, { recursive: true, force: true });
  }
}
