/**
 * Streaming `.fs.zip` writer: `files/<path>` entries (deflate, UTF-8 names, Unix modes in
 * the external attributes), directory entries for empty directories, and `manifest.json`
 * last, with ZIP64 records wherever a count, size or offset needs them.
 *
 * The archive is written to a temporary file beside the target, synced and renamed into
 * place, so a crash never leaves a partial archive under the final name.
 *
 * Deflate is CPU-bound and zlib's async calls run on the libuv threadpool, so small files
 * (the vast majority of a workspace) are read, hashed and compressed several at a time and
 * written in order; large files are streamed one at a time through a deflate stream, so
 * memory stays bounded whatever the file sizes.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import nodePath from "node:path";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { ArchiveError, InvalidArgumentError } from "../errors.js";
import type { ArchiveSummary, EntryKind } from "../filesystem/protocol.js";
import { displayPath } from "../filesystem/paths.js";
import { checkRelativePath, toFilesEntryName } from "./entry-names.js";
import { MANIFEST_NAME, buildManifest, serializeManifest, type ManifestFileRecord } from "./manifest.js";
import { DeflateLanes, SNIFF_MIN_BYTES, SNIFF_SAMPLE_BYTES, looksIncompressible } from "./deflate-lanes.node.js";
import { FLAG_UTF8, METHOD_DEFLATE, METHOD_STORED, U32_MAX, msToDosDateTime } from "./zip-format.js";
import { centralRecord, directoryAttributes, endRecords, fileAttributes, localHeader, mtimeSeconds, type WrittenEntry } from "./zip-records.node.js";

/** One node of the tree being archived (a backend's walk plus a way to read file bytes). */
export interface ArchiveSourceEntry {
  /** Relative POSIX path, no `files/` prefix. */
  readonly path: string;
  /** Every directory is yielded (only empty ones are recorded); symlinks and special files are skipped and reported. */
  readonly kind: EntryKind;
  readonly size: number;
  readonly mode: number | null;
  readonly mtimeMs: number | null;
  /** File bytes; called once, only for files. */
  chunks(): AsyncIterable<Uint8Array>;
}

export interface WriteArchiveOptions {
  /** Extra top-level manifest keys (e.g. `session_id`). */
  manifestExtra?: Record<string, unknown>;
  /** Called after each file with the files and bytes written so far. */
  onProgress?: (progress: { files: number; bytes: number }) => void;
  /** Deflate level 0–9 (0 stores). Default `DEFAULT_COMPRESSION_LEVEL`. */
  compressionLevel?: number;
  /** Write ZIP64 fields for every entry and a ZIP64 end record even when not needed (interop tests). */
  forceZip64?: boolean;
  /** `created_at` of the manifest (default: now, Python isoformat). */
  createdAt?: string;
}

/**
 * Default deflate level. Level 6 (zlib's and `zip`'s default) spends 2–4× the CPU of level 1
 * for ~15–25 % smaller source-code archives; with two deflates running on the threadpool
 * we still beat `zip -r` at level 6, so archives keep the size people expect from zip.
 */
export const DEFAULT_COMPRESSION_LEVEL = 6;

/** Files up to this size are buffered and compressed concurrently; larger ones are streamed. */
const BUFFERED_MAX_BYTES = 1024 * 1024;
/** A "small" file that turns out bigger than this while being read is streamed instead. */
const BUFFERED_OVERFLOW_BYTES = 2 * BUFFERED_MAX_BYTES;
/** Small files being read/compressed at once (the threadpool has 4 threads). */
const IN_FLIGHT = 6;
/** Persistent deflate streams compressing buffered files in parallel. */
const DEFLATE_LANES = 3;
/** Output is written in blocks of this size. */
const WRITE_BLOCK_BYTES = 1024 * 1024;
/** Declared sizes from which a streamed file gets ZIP64 local fields (deflate can expand a little). */
const ZIP64_LOCAL_THRESHOLD = 0xf000_0000;

const deflateRaw = promisify(zlib.deflateRaw);
const textEncoder = new TextEncoder();

/** Sequential output with block buffering and positional patches. */
class OutputFile {
  position = 0;
  #flushed = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  constructor(private readonly handle: FileHandle) {}

  async append(chunk: Uint8Array): Promise<void> {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    this.position += chunk.length;
    if (this.#pendingBytes >= WRITE_BLOCK_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const block = this.#pending.length === 1 ? (this.#pending[0] as Uint8Array) : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    await this.#writeAt(block, this.#flushed);
    this.#flushed += block.length;
  }

  async patch(position: number, bytes: Uint8Array): Promise<void> {
    await this.flush();
    await this.#writeAt(bytes, position);
  }

  async #writeAt(bytes: Uint8Array, position: number): Promise<void> {
    for (let done = 0; done < bytes.length; ) {
      const { bytesWritten } = await this.handle.write(bytes, done, bytes.length - done, position + done);
      done += bytesWritten;
    }
  }
}

/** A small file read and compressed ahead of its turn, or one that outgrew the buffer. */
type Prepared =
  | { kind: "whole"; data: Uint8Array; method: number; crc32: number; size: number; sha256: string }
  | { kind: "overflow"; head: Uint8Array[]; rest: AsyncIterator<Uint8Array> };

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7e) return false;
  return true;
}

async function prepareSmall(entry: ArchiveSourceEntry, level: number, lanes: DeflateLanes): Promise<Prepared> {
  const iterator = entry.chunks()[Symbol.asyncIterator]();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    parts.push(next.value);
    size += next.value.length;
    if (size > BUFFERED_OVERFLOW_BYTES) return { kind: "overflow", head: parts, rest: iterator };
  }
  const data = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, size);
  const crc32 = zlib.crc32(data);
  const sha256 = createHash("sha256").update(data).digest("hex");
  if (level > 0 && size > 0 && !(size >= SNIFF_MIN_BYTES && looksIncompressible([data]))) {
    const compressed = await lanes.compress(data);
    if (compressed.length < size) return { kind: "whole", data: compressed, method: METHOD_DEFLATE, crc32, size, sha256 };
  }
  return { kind: "whole", data, method: METHOD_STORED, crc32, size, sha256 };
}

function refuseSource(message: string, path: string): never {
  throw new ArchiveError("E_ARCHIVE_ENTRY", `${message}: ${displayPath(path)}`, { entry: toFilesEntryName(path), path });
}

/** The state of one archive being written. */
class ArchiveBuilder {
  readonly central: WrittenEntry[] = [];
  readonly manifestFiles: ManifestFileRecord[] = [];
  readonly directories = new Map<string, ArchiveSourceEntry>();
  readonly nonEmpty = new Set<string>();
  readonly filePaths = new Set<string>();
  readonly skipped: { path: string; reason: string }[] = [];
  totalBytes = 0;
  readonly level: number;
  readonly now = Date.now();

  constructor(
    readonly out: OutputFile,
    readonly options: WriteArchiveOptions,
  ) {
    const level = options.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
    if (!Number.isInteger(level) || level < 0 || level > 9) throw new InvalidArgumentError(`compressionLevel must be an integer 0–9, got ${level}`, { compressionLevel: level });
    this.level = level;
  }

  /** True when the path may be archived; otherwise it is recorded in `skipped`. */
  accept(entry: ArchiveSourceEntry): boolean {
    if (entry.kind !== "file" && entry.kind !== "directory") {
      this.skipped.push({ path: entry.path, reason: entry.kind === "symlink" ? "symbolic link" : "special file" });
      return false;
    }
    try {
      // Check the entry name as the reader will (the files/ prefix counts towards the limits).
      checkRelativePath(toFilesEntryName(entry.path), entry.path);
    } catch (error) {
      this.skipped.push({ path: entry.path, reason: error instanceof Error ? error.message : String(error) });
      return false;
    }
    if (entry.kind === "directory") {
      if (this.directories.has(entry.path)) refuseSource("Source yielded a directory twice", entry.path);
      this.directories.set(entry.path, entry);
    } else {
      if (this.filePaths.has(entry.path)) refuseSource("Source yielded a file twice", entry.path);
      this.filePaths.add(entry.path);
    }
    for (let slash = entry.path.lastIndexOf("/"); slash > 0; slash = entry.path.lastIndexOf("/", slash - 1)) {
      const parent = entry.path.slice(0, slash);
      if (this.nonEmpty.has(parent)) break;
      this.nonEmpty.add(parent);
    }
    return true;
  }

  meta(path: string, isDirectory: boolean, mtimeMs: number | null) {
    const name = `${path}${isDirectory ? "/" : ""}`;
    return {
      nameBytes: textEncoder.encode(name),
      flags: isAscii(name) ? 0 : FLAG_UTF8,
      dos: msToDosDateTime(mtimeMs ?? this.now),
      mtimeSeconds: mtimeSeconds(mtimeMs ?? this.now),
    };
  }

  async writeWhole(name: string, mode: number, mtimeMs: number | null, prepared: Extract<Prepared, { kind: "whole" }>): Promise<void> {
    const meta = this.meta(name, false, mtimeMs);
    const fields = { ...meta, method: prepared.method, crc32: prepared.crc32, compressedSize: prepared.data.length, size: prepared.size, zip64Local: this.options.forceZip64 === true };
    const offset = this.out.position;
    await this.out.append(localHeader(fields));
    await this.out.append(prepared.data);
    this.central.push({ ...fields, offset, externalAttributes: fileAttributes(mode) });
  }

  async writeStreamed(entry: ArchiveSourceEntry, head: Uint8Array[], rest: AsyncIterator<Uint8Array>): Promise<{ crc32: number; size: number; sha256: string }> {
    const meta = this.meta(toFilesEntryName(entry.path), false, entry.mtimeMs);
    const zip64Local = this.options.forceZip64 === true || entry.size >= ZIP64_LOCAL_THRESHOLD;
    let headBytes = head.reduce((sum, chunk) => sum + chunk.length, 0);
    let ended = false;
    while (this.level > 0 && headBytes < SNIFF_SAMPLE_BYTES && !ended) {
      const next = await rest.next();
      if (next.done) ended = true;
      else {
        head.push(next.value);
        headBytes += next.value.length;
      }
    }
    const method = this.level > 0 && !(headBytes > 0 && looksIncompressible(head)) ? METHOD_DEFLATE : METHOD_STORED;
    const offset = this.out.position;
    const placeholder = { ...meta, method, crc32: 0, compressedSize: 0, size: 0, zip64Local };
    await this.out.append(localHeader(placeholder));
    const hash = createHash("sha256");
    let crc32 = 0;
    let size = 0;
    let compressedSize = 0;
    async function* input(): AsyncGenerator<Uint8Array> {
      const take = (chunk: Uint8Array): Uint8Array => {
        crc32 = zlib.crc32(chunk, crc32);
        hash.update(chunk);
        size += chunk.length;
        return chunk;
      };
      for (const chunk of head) yield take(chunk);
      for (; !ended; ) {
        const next = await rest.next();
        if (next.done) return;
        yield take(next.value);
      }
    }
    const sink = async (source: AsyncIterable<Uint8Array>): Promise<void> => {
      for await (const chunk of source) {
        compressedSize += chunk.length;
        await this.out.append(chunk);
      }
    };
    if (method === METHOD_DEFLATE) await pipeline(input(), zlib.createDeflateRaw({ level: this.level, chunkSize: 256 * 1024 }), sink);
    else await sink(input());
    if (!zip64Local && (size >= U32_MAX || compressedSize >= U32_MAX)) {
      throw new ArchiveError("E_ARCHIVE_LIMIT", `File grew past 4 GiB while being archived: ${displayPath(entry.path)}`, { entry: toFilesEntryName(entry.path), path: entry.path });
    }
    const fields = { ...placeholder, crc32, compressedSize, size };
    await this.out.patch(offset, localHeader(fields));
    this.central.push({ ...fields, offset, externalAttributes: fileAttributes(entry.mode) });
    return { crc32, size, sha256: hash.digest("hex") };
  }

  recordFile(path: string, size: number, sha256: string): void {
    this.manifestFiles.push({ path, sizeBytes: size, sha256 });
    this.totalBytes += size;
    this.options.onProgress?.({ files: this.manifestFiles.length, bytes: this.totalBytes });
  }

  async writeFile(entry: ArchiveSourceEntry, prepared: Prepared): Promise<void> {
    if (prepared.kind === "whole") {
      await this.writeWhole(toFilesEntryName(entry.path), entry.mode ?? 0o644, entry.mtimeMs, prepared);
      this.recordFile(entry.path, prepared.size, prepared.sha256);
    } else {
      const result = await this.writeStreamed(entry, prepared.head, prepared.rest);
      this.recordFile(entry.path, result.size, result.sha256);
    }
  }

  /** Directories with nothing below them, sorted; refuses a path that is both file and directory. */
  emptyDirectories(): string[] {
    for (const path of this.filePaths) {
      if (this.directories.has(path) || this.nonEmpty.has(path)) refuseSource("Source yielded a path both as a file and as a directory", path);
    }
    return [...this.directories.keys()].filter((path) => !this.nonEmpty.has(path)).sort();
  }

  async finish(): Promise<number> {
    const empty = this.emptyDirectories();
    for (const path of empty) {
      const source = this.directories.get(path) as ArchiveSourceEntry;
      const meta = this.meta(toFilesEntryName(path), true, source.mtimeMs);
      const fields = { ...meta, method: METHOD_STORED, crc32: 0, compressedSize: 0, size: 0, zip64Local: this.options.forceZip64 === true };
      const offset = this.out.position;
      await this.out.append(localHeader(fields));
      this.central.push({ ...fields, offset, externalAttributes: directoryAttributes(source.mode) });
    }
    const files = [...this.manifestFiles].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const manifest = buildManifest({ createdAt: this.options.createdAt, files, directories: empty, extra: this.options.manifestExtra });
    const bytes = serializeManifest(manifest);
    const compressed = await deflateRaw(bytes, { level: Math.max(this.level, 1) });
    await this.writeWhole(MANIFEST_NAME, 0o644, this.now, {
      kind: "whole",
      data: compressed,
      method: METHOD_DEFLATE,
      crc32: zlib.crc32(bytes),
      size: bytes.length,
      sha256: "",
    });
    const cdOffset = this.out.position;
    const forceZip64 = this.options.forceZip64 === true;
    for (const entry of this.central) await this.out.append(centralRecord(entry, forceZip64));
    const cdSize = this.out.position - cdOffset;
    await this.out.append(endRecords(this.central.length, cdOffset, cdSize, forceZip64));
    await this.out.flush();
    return empty.length;
  }
}

/**
 * Write a `.fs.zip` archive of `entries` to `archivePath` (parents created). Files are
 * `files/<path>`; empty directories become directory entries and are listed in the
 * manifest's `directories`; `manifest.json` lists every file with its size and SHA-256.
 * Paths our reader would refuse (control characters, `..`, …) and symlinks/special files
 * are left out and reported in `skipped`. The source may be read a few entries ahead: up
 * to `IN_FLIGHT` files can have their `chunks()` open at once.
 */
export async function writeArchive(archivePath: string, entries: AsyncIterable<ArchiveSourceEntry> | Iterable<ArchiveSourceEntry>, options: WriteArchiveOptions = {}): Promise<ArchiveSummary> {
  const directory = nodePath.dirname(archivePath);
  await mkdir(directory, { recursive: true });
  const tempPath = nodePath.join(directory, `.${nodePath.basename(archivePath)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(tempPath, "wx", 0o644);
  let committed = false;
  const inFlight: { entry: ArchiveSourceEntry; prepared: Promise<Prepared> }[] = [];
  let lanes: DeflateLanes | null = null;
  try {
    const builder = new ArchiveBuilder(new OutputFile(handle), options);
    lanes = new DeflateLanes(Math.max(builder.level, 1), DEFLATE_LANES, BUFFERED_OVERFLOW_BYTES);
    const writeNext = async (): Promise<void> => {
      const next = inFlight.shift();
      if (next !== undefined) await builder.writeFile(next.entry, await next.prepared);
    };
    for await (const entry of entries) {
      if (!builder.accept(entry) || entry.kind !== "file") continue;
      if (entry.size <= BUFFERED_MAX_BYTES) {
        const prepared = prepareSmall(entry, builder.level, lanes);
        prepared.catch(() => undefined); // awaited in order below; this only avoids an unhandled rejection meanwhile
        inFlight.push({ entry, prepared });
        if (inFlight.length >= IN_FLIGHT) await writeNext();
      } else {
        while (inFlight.length > 0) await writeNext();
        await builder.writeFile(entry, { kind: "overflow", head: [], rest: entry.chunks()[Symbol.asyncIterator]() });
      }
    }
    while (inFlight.length > 0) await writeNext();
    const directoryCount = await builder.finish();
    await handle.sync();
    await handle.close();
    await rename(tempPath, archivePath);
    committed = true;
    return { archivePath, fileCount: builder.manifestFiles.length, totalBytes: builder.totalBytes, directoryCount, skipped: builder.skipped };
  } finally {
    lanes?.close();
    if (!committed) {
      // Let read-ahead finish (and close what it opened) before removing the temporary file.
      const pending = await Promise.allSettled(inFlight.map((item) => item.prepared));
      for (const result of pending) if (result.status === "fulfilled" && result.value.kind === "overflow") await result.value.rest.return?.();
      await handle.close().catch(() => undefined);
      await rm(tempPath, { force: true });
    }
  }
}
