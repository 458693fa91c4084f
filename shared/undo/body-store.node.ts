/**
 * Crash-safe files of the undo store: every file is written under a temporary name and
 * renamed into place, so a crash leaves either the old file or the new one, never half of
 * one. Bodies are content-addressed (`bodies/<sha256>`), written once and shared by every
 * snapshot of a session; they are verified against their hash when read back.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { SnapshotRestoreError, StorageIOError } from "../errors.js";
import { isUndoBodyHash } from "./manifest.js";

/** Prefix of temporary files; anything with it is left over from a crash and can be removed. */
export const TEMP_PREFIX = ".tmp-";

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Small files (manifests, most bodies) are written with synchronous calls: a few tens of
 * microseconds of blocking instead of five thread-pool round trips, which dominated the
 * store's cost per tool call.
 */
const SYNC_WRITE_MAX_BYTES = 256 * 1024;

function syncDirectoryNow(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeSmallFileAtomic(path: string, data: Uint8Array, durable: boolean, dir: string, temp: string): void {
  const fd = openSync(temp, "wx", 0o600);
  try {
    for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  if (durable) syncDirectoryNow(dir);
}

/** Write `data` to `path` atomically (temp file in the same directory + rename). */
export async function writeFileAtomic(path: string, data: Uint8Array | string, durable: boolean, dir: string): Promise<void> {
  const temp = join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString("hex")}`);
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  if (bytes.length <= SYNC_WRITE_MAX_BYTES) {
    try {
      writeSmallFileAtomic(path, bytes, durable, dir, temp);
      return;
    } catch (error) {
      rmSync(temp, { force: true });
      throw new StorageIOError(path, `Cannot write undo store file ${path}: ${error instanceof Error ? error.message : String(error)}`, {}, { cause: error });
    }
  }
  try {
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(bytes);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    if (durable) await syncDirectory(dir);
  } catch (error) {
    await rm(temp, { force: true });
    throw new StorageIOError(path, `Cannot write undo store file ${path}: ${error instanceof Error ? error.message : String(error)}`, {}, { cause: error });
  }
}

/** Content-addressed file bodies of one session. */
export class BodyStore {
  constructor(
    readonly dir: string,
    private readonly durable: boolean,
  ) {}

  pathOf(hash: string): string {
    return join(this.dir, hash);
  }

  /** Store bytes under their sha256 (no-op when present); `created` says whether a new file was written. */
  async put(bytes: Uint8Array, knownHash?: string): Promise<{ hash: string; size: number; created: boolean }> {
    const hash = knownHash ?? sha256Hex(bytes);
    const existing = await stat(this.pathOf(hash)).catch(() => null);
    if (existing !== null && existing.size === bytes.length) return { hash, size: bytes.length, created: false };
    await writeFileAtomic(this.pathOf(hash), bytes, this.durable, this.dir);
    return { hash, size: bytes.length, created: true };
  }

  /** The body's bytes, verified against its hash; E_SNAPSHOT_RESTORE when missing or damaged. */
  async get(hash: string, context: { path: string; snapshotId: string }): Promise<Uint8Array> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(this.pathOf(hash));
    } catch (error) {
      throw new SnapshotRestoreError(`Pre-image of ${context.path} is missing from the undo store (body ${hash})`, { ...context, bodyHash: hash }, { cause: error });
    }
    if (sha256Hex(bytes) !== hash) {
      throw new SnapshotRestoreError(`Pre-image of ${context.path} is damaged in the undo store (body ${hash} does not match its hash)`, { ...context, bodyHash: hash });
    }
    return bytes;
  }

  async remove(hash: string): Promise<void> {
    await rm(this.pathOf(hash), { force: true });
  }

  /** Bodies on disk with their sizes; leftover temporary files are deleted. */
  async scan(): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return sizes;
    }
    for (const name of names) {
      if (name.startsWith(TEMP_PREFIX)) {
        await rm(join(this.dir, name), { force: true });
        continue;
      }
      if (!isUndoBodyHash(name)) continue;
      const info = await stat(join(this.dir, name)).catch(() => null);
      if (info?.isFile()) sizes.set(name, info.size);
    }
    return sizes;
  }
}
