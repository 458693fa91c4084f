/**
 * Reading one entry's data in Node: ranged reads (a file descriptor's, or a remote
 * object's through a `ReadRange`), inflation
 * with zlib capped at the declared size (so a lying size stops at that size instead of
 * inflating a bomb), and CRC-32 always checked. What is checked before inflating (limits,
 * local header, data descriptor) is the shared policy of `entry-checks.ts`.
 */
import { readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { corrupt, truncated, type CentralEntry, type ReadRange } from "./central-directory.js";
import { checkInflated, inflatedTooMuch, locateEntry } from "./entry-checks.js";
import { METHOD_STORED } from "./zip-format.js";

const inflateRaw = promisify(zlib.inflateRaw);

/**
 * Entries up to this size are inflated on the calling thread: for small entries the
 * threadpool round trip costs ~4x the CPU of inflating (5,000 small entries: 0.64 s vs
 * 0.17 s), and 256 KiB inflate in well under a millisecond.
 */
const SYNC_INFLATE_MAX_BYTES = 256 * 1024;
/**
 * Reads up to this many bytes are made on the calling thread (see `readAtSync`): a viewer's
 * file request is usually one small entry, and the thread-pool round trip cost more than the
 * read. Bounded, so the event loop waits at most one small read (one seek when the page
 * cache does not hold it).
 */
const SYNC_READ_MAX_BYTES = 64 * 1024;
/** Chunk size of streamed reads. */
const STREAM_CHUNK_BYTES = 1024 * 1024;

/**
 * `readAt` on the calling thread, for small reads only: a thread-pool read cost ~15 µs of
 * the main thread (queueing and waking a worker) to read 10 kB that the page cache gives in
 * ~3 µs. The descriptor is used at once, while the handle is known to be open.
 */
export function readAtSync(handle: FileHandle, length: number, position: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const bytesRead = readSync(handle.fd, buffer, done, length - done, position + done);
    if (bytesRead === 0) truncated(position + done);
    done += bytesRead;
  }
  return buffer;
}

/** Read exactly `length` bytes at `position`. */
export async function readAt(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) truncated(position + done);
    done += bytesRead;
  }
  return buffer;
}

/** A `ReadRange` over an open archive; small reads are made on the calling thread. */
export function handleRange(handle: FileHandle): ReadRange {
  return (position, length) => (length <= SYNC_READ_MAX_BYTES ? Promise.resolve(readAtSync(handle, length, position)) : readAt(handle, length, position));
}

function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("Z_");
}

function invalidDeflate(entry: CentralEntry, error: unknown): never {
  return corrupt(`Invalid deflate data (${error instanceof Error ? error.message : String(error)})`, { entry: entry.name });
}

/** Inflate (or pass through) a whole entry's compressed bytes, capped at its declared size, and check size and CRC-32. */
export async function decodeEntryData(entry: CentralEntry, compressed: Uint8Array): Promise<Buffer> {
  let data = Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength);
  if (entry.method !== METHOD_STORED) {
    try {
      const options = { maxOutputLength: Math.max(1, entry.size) };
      data = entry.size <= SYNC_INFLATE_MAX_BYTES ? zlib.inflateRawSync(compressed, options) : await inflateRaw(compressed, options);
    } catch (error) {
      if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") inflatedTooMuch(entry);
      if (!isZlibError(error)) throw error;
      invalidDeflate(entry, error);
    }
  }
  checkInflated(entry, data.length, zlib.crc32(data));
  return data;
}

/**
 * The whole content of an entry: its local header, data and data descriptor with one read
 * (for small entries on the calling thread), checked against the central record, then
 * inflated and checked. The caller applies `checkEntryLimits` first.
 */
export async function readEntryData(range: ReadRange, entry: CentralEntry, dataEnd: number): Promise<Buffer> {
  const located = await locateEntry(range, entry, dataEnd, true);
  return decodeEntryData(entry, located.compressed as Uint8Array);
}

async function* compressedChunks(range: ReadRange, start: number, length: number): AsyncGenerator<Uint8Array> {
  for (let done = 0; done < length; ) {
    const size = Math.min(STREAM_CHUNK_BYTES, length - done);
    yield await range(start + done, size);
    done += size;
  }
}

/**
 * Stream an entry whose data starts at `dataStart` (from `locateEntry`) in chunks, with the
 * same caps and checks as `decodeEntryData`; memory stays at a few chunks whatever the size.
 * The last chunk is held back until the size and CRC-32 are checked, so a consumer (an HTTP
 * download) never receives all of an entry whose checks fail.
 */
export async function* streamEntryData(range: ReadRange, entry: CentralEntry, dataStart: number): AsyncGenerator<Buffer> {
  const source = Readable.from(compressedChunks(range, dataStart, entry.compressedSize), { objectMode: false });
  const output: AsyncIterable<Buffer> = entry.method === METHOD_STORED ? source : source.pipe(zlib.createInflateRaw({ chunkSize: 256 * 1024 }));
  if (output !== source) source.once("error", (error) => (output as unknown as Readable).destroy(error));
  let produced = 0;
  let crc = 0;
  let held: Buffer | null = null;
  try {
    for await (const chunk of output) {
      produced += chunk.length;
      if (produced > entry.size) inflatedTooMuch(entry);
      crc = zlib.crc32(chunk, crc);
      if (held !== null) yield held;
      held = chunk;
    }
  } catch (error) {
    if (!isZlibError(error)) throw error;
    invalidDeflate(entry, error);
  } finally {
    source.destroy();
    if (output !== source) (output as unknown as Readable).destroy();
  }
  checkInflated(entry, produced, crc);
  if (held !== null) yield held;
}
