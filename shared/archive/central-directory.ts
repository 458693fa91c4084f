/**
 * Locating and parsing a ZIP central directory, validating every record on the way.
 * Browser-safe: the bytes come through a `ReadRange` (a file descriptor on the server, the
 * dropped file's bytes in the browser), so both read archives with this one parser.
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
import { ArchiveError } from "../errors.js";
import { displayPath } from "../filesystem/paths.js";
import { checkRelativePath, decodeEntryName } from "./entry-names.js";
import type { ArchiveLimits } from "../filesystem/archive-limits.js";
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

/**
 * Reads exactly `length` bytes at `position` of an archive, or throws (a short read is a
 * truncated archive: `corrupt`). The server reads through a file descriptor, the browser
 * slices the bytes it holds.
 */
export type ReadRange = (position: number, length: number) => Promise<Uint8Array>;

export function corrupt(message: string, data: Record<string, unknown> = {}): never {
  const entry = typeof data.entry === "string" ? `: ${displayPath(data.entry)}` : "";
  throw new ArchiveError("E_ARCHIVE_CORRUPT", `${message}${entry}`, data);
}

/** The error for a read past the end of the archive. */
export function truncated(position: number): never {
  return corrupt(`Unexpected end of file at offset ${position} (truncated archive?)`);
}

/** A `ReadRange` over bytes held in memory (the browser's dropped file, tests). */
export function memoryRange(bytes: Uint8Array): ReadRange {
  return async (position, length) => {
    if (position < 0 || position + length > bytes.length) truncated(Math.min(Math.max(0, position), bytes.length));
    return bytes.subarray(position, position + length);
  };
}

/** A little-endian view of bytes (DataView, so the same code runs in Node and the browser). */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A little-endian 64-bit field as a number; beyond 2^53 the archive is refused. */
export function readU64(view: DataView, at: number, what: string): number {
  const high = view.getUint32(at + 4, true);
  if (high > 0x1fffff) corrupt(`${what} does not fit in 53 bits`);
  return high * 0x1_0000_0000 + view.getUint32(at, true);
}

interface EndRecord {
  count: number;
  cdOffset: number;
  cdSize: number;
  /** Where the central directory must end: the ZIP64 EOCD record or the EOCD. */
  cdEnd: number;
  zip64: boolean;
}

function findEocd(tail: Uint8Array, view: DataView): number {
  let mismatched = -1;
  const lowest = Math.max(0, tail.length - MAX_EOCD_SEARCH);
  for (let i = tail.length - EOCD_SIZE; i >= lowest; i--) {
    if (tail[i] !== 0x50 || view.getUint32(i, true) !== SIG_EOCD) continue;
    if (i + EOCD_SIZE + view.getUint16(i + 20, true) === tail.length) return i;
    if (mismatched === -1) mismatched = i;
  }
  if (mismatched !== -1) {
    const trailing = tail.length - (mismatched + EOCD_SIZE + view.getUint16(mismatched + 20, true));
    corrupt(`Refusing ${Math.abs(trailing)} byte(s) of data ${trailing > 0 ? "after the end of the archive (appended data)" : "missing from the archive comment (truncated?)"}`);
  }
  return corrupt("Not a ZIP archive (no end-of-central-directory record)");
}

async function readEndRecord(read: ReadRange, tail: Uint8Array, tailStart: number): Promise<EndRecord> {
  const tailView = viewOf(tail);
  const eocdInTail = findEocd(tail, tailView);
  const eocd = tailStart + eocdInTail;
  const diskNumber = tailView.getUint16(eocdInTail + 4, true);
  const cdDisk = tailView.getUint16(eocdInTail + 6, true);
  const entriesOnDisk = tailView.getUint16(eocdInTail + 8, true);
  let count = tailView.getUint16(eocdInTail + 10, true);
  let cdSize = tailView.getUint32(eocdInTail + 12, true);
  let cdOffset = tailView.getUint32(eocdInTail + 16, true);

  const locator = eocd - ZIP64_LOCATOR_SIZE;
  let locatorView: DataView | null = null;
  if (locator >= 0) {
    locatorView = viewOf(locator >= tailStart ? tail.subarray(locator - tailStart, eocdInTail) : await read(locator, ZIP64_LOCATOR_SIZE));
    if (locatorView.getUint32(0, true) !== SIG_ZIP64_LOCATOR) locatorView = null;
  }
  if (locatorView === null) {
    if ((diskNumber !== 0 && diskNumber !== U16_MAX) || (cdDisk !== 0 && cdDisk !== U16_MAX) || entriesOnDisk !== count) {
      corrupt("Multi-disk (split) archives are not supported");
    }
    return { count, cdOffset, cdSize, cdEnd: eocd, zip64: false };
  }

  const recordOffset = readU64(locatorView, 8, "ZIP64 end record offset");
  const totalDisks = locatorView.getUint32(16, true);
  if (locatorView.getUint32(4, true) !== 0 || totalDisks > 1) corrupt("Multi-disk (split) archives are not supported");
  if (recordOffset + ZIP64_EOCD_SIZE > locator) {
    corrupt(`ZIP64 end record offset ${recordOffset} is out of range`, { offset: recordOffset });
  }
  const record = viewOf(
    recordOffset >= tailStart ? tail.subarray(recordOffset - tailStart, recordOffset - tailStart + ZIP64_EOCD_SIZE) : await read(recordOffset, ZIP64_EOCD_SIZE),
  );
  if (record.getUint32(0, true) !== SIG_ZIP64_EOCD) corrupt(`No ZIP64 end record at offset ${recordOffset}`, { offset: recordOffset });
  const recordSize = readU64(record, 4, "ZIP64 end record size");
  if (recordOffset + 12 + recordSize !== locator) {
    corrupt("ZIP64 end record size does not reach the locator (unexpected data in between)", { offset: recordOffset });
  }
  if (record.getUint32(16, true) !== 0 || record.getUint32(20, true) !== 0) corrupt("Multi-disk (split) archives are not supported");
  const entriesOnDisk64 = readU64(record, 24, "ZIP64 entry count");
  count = readU64(record, 32, "ZIP64 entry count");
  if (entriesOnDisk64 !== count) corrupt("Multi-disk (split) archives are not supported");
  // The classic record's fields, where they are not 0xFFFF/0xFFFFFFFF, must say the same.
  const classic: ReadonlyArray<[number, number, number, string]> = [
    [entriesOnDisk, U16_MAX, count, "entry count"],
    [tailView.getUint16(eocdInTail + 10, true), U16_MAX, count, "entry count"],
    [cdSize, U32_MAX, readU64(record, 40, "ZIP64 central directory size"), "central directory size"],
    [cdOffset, U32_MAX, readU64(record, 48, "ZIP64 central directory offset"), "central directory offset"],
  ];
  for (const [value, marker, zip64Value, what] of classic) {
    if (value !== marker && value !== zip64Value) corrupt(`End record ${what} ${value} differs from the ZIP64 end record's ${zip64Value}`);
  }
  cdSize = readU64(record, 40, "ZIP64 central directory size");
  cdOffset = readU64(record, 48, "ZIP64 central directory offset");
  return { count, cdOffset, cdSize, cdEnd: recordOffset, zip64: true };
}

/**
 * Read and validate the central directory of an archive of `fileSize` bytes. Throws
 * `ArchiveError` (`E_ARCHIVE_CORRUPT`, `E_ARCHIVE_LIMIT`, `E_ARCHIVE_ENTRY`,
 * `E_ARCHIVE_UNSUPPORTED`) naming the entry where there is one.
 */
export async function readCentralDirectory(read: ReadRange, fileSize: number, limits: ArchiveLimits): Promise<CentralDirectory> {
  if (fileSize < EOCD_SIZE) corrupt(`Not a ZIP archive (${fileSize} bytes)`);
  const tailLength = Math.min(fileSize, TAIL_BYTES);
  const tailStart = fileSize - tailLength;
  const tail = await read(tailStart, tailLength);
  const end = await readEndRecord(read, tail, tailStart);

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
  const cd = end.cdOffset >= tailStart ? tail.subarray(end.cdOffset - tailStart, end.cdOffset - tailStart + end.cdSize) : await read(end.cdOffset, end.cdSize);
  const entries = parseRecords(cd, end.count, end.cdOffset, limits);
  return { fileSize, offset: end.cdOffset, size: end.cdSize, zip64: end.zip64, entries };
}

/** True when bytes [start, end) are printable ASCII other than backslash (the fast path). */
function isPlainAscii(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte < 0x20 || byte > 0x7e || byte === 0x5c) return false;
  }
  return true;
}

/** Printable ASCII bytes as a string (names are short: one call, no decoder). */
function asciiString(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
}

/** The entry name held in bytes [start, end): strict UTF-8 (never CP437, whatever the flags say). */
export function entryNameAt(bytes: Uint8Array, start: number, end: number): string {
  return isPlainAscii(bytes, start, end) ? asciiString(bytes, start, end) : decodeEntryName(bytes.subarray(start, end));
}

function parseRecords(cd: Uint8Array, declaredCount: number, cdOffset: number, limits: ArchiveLimits): CentralEntry[] {
  const entries: CentralEntry[] = [];
  const view = viewOf(cd);
  const length = cd.length;
  let pos = 0;
  while (pos < length) {
    if (length - pos < CENTRAL_HEADER_SIZE || view.getUint32(pos, true) !== SIG_CENTRAL_HEADER) {
      corrupt(`Bad central directory record at offset ${cdOffset + pos}`, { offset: cdOffset + pos });
    }
    const nameLength = view.getUint16(pos + 28, true);
    const extraLength = view.getUint16(pos + 30, true);
    const commentLength = view.getUint16(pos + 32, true);
    const nameStart = pos + CENTRAL_HEADER_SIZE;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > length) corrupt(`Central directory record at offset ${cdOffset + pos} overruns the directory`, { offset: cdOffset + pos });
    if (entries.length >= declaredCount) {
      corrupt(`Central directory holds more records than the ${declaredCount} its end record declares`);
    }
    const name = entryNameAt(cd, nameStart, extraStart);
    const isDirectory = name.charCodeAt(name.length - 1) === 0x2f;
    const path = isDirectory ? name.slice(0, -1) : name;
    checkRelativePath(path, name, limits);
    const entry = parseRecord(cd, view, pos, name, path, isDirectory, nameLength, extraStart, extraLength, cdOffset);
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

/** The values a ZIP64 extra field may hold, in its order, with the record's 32-bit (or 16-bit) field for each. */
interface Zip64Fields {
  size: number;
  compressedSize: number;
  offset: number;
  disk: number;
}

/**
 * Apply a ZIP64 extra field (`dataSize` bytes at `data`) to `fields`. APPNOTE 4.5.3: only the
 * fields whose record value is 0xFFFFFFFF (0xFFFF for the disk) are present, in the order
 * size, compressed size, offset, disk. Some writers (Go's archive/zip) also put fields that
 * are not marked after the marked ones: a reader that takes the extra positionally would then
 * read them, so they must say what the record says, or the entry is refused.
 */
export function applyZip64Extra(view: DataView, data: number, dataSize: number, fields: Zip64Fields, name: string): void {
  const order: ReadonlyArray<[keyof Zip64Fields, number]> = [
    ["size", U32_MAX],
    ["compressedSize", U32_MAX],
    ["offset", U32_MAX],
    ["disk", U16_MAX],
  ];
  const marked = order.filter(([key, marker]) => fields[key] === marker);
  const wanted = marked.reduce((sum, [key]) => sum + (key === "disk" ? 4 : 8), 0);
  if (dataSize < wanted) corrupt("ZIP64 extra field is too short for the fields it must hold", { entry: name });
  let q = data;
  const end = data + dataSize;
  for (const [key] of marked) {
    fields[key] = key === "disk" ? view.getUint32(q, true) : readU64(view, q, `ZIP64 ${key === "size" ? "size" : key === "compressedSize" ? "compressed size" : "offset"}`);
    q += key === "disk" ? 4 : 8;
  }
  // Surplus values: the unmarked fields that follow the last marked one, in order.
  const lastMarked = marked.length === 0 ? -1 : order.findIndex(([key]) => key === (marked[marked.length - 1] as [keyof Zip64Fields, number])[0]);
  for (let i = lastMarked + 1; i < order.length && q < end; i++) {
    const [key] = order[i] as [keyof Zip64Fields, number];
    const width = key === "disk" ? 4 : 8;
    if (end - q < width) break;
    const value = key === "disk" ? view.getUint32(q, true) : readU64(view, q, "ZIP64 field");
    if (value !== fields[key]) {
      corrupt(`ZIP64 extra field gives ${key === "compressedSize" ? "compressed size" : key} ${value}, the record ${fields[key]}`, { entry: name, reason: "zip64-mismatch" });
    }
    q += width;
  }
  if (q !== end) corrupt(`ZIP64 extra field holds ${end - q} byte(s) that no field accounts for`, { entry: name, reason: "zip64-mismatch" });
}

function parseRecord(
  cd: Uint8Array,
  view: DataView,
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
  const flags = view.getUint16(pos + 8, true);
  const method = view.getUint16(pos + 10, true);
  const dosTime = view.getUint16(pos + 12, true);
  const dosDate = view.getUint16(pos + 14, true);
  const crc32 = view.getUint32(pos + 16, true);
  const external = view.getUint32(pos + 38, true);
  const fields: Zip64Fields = {
    compressedSize: view.getUint32(pos + 20, true),
    size: view.getUint32(pos + 24, true),
    disk: view.getUint16(pos + 34, true),
    offset: view.getUint32(pos + 42, true),
  };

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

  const needsZip64 = fields.size === U32_MAX || fields.compressedSize === U32_MAX || fields.offset === U32_MAX;
  let mtimeMs: number | null = null;
  let sawZip64 = false;
  const extraEnd = extraStart + extraLength;
  let p = extraStart;
  while (p + 4 <= extraEnd) {
    const id = view.getUint16(p, true);
    const dataSize = view.getUint16(p + 2, true);
    const data = p + 4;
    if (data + dataSize > extraEnd) corrupt(`Corrupt extra field 0x${id.toString(16).padStart(4, "0")}`, { entry: name });
    if (id === EXTRA_ZIP64) {
      if (sawZip64) corrupt("Entry has two ZIP64 extra fields", { entry: name, reason: "zip64-mismatch" });
      sawZip64 = true;
      applyZip64Extra(view, data, dataSize, fields, name);
    } else if (id === EXTRA_EXTENDED_TIMESTAMP) {
      if (dataSize >= 5 && ((cd[data] as number) & 1) !== 0) mtimeMs = view.getInt32(data + 1, true) * 1000;
    } else if (id === EXTRA_UNICODE_PATH) {
      checkUnicodePathExtra(cd, data, dataSize, name);
    }
    p = data + dataSize;
  }
  if (needsZip64 && !sawZip64) {
    corrupt("Entry has 0xFFFFFFFF size or offset fields but no ZIP64 extra field", { entry: name });
  }
  const { size, compressedSize, offset: localHeaderOffset, disk } = fields;
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

/**
 * An Info-ZIP Unicode-path extra (0x7075): readers that honour it would use its name, so it
 * must name the entry itself (in the central record and, when present, the local header).
 */
export function checkUnicodePathExtra(bytes: Uint8Array, data: number, dataSize: number, name: string): void {
  let unicodeName = "";
  if (dataSize >= 5) {
    try {
      unicodeName = decodeEntryName(bytes.subarray(data + 5, data + dataSize));
    } catch {
      unicodeName = "(not UTF-8)";
    }
  }
  if (unicodeName !== name) {
    throw new ArchiveError("E_ARCHIVE_ENTRY", `Entry has a conflicting Unicode path field (${displayPath(unicodeName)}): ${displayPath(name)}`, {
      entry: name,
      reason: "unicode-path-mismatch",
    });
  }
}
