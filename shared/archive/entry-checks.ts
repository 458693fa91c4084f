/**
 * The per-entry half of the archive policy, shared by every reader (the server's reader and
 * import in Node, the in-browser reader): the limits an entry must meet before anything is
 * inflated, and the agreement of every field the ZIP format stores twice. Browser-safe.
 *
 * The central directory is the only source of truth; every other copy of a fact must say
 * the same or the entry is refused (`E_ARCHIVE_CORRUPT`, reason `local-header-mismatch` or
 * `data-descriptor-mismatch`):
 * - the local header repeats the name (byte for byte), the method, the encryption and
 *   data-descriptor flags, and — unless the data-descriptor flag defers them, when they may
 *   be zero — the CRC-32 and both sizes, in its 32-bit fields and in its ZIP64 extra (when
 *   it has one; both sizes, APPNOTE 4.5.3); an Info-ZIP Unicode-path extra must name the
 *   entry too;
 * - a data descriptor (flag bit 3), right after the data, with or without its signature,
 *   with 8-byte sizes when the local header has a ZIP64 extra (APPNOTE 4.3.9), repeats the
 *   CRC-32 and both sizes.
 * yauzl, JSZip and CPython accept a data descriptor that disagrees; Info-ZIP's `unzip -t`
 * does not look at it. A streaming reader trusts it, so an archive whose copies disagree
 * can show one tool other bytes than another: we refuse it.
 */
import { ArchiveError } from "../errors.js";
import { displayPath } from "../filesystem/paths.js";
import { checkUnicodePathExtra, corrupt, readU64, viewOf, type CentralEntry, type ReadRange } from "./central-directory.js";
import type { ArchiveLimits } from "../filesystem/archive-limits.js";
import { EXTRA_UNICODE_PATH, EXTRA_ZIP64, FLAG_DATA_DESCRIPTOR, FLAG_ENCRYPTED, LOCAL_HEADER_SIZE, SIG_LOCAL_HEADER, U32_MAX } from "./zip-format.js";

/** Ratios are only checked on entries larger than this (small files legitimately compress very well). */
export const RATIO_CHECK_MIN_BYTES = 1024 * 1024;
/** The longest data descriptor: signature, CRC-32 and two 8-byte sizes. */
export const MAX_DATA_DESCRIPTOR_BYTES = 24;
const SIG_DATA_DESCRIPTOR = 0x08074b50;
/** Slack read after the central record's extra length, so one read almost always covers the local header. */
const LOCAL_EXTRA_SLACK = 64;

function limitError(entry: CentralEntry, message: string, reason: string, limit: number, actual: number): never {
  throw new ArchiveError("E_ARCHIVE_LIMIT", `${message}: ${displayPath(entry.name)}`, { entry: entry.name, reason, limit, actual });
}

/**
 * The limits one entry must meet before any of it is inflated: its declared size against
 * `maxBytes` (`maxFileBytes`, or less where a caller reads less), and, above 1 MiB, its
 * compression ratio against `maxCompressionRatio` (a bomb is refused from what it declares,
 * and a lying declared size is caught while inflating: output is capped at it).
 */
export function checkEntryLimits(entry: CentralEntry, maxBytes: number, limits: Pick<ArchiveLimits, "maxCompressionRatio">): void {
  if (entry.size > maxBytes) limitError(entry, `Entry of ${entry.size} bytes exceeds the limit of ${maxBytes} bytes`, "file-too-large", maxBytes, entry.size);
  if (entry.size > RATIO_CHECK_MIN_BYTES && entry.size > entry.compressedSize * limits.maxCompressionRatio) {
    const ratio = Math.round(entry.size / Math.max(1, entry.compressedSize));
    limitError(entry, `Compression ratio ${ratio}:1 exceeds the limit of ${limits.maxCompressionRatio}:1 (possible zip bomb)`, "ratio", limits.maxCompressionRatio, ratio);
  }
}

/** Bytes after an entry's data that belong to it: room for its data descriptor, when it has one. */
export function trailerAllowance(entry: CentralEntry): number {
  return (entry.flags & FLAG_DATA_DESCRIPTOR) !== 0 ? MAX_DATA_DESCRIPTOR_BYTES : 0;
}

/** How many bytes to read at the local header to get it whole in one read (most of the time). */
export function localHeaderGuess(entry: CentralEntry): number {
  return LOCAL_HEADER_SIZE + entry.nameLength + entry.extraLength + LOCAL_EXTRA_SLACK;
}

/** Bytes of the local header starting at `bytes[0]` (which must hold its fixed part). */
export function localHeaderLength(bytes: Uint8Array, entry: CentralEntry): number {
  const view = viewOf(bytes);
  if (bytes.length < LOCAL_HEADER_SIZE || view.getUint32(0, true) !== SIG_LOCAL_HEADER) {
    corrupt(`No local header at offset ${entry.localHeaderOffset}`, { entry: entry.name });
  }
  return LOCAL_HEADER_SIZE + view.getUint16(26, true) + view.getUint16(28, true);
}

/** True when bytes [start, start + length) are the UTF-8 encoding of `name`. */
function nameBytesEqual(bytes: Uint8Array, start: number, length: number, name: string): boolean {
  let ascii = name.length === length;
  for (let i = 0; ascii && i < length; i++) {
    const code = name.charCodeAt(i);
    if (code >= 0x80) ascii = false;
    else if (bytes[start + i] !== code) return false;
  }
  if (ascii) return true;
  const encoded = new TextEncoder().encode(name);
  if (encoded.length !== length) return false;
  for (let i = 0; i < length; i++) if (bytes[start + i] !== encoded[i]) return false;
  return true;
}

/** What the local header tells about the data that follows it. */
export interface LocalHeaderFacts {
  /** Bytes of the local header (its data starts here). */
  readonly length: number;
  /** The header has a ZIP64 extra: its data descriptor, if any, has 8-byte sizes. */
  readonly zip64: boolean;
}

/**
 * Compare a complete local header (at `bytes[0]`) with the central record; throws
 * `E_ARCHIVE_CORRUPT` (reason `local-header-mismatch`) naming the field that differs.
 */
export function checkLocalHeader(bytes: Uint8Array, entry: CentralEntry): LocalHeaderFacts {
  const mismatch = (field: string): never => corrupt(`Local header ${field} differs from the central directory`, { entry: entry.name, reason: "local-header-mismatch" });
  const view = viewOf(bytes);
  const length = localHeaderLength(bytes, entry);
  if (length > bytes.length) corrupt("Local header extends past the bytes read", { entry: entry.name });
  const flags = view.getUint16(6, true);
  const nameLength = view.getUint16(26, true);
  const extraLength = view.getUint16(28, true);
  if (nameLength !== entry.nameLength || !nameBytesEqual(bytes, LOCAL_HEADER_SIZE, nameLength, entry.name)) mismatch("name");
  if (view.getUint16(8, true) !== entry.method) mismatch("compression method");
  if ((flags & FLAG_ENCRYPTED) !== (entry.flags & FLAG_ENCRYPTED)) mismatch("encryption flag");
  const deferred = (flags & FLAG_DATA_DESCRIPTOR) !== 0;
  if (deferred !== ((entry.flags & FLAG_DATA_DESCRIPTOR) !== 0)) mismatch("data-descriptor flag");
  // With a data descriptor the header's CRC and sizes may be zero ("given later"); any other value must agree.
  const agrees = (value: number, expected: number): boolean => value === expected || (deferred && value === 0);
  if (!agrees(view.getUint32(14, true), entry.crc32)) mismatch("CRC-32");
  const compressedSize = view.getUint32(18, true);
  const size = view.getUint32(22, true);
  let zip64 = false;
  const extraEnd = LOCAL_HEADER_SIZE + nameLength + extraLength;
  for (let p = LOCAL_HEADER_SIZE + nameLength; p + 4 <= extraEnd; ) {
    const id = view.getUint16(p, true);
    const dataSize = view.getUint16(p + 2, true);
    const data = p + 4;
    if (data + dataSize > extraEnd) corrupt(`Corrupt local extra field 0x${id.toString(16).padStart(4, "0")}`, { entry: entry.name });
    if (id === EXTRA_ZIP64) {
      // The local ZIP64 extra holds both sizes, uncompressed first (APPNOTE 4.5.3).
      if (zip64 || dataSize < 16) mismatch("ZIP64 extra field");
      zip64 = true;
      if (!agrees(readU64(view, data, "local ZIP64 size"), entry.size)) mismatch("ZIP64 size");
      if (!agrees(readU64(view, data + 8, "local ZIP64 compressed size"), entry.compressedSize)) mismatch("ZIP64 compressed size");
    } else if (id === EXTRA_UNICODE_PATH) {
      checkUnicodePathExtra(bytes, data, dataSize, entry.name);
    }
    p = data + dataSize;
  }
  // 0xFFFFFFFF says "see the ZIP64 extra", which must then be there (checked above when it is).
  if (compressedSize === U32_MAX || size === U32_MAX) {
    if (!zip64) mismatch("sizes (0xFFFFFFFF without a ZIP64 extra)");
  } else {
    if (!agrees(compressedSize, entry.compressedSize)) mismatch("compressed size");
    if (!agrees(size, entry.size)) mismatch("size");
  }
  return { length, zip64 };
}

/**
 * Check the data descriptor of `entry` at `bytes[0]` (just after its data) against the
 * central record; returns its length. Without the data-descriptor flag there is none (0).
 */
export function checkDataDescriptor(bytes: Uint8Array, entry: CentralEntry, zip64: boolean): number {
  if ((entry.flags & FLAG_DATA_DESCRIPTOR) === 0) return 0;
  const mismatch = (what: string): never => corrupt(`Data descriptor ${what}`, { entry: entry.name, reason: "data-descriptor-mismatch" });
  const view = viewOf(bytes);
  const sizeBytes = zip64 ? 8 : 4;
  const fits = (at: number): boolean => at + 4 + 2 * sizeBytes <= bytes.length;
  const matches = (at: number): boolean => {
    if (!fits(at) || view.getUint32(at, true) !== entry.crc32) return false;
    const compressed = zip64 ? readU64(view, at + 4, "data descriptor compressed size") : view.getUint32(at + 4, true);
    const size = zip64 ? readU64(view, at + 4 + sizeBytes, "data descriptor size") : view.getUint32(at + 4 + sizeBytes, true);
    return compressed === entry.compressedSize && size === entry.size;
  };
  // The signature is optional (APPNOTE 4.3.9.3): with it the record starts 4 bytes later.
  if (bytes.length >= 4 && view.getUint32(0, true) === SIG_DATA_DESCRIPTOR && matches(4)) return 4 + 4 + 2 * sizeBytes;
  if (matches(0)) return 4 + 2 * sizeBytes;
  if (!fits(0)) mismatch("is missing (the archive ends or the next entry starts first)");
  return mismatch(`differs from the central directory (CRC-32, sizes${zip64 ? ", 8-byte form" : ""})`);
}

/** Where an entry's data lies, after its local header (and data descriptor) were checked. */
export interface LocatedEntry {
  readonly dataStart: number;
  /** First byte after the entry: after its data and its data descriptor. */
  readonly end: number;
  /** The compressed data, when it was asked for. */
  readonly compressed: Uint8Array | null;
}

/**
 * Read and check `entry`'s local header and data descriptor, and its compressed data when
 * `withData` (usually with one read: header, data and descriptor lie together). `dataEnd` is
 * where entry data must end (the central directory's offset).
 */
export async function locateEntry(read: ReadRange, entry: CentralEntry, dataEnd: number, withData: boolean): Promise<LocatedEntry> {
  const available = dataEnd - entry.localHeaderOffset;
  const trailer = trailerAllowance(entry);
  const want = (headerLength: number): number => (withData ? headerLength + entry.compressedSize + trailer : headerLength);
  let bytes = await read(entry.localHeaderOffset, Math.min(want(localHeaderGuess(entry)), available));
  const length = localHeaderLength(bytes, entry);
  if (length + entry.compressedSize > available) corrupt("Entry data extends past the data area", { entry: entry.name });
  const needed = Math.min(want(length), available);
  if (needed > bytes.length) bytes = await read(entry.localHeaderOffset, needed);
  const header = checkLocalHeader(bytes, entry);
  const dataStart = entry.localHeaderOffset + length;
  let descriptorLength = 0;
  if (trailer > 0) {
    const after = length + entry.compressedSize;
    const tail = withData ? bytes.subarray(after) : await read(dataStart + entry.compressedSize, Math.min(trailer, available - after));
    descriptorLength = checkDataDescriptor(tail, entry, header.zip64);
  }
  return {
    dataStart,
    end: dataStart + entry.compressedSize + descriptorLength,
    compressed: withData ? bytes.subarray(length, length + entry.compressedSize) : null,
  };
}

/** After inflating: the bytes produced must be exactly the declared size and match the CRC-32 (`E_ARCHIVE_CHECKSUM`). */
export function checkInflated(entry: CentralEntry, produced: number, crc: number): void {
  if (produced !== entry.size) checksumError(entry, `Entry holds ${produced} bytes, not its declared ${entry.size}`, "size");
  if (crc !== entry.crc32) {
    checksumError(entry, `CRC-32 mismatch (expected ${entry.crc32.toString(16).padStart(8, "0")}, got ${crc.toString(16).padStart(8, "0")})`, "crc");
  }
}

/** The error for inflation producing more than the declared size (stopped there). */
export function inflatedTooMuch(entry: CentralEntry): never {
  return checksumError(entry, `Entry inflates to more than its declared ${entry.size} bytes`, "size");
}

function checksumError(entry: CentralEntry, message: string, reason: string): never {
  throw new ArchiveError("E_ARCHIVE_CHECKSUM", `${message}: ${displayPath(entry.name)}`, { entry: entry.name, reason });
}
