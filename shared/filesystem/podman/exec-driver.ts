/**
 * `FilesystemDriver` for a directory inside a container that has no bind mount: every
 * operation runs the fixed helper script through `podman exec` (see `exec-helper-script.ts`
 * for the safety rules and `exec-transport.ts` for how requests travel).
 *
 * One request per driver call; `walk` and `list` return a whole tree or directory in one
 * request, tree replacement sends one tar stream, and whole-file reads issued together
 * (grep reads 32 files at a time) are coalesced into one `readmany` request. Writes are atomic inside the container
 * (temp file + rename, hard link for create); tree replacement stages and swaps under a
 * journal, and an interrupted swap is finished or rolled back before the next first
 * operation. Symlinks inside the container are never followed.
 *
 * Known limits: the link checks run in the container's shell, so a process *inside* the
 * container that swaps a directory for a link between check and use can redirect that one
 * operation to elsewhere in the container (never to the host: the container is the
 * boundary). Names containing a newline are listed but cannot be read or written, and
 * names that are not valid UTF-8 are reported with U+FFFD replacement characters.
 */
import { hasErrorCode, InvalidArgumentError } from "../../errors.js";
import type { DriverEntry, DriverStat, DriverWriteOptions, FilesystemDriver, TreeTransaction, WalkEntry } from "../driver.js";
import type { EntryKind } from "../protocol.js";
import { displayPath } from "../paths.js";
import type { PodmanContainer } from "./container.js";
import { ReservedNames, onceUntilDone } from "../driver-support.js";
import { EXEC_RESERVED_PREFIX } from "./exec-helper-script.js";
import { parseStatus, statusError, type ExecResponse } from "./exec-protocol.js";
import { createExecTransport, type ExecPayload, type ExecTransport, type ExecTransportKind } from "./exec-transport.js";
import { defaultPodman, type Podman } from "./podman-cli.js";
import { TarSpool } from "./tar-spool.js";

export interface PodmanExecDriverOptions {
  /** The container (a `PodmanContainer`, or the id or name of any running container with a POSIX shell). */
  readonly container: PodmanContainer | string;
  /** Podman CLI (default: the container's, or the default CLI). */
  readonly podman?: Podman;
  /** Directory in the container that is the filesystem root (default: the container's workdir, else "/workspace"). */
  readonly workdir?: string;
  /** Writable scratch directory in the container (default "/tmp"). */
  readonly tempDir?: string;
  /** "session" (default: one long-lived exec) or "per-call" (one exec per operation). */
  readonly transport?: ExecTransportKind;
  /** Per-request deadline (default 120 s). */
  readonly requestTimeoutMs?: number;
}

const DEFAULT_FILE_MODE = 0o644;
/** Requests that can be repeated safely after a lost session. */
const READ_ONLY_OPS = new Set(["stat", "read", "readmany", "list", "walk", "recover", "snaplist", "cmpmany"]);
/** Whole-file reads coalesced into one request at most. */
const READ_BATCH = 64;

interface PendingRead {
  readonly path: string;
  resolve(bytes: Uint8Array): void;
  reject(error: unknown): void;
}

function lines(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}
const STAT_LINE = /^([0-9a-f]+) (\d+) (\d+) ([0-7]+)$/;
const SCAN_LINE = /^([0-9a-f]+) (\d+) (\d+) ([0-7]+) (.*)$/s;

function kindFromMode(rawMode: number): EntryKind {
  switch (rawMode & 0o170000) {
    case 0o100000:
      return "file";
    case 0o040000:
      return "directory";
    case 0o120000:
      return "symlink";
    default:
      return "other";
  }
}

function toStat(hex: string, size: string, mtime: string, perm: string): DriverStat {
  const kind = kindFromMode(parseInt(hex, 16));
  return { kind, size: kind === "file" ? Number(size) : 0, mtimeMs: Number(mtime) * 1000, birthtimeMs: null, mode: parseInt(perm, 8) & 0o7777 };
}

const reserved = new ReservedNames(EXEC_RESERVED_PREFIX);

function checkWorkdir(workdir: string): string {
  const normal = workdir.replace(/\/+$/, "");
  if (!normal.startsWith("/") || normal === "" || /[\u0000-\u001f\u007f]/.test(normal) || normal.split("/").some((s) => s === "." || s === "..")) {
    throw new InvalidArgumentError(`workdir must be an absolute, normalised container path other than "/": ${JSON.stringify(workdir)}`, { workdir });
  }
  return normal;
}

/** Entries of a `list`/`walk` body, with paths relative to `root`. */
export function parseScan(body: Buffer, root: string): WalkEntry[] {
  const prefix = `${root}/`;
  const entries: WalkEntry[] = [];
  const add = (hex: string, size: string, mtime: string, perm: string, absolute: string): void => {
    if (!absolute.startsWith(prefix)) return;
    const stat = toStat(hex, size, mtime, perm);
    entries.push({ path: absolute.slice(prefix.length), kind: stat.kind, size: stat.size, mode: stat.mode, mtimeMs: stat.mtimeMs });
  };
  const nul = body.indexOf(0);
  const plain = (nul === -1 ? body : body.subarray(0, nul)).toString("utf8");
  for (const line of plain.split("\n")) {
    const match = SCAN_LINE.exec(line);
    if (match) add(match[1] as string, match[2] as string, match[3] as string, match[4] as string, match[5] as string);
  }
  // Names containing a newline: "<stat fields>\n<path>\0" records after the NUL.
  let at = nul === -1 ? body.length : nul + 1;
  while (at < body.length) {
    const newline = body.indexOf(0x0a, at);
    const end = newline === -1 ? -1 : body.indexOf(0, newline + 1);
    if (newline === -1 || end === -1) break;
    const match = STAT_LINE.exec(body.subarray(at, newline).toString("latin1"));
    if (match) add(match[1] as string, match[2] as string, match[3] as string, match[4] as string, body.subarray(newline + 1, end).toString("utf8"));
    at = end + 1;
  }
  return entries;
}

/** A container directory as a `FilesystemDriver`. */
export class PodmanExecDriver implements FilesystemDriver {
  readonly name = "podman";
  /** The root directory inside the container. */
  readonly root: string;
  /** Container id or name the requests go to. */
  readonly container: string;
  /** The helper's scratch directory in the container. */
  readonly tempDir: string;
  private readonly transport: ExecTransport;
  /** Finish or roll back a tree swap a crash interrupted, once, before the first operation. */
  private readonly ready = onceUntilDone(() => this.send("recover", [this.root], "", "recover"));
  private pendingReads: PendingRead[] = [];

  constructor(options: PodmanExecDriverOptions) {
    const container = typeof options.container === "string" ? null : options.container;
    this.container = typeof options.container === "string" ? options.container : options.container.id;
    this.root = checkWorkdir(options.workdir ?? container?.workdir ?? "/workspace");
    const tempDir = checkWorkdir(options.tempDir ?? "/tmp");
    this.tempDir = tempDir;
    // A tree replacement swaps every entry of the root: the helper's scratch space must not be one.
    if (tempDir === this.root || tempDir.startsWith(`${this.root}/`)) {
      throw new InvalidArgumentError(`tempDir ${tempDir} must be outside the workdir ${this.root}`, { workdir: this.root, tempDir });
    }
    this.transport = createExecTransport(options.transport ?? "session", {
      podman: options.podman ?? container?.podman ?? defaultPodman(),
      container: this.container,
      tempDir,
      requestTimeoutMs: options.requestTimeoutMs ?? 120_000,
    });
  }

  get transportKind(): ExecTransportKind {
    return this.transport.kind;
  }

  /** End the exec session (if any). The driver can still be used: the next request starts a new one. */
  close(): Promise<void> {
    return this.transport.close();
  }

  private async call(op: string, args: readonly string[], path: string, action: string, payload?: ExecPayload): Promise<ExecResponse> {
    await this.ready();
    return this.send(op, args, path, action, payload);
  }

  private async send(op: string, args: readonly string[], path: string, action: string, payload?: ExecPayload): Promise<ExecResponse> {
    const request = payload === undefined ? { op, args } : { op, args, payload };
    let response: ExecResponse;
    try {
      response = await this.transport.request(request);
    } catch (error) {
      // A session that died under a request that changes nothing: ask once more, in a new session.
      if (!READ_ONLY_OPS.has(op) || !hasErrorCode(error, "EUNAVAILABLE")) throw error;
      response = await this.transport.request(request);
    }
    if (!response.status.ok) throw statusError(response.status, path, action);
    return response;
  }


  private addressable(path: string): void {
    if (path.includes("\n")) throw new InvalidArgumentError(`Cannot address ${displayPath(path)} in the container: names with newlines are not supported`, { path });
  }

  async stat(path: string): Promise<DriverStat | null> {
    if (reserved.has(path) || path.includes("\n")) return null;
    const response = await this.call("stat", [this.root, path], path, "stat");
    if (response.body.length === 0) return null;
    const match = STAT_LINE.exec(response.body.toString("latin1"));
    if (match === null) return null;
    return toStat(match[1] as string, match[2] as string, match[3] as string, match[4] as string);
  }

  async readFile(path: string, range?: { offset: number; length: number }): Promise<Uint8Array> {
    this.addressable(path);
    if (reserved.has(path)) throw statusError({ ok: false, code: "ENOENT", reason: "missing", detail: "" }, path, "read");
    if (range !== undefined) return this.readOne(path, range);
    return new Promise((resolve, reject) => {
      this.pendingReads.push({ path, resolve, reject });
      // Reads started in the same tick leave together.
      if (this.pendingReads.length === 1) queueMicrotask(() => void this.flushReads());
    });
  }

  private async readOne(path: string, range?: { offset: number; length: number }): Promise<Uint8Array> {
    const response = await this.call("read", [this.root, path, String(range?.offset ?? 0), String(range?.length ?? -1)], path, "read");
    return new Uint8Array(response.body.buffer, response.body.byteOffset, response.body.byteLength);
  }

  private async flushReads(): Promise<void> {
    const queued = this.pendingReads;
    this.pendingReads = [];
    for (let at = 0; at < queued.length; at += READ_BATCH) {
      const group = queued.slice(at, at + READ_BATCH);
      if (group.length === 1) {
        const [only] = group as [PendingRead];
        await this.readOne(only.path).then(only.resolve, only.reject);
        continue;
      }
      let results: (Uint8Array | Error | undefined)[];
      try {
        results = await this.readMany(group.map((read) => read.path));
      } catch (error) {
        for (const read of group) read.reject(error);
        continue;
      }
      for (const [i, read] of group.entries()) {
        const result = results[i];
        // Not answered in the batch (changed while read, batch too large): on its own.
        if (result === undefined) await this.readOne(read.path).then(read.resolve, read.reject);
        else if (result instanceof Error) read.reject(result);
        else read.resolve(result);
      }
    }
  }

  /**
   * Whole files in one request. The helper reports each file's status, its size before and
   * after reading, then the contents back to back; an entry is undefined when that answer
   * cannot be trusted (the file changed meanwhile) or the batch was too large.
   */
  private async readMany(paths: readonly string[]): Promise<(Uint8Array | Error | undefined)[]> {
    await this.ready();
    const response = await this.transport.request({ op: "readmany", args: [this.root, ...paths] }).catch((error: unknown) => {
      if (!hasErrorCode(error, "EUNAVAILABLE")) throw error;
      return this.transport.request({ op: "readmany", args: [this.root, ...paths] });
    });
    if (!response.status.ok) {
      if (response.status.code === "EFBIG") return paths.map(() => undefined);
      throw statusError(response.status, paths[0] ?? "", "read");
    }
    const body = response.body;
    const cuts: number[] = [];
    for (let at = 0; cuts.length < 3; at++) {
      const nul = body.indexOf(0, at);
      if (nul === -1) return paths.map(() => undefined);
      cuts.push(nul);
      at = nul;
    }
    const [a, b, c] = cuts as [number, number, number];
    const statuses = lines(body.subarray(0, a).toString("utf8"));
    const before = lines(body.subarray(a + 1, b).toString("latin1")).map(Number);
    const after = lines(body.subarray(b + 1, c).toString("latin1")).map(Number);
    const content = body.subarray(c + 1);
    const total = after.reduce((sum, size) => sum + size, 0);
    if (statuses.length !== paths.length || before.length !== paths.length || after.length !== paths.length || total !== content.length) return paths.map(() => undefined);
    let offset = 0;
    return paths.map((path, i) => {
      const size = after[i] as number;
      const slice = content.subarray(offset, offset + size);
      offset += size;
      const status = statuses[i] as string;
      if (status !== "ok") return statusError(parseStatus(`end ${status}`), path, "read");
      if (size !== before[i]) return undefined;
      return new Uint8Array(slice.buffer, slice.byteOffset, slice.byteLength);
    });
  }

  async writeFile(path: string, data: Uint8Array, options: DriverWriteOptions): Promise<void> {
    this.addressable(path);
    reserved.refuse(path, "write");
    const mode = ((options.fileMode ?? DEFAULT_FILE_MODE) & 0o7777).toString(8);
    await this.call("write", [this.root, path, options.mode, options.createParents ? "1" : "0", mode, String(data.length)], path, options.mode === "append" ? "append to" : "write", {
      size: data.length,
      source: data,
    });
  }

  async list(path: string): Promise<DriverEntry[]> {
    this.addressable(path);
    if (reserved.has(path)) throw statusError({ ok: false, code: "ENOENT", reason: "missing", detail: "" }, path, "list");
    const response = await this.call("list", [this.root, path], path, "list");
    const entries: DriverEntry[] = [];
    for (const entry of parseScan(response.body, this.root)) {
      if (path === "" && reserved.has(entry.path)) continue;
      entries.push({ name: entry.path.slice(entry.path.lastIndexOf("/") + 1), kind: entry.kind });
    }
    return entries;
  }

  async mkdir(path: string, options: { parents: boolean; existOk: boolean }): Promise<void> {
    this.addressable(path);
    reserved.refuse(path, "create");
    await this.call("mkdir", [this.root, path, options.parents ? "1" : "0", options.existOk ? "1" : "0"], path, "create directory");
  }

  async remove(path: string, options: { recursive: boolean }): Promise<void> {
    this.addressable(path);
    reserved.refuse(path, "delete");
    await this.call("remove", [this.root, path, options.recursive ? "1" : "0"], path, "delete");
  }

  async *walk(path: string): AsyncIterable<WalkEntry> {
    this.addressable(path);
    if (reserved.has(path)) throw statusError({ ok: false, code: "ENOENT", reason: "missing", detail: "" }, path, "walk");
    const response = await this.call("walk", [this.root, path], path, "walk");
    for (const entry of parseScan(response.body, this.root)) {
      if (reserved.has(entry.path)) continue;
      yield entry;
    }
  }

  async replaceTree(fill: (tx: TreeTransaction) => Promise<void>): Promise<void> {
    await this.ready();
    const spool = await TarSpool.create();
    try {
      const check = (rel: string, action: string): void => {
        this.addressable(rel);
        reserved.refuse(rel, action);
      };
      await fill({
        mkdir: async (rel, mode) => {
          check(rel, "create");
          await spool.directory(rel, mode ?? 0o755);
        },
        createFile: async (rel, mode) => {
          check(rel, "write");
          return spool.file(rel, mode ?? DEFAULT_FILE_MODE);
        },
      });
      const size = await spool.finish();
      await this.replaceTreeInContainer((stage) => this.send("untar", [this.root, stage, String(size)], "", "unpack a tree", { size, source: () => spool.chunks() }).then(() => undefined));
    } finally {
      await spool.dispose();
    }
  }

  /**
   * Replace the tree with what `fill` puts into a staged directory (a name in the root, given
   * to `fill`), all-or-nothing: the staged tree is swapped in under the helper's journal, or
   * discarded when `fill` fails.
   */
  async replaceTreeInContainer(fill: (stage: string) => Promise<void>): Promise<void> {
    await this.ready();
    const stage = (await this.send("stage", [this.root], "", "stage a tree")).body.toString("utf8");
    try {
      await fill(stage);
    } catch (error) {
      await this.send("discard", [this.root, stage], "", "discard a staged tree").catch(() => undefined);
      throw error;
    }
    await this.send("swap", [this.root, stage], "", "replace the tree");
  }

  /**
   * One request to the helper (after crash recovery), for operations built on its other ops
   * (native snapshots). `path` and `action` word the error of a failed status.
   */
  async helperRequest(op: string, args: readonly string[], options: { path?: string; action: string; payload?: ExecPayload }): Promise<ExecResponse> {
    return this.call(op, args, options.path ?? "", options.action, options.payload);
  }

  /** Every node below an absolute container directory outside the root (a snapshot's tree), paths relative to it. */
  async walkDirectory(directory: string, action: string): Promise<WalkEntry[]> {
    const response = await this.call("walk", [directory, ""], "", action);
    return parseScan(response.body, directory);
  }
}
