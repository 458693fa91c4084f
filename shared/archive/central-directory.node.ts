/**
 * Locating and parsing a ZIP central directory, validating every record on the way.
 *
 * I/O is a few large reads: the tail of the file (EOCD, ZIP64 locator and record, and for
 * small archives the whole central directory), then the central directory in one read when
 * it is not already in the tail. Records are parsed in one loop over that buffer.
 *
 * Nothing declared is trusted: the entry count must match the records actually present
 * (and no array is sized by it), offsets and sizes must stay inside the archive, 0xFFFFFFFF
 * fields need their ZIP64 extra, and data before the archive or after its end record is
 * refused (one consistent policy; CPython and JSZip accept such files, yauzl refuses them).
 */
import { readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ArchiveError } from "../errors.js";
import { displayPath } from "../filesystem/paths.js";
import { checkRelativePath, decodeEntryName } from "./entry-names.js";
import type { ArchiveLimits } from "./limits.js";
import {
  CENTRAL_HEADER_SIZE,
  DOS_DIRECTORY,
  EOCD_SIZE,
  EXTRA_EXTENDED_TIMESTAMP,
  EXTRA_UNICODE_PATH,
  EXTRA_ZIP64,
  FLAG_ENCRYPTED,
  FLAG_MASKED_HEADERS,
  FLAG_STRONG_ENCRYPTION,
  HOST_OSX,
  HOST_UNIX,
  LOCAL_HEADER_SIZE,
  MAX_EOCD_SEARCH,
  METHOD_AES,
  METHOD_DEFLATE,
  METHOD_STORED,
  SIG_CENTRAL_HEADER,
  SIG_EOCD,
  SIG_ZIP64_EOCD,
  SIG_ZIP64_LOCATOR,
  U16_MAX,
  U32_MAX,
  ZIP64_EOCD_SIZE,
  ZIP64_LOCATOR_SIZE,
  dosDateTimeToMs,
  methodName,
  unixFileType,
} from "./zip-format.js";

/** One validated central-directory record. */
export interface CentralEntry {
  /** Full entry name as stored (directories end with "/"). */
  readonly name: string;
  /** `name` without the trailing "/" of a directory. */
  readonly path: string;
  readonly isDirectory: boolean;
  readonly flags: number;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
  /** Byte length of the name (the local header must repeat it). */
  readonly nameLength: number;
  /** Byte length of the central record's extra field (a hint for the local one). */
  readonly extraLength: number;
  /** Permission bits (0o7777) from Unix external attributes, or null. */
  readonly mode: number | null;
  readonly mtimeMs: number | null;
}

export interface CentralDirectory {
  readonly fileSize: number;
  /** Offset of the central directory: every entry's data ends at or before it. */
  readonly offset: number;
  readonly size: number;
  readonly zip64: boolean;
  readonly entries: CentralEntry[];
}

/** Largest central directory we read into memory. */
const MAX_CENTRAL_DIRECTORY_BYTES = 256 * 1024 * 1024;
/** The tail read: the EOCD search window plus ZIP64 structures, and small archives whole. */
const TAIL_BYTES = 128 * 1024;

export function corrupt(message: string, data: Record<string, unknown> = {}): never {
  const entry = typeof data.entry === "string" ? `: ${displayPath(data.entry)}` : "";
  throw new ArchiveError("E_ARCHIVE_CORRUPT", `${message}${entry}`, data);
}

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
    if (bytesRead === 0) corrupt(`Unexpected end of file at offset ${position + done} (truncated archive?)`);
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
    if (bytesRead === 0) corrupt(`Unexpected end of file at offset ${position + done} (truncated archive?)`);
    done += bytesRead;
  }
  return buffer;
}

/** A little-endian 64-bit field as a number; beyond 2^53 the archive is refused. */
function readU64(buffer: Buffer, at: number, what: string): number {
  const high = buffer.readUInt32LE(at + 4);
  if (high > 0x1fffff) corrupt(`${what} does not fit in 53 bits`);
  return high * 0x1_0000_0000 + buffer.readUInt32LE(at);
}

interface EndRecord {
  count: number;
  cdOffset: number;
  cdSize: number;
  /** Where the central directory must end: the ZIP64 EOCD record or the EOCD. */
  cdEnd: number;
  zip64: boolean;
}

function findEocd(tail: Buffer): number {
  let mismatched = -1;
  const lowest = Math.max(0, tail.length - MAX_EOCD_SEARCH);
  for (let i = tail.length - EOCD_SIZE; i >= lowest; i--) {
    if (tail[i] !== 0x50 || tail.readUInt32LE(i) !== SIG_EOCD) continue;
    if (i + EOCD_SIZE + tail.readUInt16LE(i + 20) === tail.length) return i;
    if (mismatched === -1) mismatched = i;
  }
  if (mismatched !== -1) {
    const trailing = tail.length - (mismatched + EOCD_SIZE + tail.readUInt16LE(mismatched + 20));
    corrupt(`Refusing ${Math.abs(trailing)} byte(s) of data ${trailing > 0 ? "after the end of the archive (appended data)" : "missing from the archive comment (truncated?)"}`);
  }
  return corrupt("Not a ZIP archive (no end-of-central-directory record)");
}

async function readEndRecord(handle: FileHandle, tail: Buffer, tailStart: number): Promise<EndRecord> {
  const eocdInTail = findEocd(tail);
  const eocd = tailStart + eocdInTail;
  const diskNumber = tail.readUInt16LE(eocdInTail + 4);
  const cdDisk = tail.readUInt16LE(eocdInTail + 6);
  const entriesOnDisk = tail.readUInt16LE(eocdInTail + 8);
  let count = tail.readUInt16LE(eocdInTail + 10);
  let cdSize = tail.readUInt32LE(eocdInTail + 12);
  let cdOffset = tail.readUInt32LE(eocdInTail + 16);

  const locator = eocd - ZIP64_LOCATOR_SIZE;
  let locatorBuffer: Buffer | null = null;
  if (locator >= 0) {
    locatorBuffer = locator >= tailStart ? tail.subarray(locator - tailStart, eocdInTail) : await readAt(handle, ZIP64_LOCATOR_SIZE, locator);
    if (locatorBuffer.readUInt32LE(0) !== SIG_ZIP64_LOCATOR) locatorBuffer = null;
  }
  if (locatorBuffer === null) {
    if ((diskNumber !== 0 && diskNumber !== U16_MAX) || (cdDisk !== 0 && cdDisk !== U16_MAX) || entriesOnDisk !== count) {
      corrupt("Multi-disk (split) archives are not supported");
    }
    return { count, cdOffset, cdSize, cdEnd: eocd, zip64: false };
  }

  const recordOffset = readU64(locatorBuffer, 8, "ZIP64 end record offset");
  const totalDisks = locatorBuffer.readUInt32LE(16);
  if (locatorBuffer.readUInt32LE(4) !== 0 || totalDisks > 1) corrupt("Multi-disk (split) archives are not supported");
  if (recordOffset + ZIP64_EOCD_SIZE > locator) {
    corrupt(`ZIP64 end record offset ${recordOffset} is out of range`, { offset: recordOffset });
  }
  const record = recordOffset >= tailStart
    ? tail.subarray(recordOffset - tailStart, recordOffset - tailStart + ZIP64_EOCD_SIZE)
    : await readAt(handle, ZIP64_EOCD_SIZE, recordOffset);
  if (record.readUInt32LE(0) !== SIG_ZIP64_EOCD) corrupt(`No ZIP64 end record at offset ${recordOffset}`, { offset: recordOffset });
  const recordSize = readU64(record, 4, "ZIP64 end record size");
  if (recordOffset + 12 + recordSize !== locator) {
    corrupt("ZIP64 end record size does not reach the locator (unexpected data in between)", { offset: recordOffset });
  }
  if (record.readUInt32LE(16) !== 0 || record.readUInt32LE(20) !== 0) corrupt("Multi-disk (split) archives are not supported");
  const entriesOnDisk64 = readU64(record, 24, "ZIP64 entry count");
  count = readU64(record, 32, "ZIP64 entry count");
  if (entriesOnDisk64 !== count) corrupt("Multi-disk (split) archives are not supported");
  cdSize = readU64(record, 40, "ZIP64 central directory size");
  cdOffset = readU64(record, 48, "ZIP64 central directory offset");
  return { count, cdOffset, cdSize, cdEnd: recordOffset, zip64: true };
}

/**
 * Read and validate the central directory of an open archive. Throws `ArchiveError`
 * (`E_ARCHIVE_CORRUPT`, `E_ARCHIVE_LIMIT`, `E_ARCHIVE_ENTRY`, `E_ARCHIVE_UNSUPPORTED`)
 * naming the entry where there is one.
 */
export async function readCentralDirectory(handle: FileHandle, fileSize: number, limits: ArchiveLimits): Promise<CentralDirectory> {
  if (fileSize < EOCD_SIZE) corrupt(`Not a ZIP archive (${fileSize} bytes)`);
  const tailLength = Math.min(fileSize, TAIL_BYTES);
  const tailStart = fileSize - tailLength;
  const tail = await readAt(handle, tailLength, tailStart);
  const end = await readEndRecord(handle, tail, tailStart);

  if (end.cdOffset + end.cdSize > end.cdEnd) {
    corrupt(`Central directory (offset ${end.cdOffset}, ${end.cdSize} bytes) extends past its end record at ${end.cdEnd}`, { offset: end.cdOffset });
  }
  if (end.cdOffset + end.cdSize < end.cdEnd) {
    corrupt(`Refusing ${end.cdEnd - end.cdOffset - end.cdSize} byte(s) of unexpected data before the end of the central directory (prepended data or a self-extractor stub?)`, {
      offset: end.cdOffset,
    });
  }
  if (end.count > limits.maxEntries) {
    throw new ArchiveError("E_ARCHIVE_LIMIT", `Archive has ${end.count} entries, more than the limit of ${limits.maxEntries}`, {
      limit: limits.maxEntries,
      actual: end.count,
    });
  }
  if (end.count * CENTRAL_HEADER_SIZE > end.cdSize) {
    corrupt(`Archive declares ${end.count} entries but its central directory (${end.cdSize} bytes) cannot hold them`);
  }
  if (end.cdSize > MAX_CENTRAL_DIRECTORY_BYTES) {
    throw new ArchiveError("E_ARCHIVE_LIMIT", `Central directory of ${end.cdSize} bytes is too large`, { limit: MAX_CENTRAL_DIRECTORY_BYTES });
  }
  const cd = end.cdOffset >= tailStart
    ? tail.subarray(end.cdOffset - tailStart, end.cdOffset - tailStart + end.cdSize)
    : await readAt(handle, end.cdSize, end.cdOffset);
  const entries = parseRecords(cd, end.count, end.cdOffset, limits);
  return { fileSize, offset: end.cdOffset, size: end.cdSize, zip64: end.zip64, entries };
}

/** True when bytes [start, end) are printable ASCII other than backslash (the fast path). */
function isPlainAscii(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = buffer[i] as number;
    if (byte < 0x20 || byte > 0x7e || byte === 0x5c) return false;
  }
  return true;
}

function parseRecords(cd: Buffer, declaredCount: number, cdOffset: number, limits: ArchiveLimits): CentralEntry[] {
  const entries: CentralEntry[] = [];
  const length = cd.length;
  let pos = 0;
  while (pos < length) {
    if (length - pos < CENTRAL_HEADER_SIZE || cd.readUInt32LE(pos) !== SIG_CENTRAL_HEADER) {
      corrupt(`Bad central directory record at offset ${cdOffset + pos}`, { offset: cdOffset + pos });
    }
    const nameLength = cd.readUInt16LE(pos + 28);
    const extraLength = cd.readUInt16LE(pos + 30);
    const commentLength = cd.readUInt16LE(pos + 32);
    const nameStart = pos + CENTRAL_HEADER_SIZE;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > length) corrupt(`Central directory record at offset ${cdOffset + pos} overruns the directory`, { offset: cdOffset + pos });
    if (entries.length >= declaredCount) {
      corrupt(`Central directory holds more records than the ${declaredCount} its end record declares`);
    }
    const name = isPlainAscii(cd, nameStart, extraStart) ? cd.toString("latin1", nameStart, extraStart) : decodeEntryName(cd.subarray(nameStart, extraStart));
    const isDirectory = name.charCodeAt(name.length - 1) === 0x2f;
    const path = isDirectory ? name.slice(0, -1) : name;
    checkRelativePath(path, name, limits);
    const entry = parseRecord(cd, pos, name, path, isDirectory, nameLength, extraStart, extraLength, cdOffset);
    entries.push(entry);
    pos = next;
  }
  if (entries.length !== declaredCount) {
    corrupt(`End record declares ${declaredCount} entries but the central directory holds ${entries.length}`);
  }
  return entries;
}

// Entries written together share their DOS timestamp: remember the last conversion.
let lastDos = -1;
let lastDosMs: number | null = null;
function dosTimestamp(date: number, time: number): number | null {
  const key = date * 0x10000 + time;
  if (key !== lastDos) {
    lastDos = key;
    lastDosMs = dosDateTimeToMs(date, time);
  }
  return lastDosMs;
}

function parseRecord(
  cd: Buffer,
  pos: number,
  name: string,
  path: string,
  isDirectory: boolean,
  nameLength: number,
  extraStart: number,
  extraLength: number,
  cdOffset: number,
): CentralEntry {
  const host = cd[pos + 5] as number;
  const flags = cd.readUInt16LE(pos + 8);
  const method = cd.readUInt16LE(pos + 10);
  const dosTime = cd.readUInt16LE(pos + 12);
  const dosDate = cd.readUInt16LE(pos + 14);
  const crc32 = cd.readUInt32LE(pos + 16);
  let compressedSize = cd.readUInt32LE(pos + 20);
  let size = cd.readUInt32LE(pos + 24);
  const disk = cd.readUInt16LE(pos + 34);
  const external = cd.readUInt32LE(pos + 38);
  let localHeaderOffset = cd.readUInt32LE(pos + 42);

  if ((flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADERS)) !== 0 || method === METHOD_AES) {
    throw new ArchiveError("E_ARCHIVE_UNSUPPORTED", `Encrypted entries are not supported: ${displayPath(name)}`, { entry: name, reason: "encrypted" });
  }
  if (method !== METHOD_STORED && method !== METHOD_DEFLATE) {
    throw new ArchiveError("E_ARCHIVE_UNSUPPORTED", `Compression method ${method} (${methodName(method)}) is not supported: ${displayPath(name)}`, {
      entry: name,
      reason: "method",
      method,
    });
  }

  let mode: number | null = null;
  if (host === HOST_UNIX || host === HOST_OSX) {
    const unixMode = external >>> 16;
    const type = unixFileType(unixMode);
    if (type === "symlink") {
      throw new ArchiveError("E_ARCHIVE_ENTRY", `Symbolic link entries are not supported: ${displayPath(name)}`, { entry: name, reason: "symlink" });
    }
    if (type !== null && type !== "file" && type !== "directory") {
      throw new ArchiveError("E_ARCHIVE_ENTRY", `Special file (${type}) entries are not supported: ${displayPath(name)}`, { entry: name, reason: "special-file" });
    }
    if ((type === "directory") !== isDirectory && type !== null) {
      throw new ArchiveError("E_ARCHIVE_ENTRY", `Entry is a ${type} but its name ${isDirectory ? "ends" : "does not end"} with "/": ${displayPath(name)}`, {
        entry: name,
        reason: "kind-mismatch",
      });
    }
    if (unixMode !== 0) mode = unixMode & 0o7777;
  }
  if (!isDirectory && (external & DOS_DIRECTORY) !== 0 && mode === null) {
    throw new ArchiveError("E_ARCHIVE_ENTRY", `Entry has the directory attribute but its name does not end with "/": ${displayPath(name)}`, {
      entry: name,
      reason: "kind-mismatch",
    });
  }

  const needSize = size === U32_MAX;
  const needCompressedSize = compressedSize === U32_MAX;
  const needOffset = localHeaderOffset === U32_MAX;
  let mtimeMs: number | null = null;
  let sawZip64 = false;
  const extraEnd = extraStart + extraLength;
  let p = extraStart;
  while (p + 4 <= extraEnd) {
    const id = cd.readUInt16LE(p);
    const dataSize = cd.readUInt16LE(p + 2);
    const data = p + 4;
    if (data + dataSize > extraEnd) corrupt(`Corrupt extra field 0x${id.toString(16).padStart(4, "0")}`, { entry: name });
    if (id === EXTRA_ZIP64) {
      sawZip64 = true;
      // Only the fields that are 0xFFFFFFFF in the record are present, in this order.
      const wanted = (needSize ? 8 : 0) + (needCompressedSize ? 8 : 0) + (needOffset ? 8 : 0);
      if (dataSize < wanted) corrupt("ZIP64 extra field is too short for the fields it must hold", { entry: name });
      let q = data;
      if (needSize) {
        size = readU64(cd, q, "ZIP64 size");
        q += 8;
      }
      if (needCompressedSize) {
        compressedSize = readU64(cd, q, "ZIP64 compressed size");
        q += 8;
      }
      if (needOffset) localHeaderOffset = readU64(cd, q, "ZIP64 offset");
    } else if (id === EXTRA_EXTENDED_TIMESTAMP) {
      if (dataSize >= 5 && ((cd[data] as number) & 1) !== 0) mtimeMs = cd.readInt32LE(data + 1) * 1000;
    } else if (id === EXTRA_UNICODE_PATH) {
      // Info-ZIP readers would prefer this name: refuse the archive unless it agrees.
      const unicodeName = dataSize >= 5 ? cd.toString("utf8", data + 5, data + dataSize) : "";
      if (unicodeName !== name) {
        throw new ArchiveError("E_ARCHIVE_ENTRY", `Entry has a conflicting Unicode path field (${displayPath(unicodeName)}): ${displayPath(name)}`, {
          entry: name,
          reason: "unicode-path-mismatch",
        });
      }
    }
    p = data + dataSize;
  }
  if ((needSize || needCompressedSize || needOffset) && !sawZip64) {
    corrupt("Entry has 0xFFFFFFFF size or offset fields but no ZIP64 extra field", { entry: name });
  }
  if (disk !== 0 && disk !== U16_MAX) corrupt("Entry starts on another disk (split archives are not supported)", { entry: name });
  if (isDirectory && (size > 0 || compressedSize > 2)) {
    throw new ArchiveError("E_ARCHIVE_ENTRY", `Directory entry carries data: ${displayPath(name)}`, { entry: name, reason: "directory-with-data" });
  }
  if (method === METHOD_STORED && compressedSize !== size) {
    corrupt(`Stored entry has compressed size ${compressedSize} but size ${size}`, { entry: name });
  }
  if (localHeaderOffset + LOCAL_HEADER_SIZE + nameLength + compressedSize > cdOffset) {
    corrupt(`Entry data (offset ${localHeaderOffset}, ${compressedSize} bytes) lies outside the archive's data area`, { entry: name });
  }
  if (mtimeMs === null) mtimeMs = dosTimestamp(dosDate, dosTime);
  return { name, path, isDirectory, flags, method, crc32, compressedSize, size, localHeaderOffset, nameLength, extraLength, mode, mtimeMs };
}
