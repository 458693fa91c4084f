/**
 * Encoding of the ZIP records we write: local headers, central-directory records and the
 * end records, with ZIP64 fields wherever a value needs them and an extended-timestamp
 * extra for the modification time.
 */
import {
  CENTRAL_HEADER_SIZE,
  DOS_DIRECTORY,
  EOCD_SIZE,
  EXTRA_EXTENDED_TIMESTAMP,
  EXTRA_ZIP64,
  HOST_UNIX,
  LOCAL_HEADER_SIZE,
  METHOD_DEFLATE,
  S_IFDIR,
  S_IFREG,
  SIG_CENTRAL_HEADER,
  SIG_EOCD,
  SIG_LOCAL_HEADER,
  SIG_ZIP64_EOCD,
  SIG_ZIP64_LOCATOR,
  U16_MAX,
  U32_MAX,
  VERSION_DEFLATE,
  VERSION_STORED,
  VERSION_ZIP64,
  ZIP64_EOCD_SIZE,
  ZIP64_LOCATOR_SIZE,
} from "./zip-format.js";

/** What the central directory needs to know about a written entry. */
export interface WrittenEntry {
  readonly nameBytes: Uint8Array;
  readonly flags: number;
  readonly method: number;
  readonly dos: { date: number; time: number };
  readonly mtimeSeconds: number | null;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
  readonly externalAttributes: number;
  readonly zip64Local: boolean;
}

/** Seconds for the extended-timestamp extra, or null when out of its range. */
export function mtimeSeconds(mtimeMs: number | null): number | null {
  if (mtimeMs === null || !Number.isFinite(mtimeMs)) return null;
  const seconds = Math.floor(mtimeMs / 1000);
  return seconds >= 0 && seconds <= 0x7fffffff ? seconds : null;
}

function timestampExtra(seconds: number | null): Uint8Array {
  if (seconds === null) return new Uint8Array(0);
  const extra = Buffer.alloc(9);
  extra.writeUInt16LE(EXTRA_EXTENDED_TIMESTAMP, 0);
  extra.writeUInt16LE(5, 2);
  extra.writeUInt8(1, 4);
  extra.writeUInt32LE(seconds, 5);
  return extra;
}

function writeU64(buffer: Buffer, value: number, at: number): void {
  buffer.writeUInt32LE(value % 0x1_0000_0000, at);
  buffer.writeUInt32LE(Math.floor(value / 0x1_0000_0000), at + 4);
}

/** A local header; `zip64Local` puts both sizes in a ZIP64 extra. */
export function localHeader(entry: Omit<WrittenEntry, "offset" | "externalAttributes">): Buffer {
  const stamp = timestampExtra(entry.mtimeSeconds);
  const zip64Length = entry.zip64Local ? 20 : 0;
  const header = Buffer.alloc(LOCAL_HEADER_SIZE + entry.nameBytes.length + stamp.length + zip64Length);
  header.writeUInt32LE(SIG_LOCAL_HEADER, 0);
  header.writeUInt16LE(entry.zip64Local ? VERSION_ZIP64 : entry.method === METHOD_DEFLATE ? VERSION_DEFLATE : VERSION_STORED, 4);
  header.writeUInt16LE(entry.flags, 6);
  header.writeUInt16LE(entry.method, 8);
  header.writeUInt16LE(entry.dos.time, 10);
  header.writeUInt16LE(entry.dos.date, 12);
  header.writeUInt32LE(entry.crc32, 14);
  header.writeUInt32LE(entry.zip64Local ? U32_MAX : entry.compressedSize, 18);
  header.writeUInt32LE(entry.zip64Local ? U32_MAX : entry.size, 22);
  header.writeUInt16LE(entry.nameBytes.length, 26);
  header.writeUInt16LE(stamp.length + zip64Length, 28);
  header.set(entry.nameBytes, LOCAL_HEADER_SIZE);
  header.set(stamp, LOCAL_HEADER_SIZE + entry.nameBytes.length);
  if (entry.zip64Local) {
    const at = LOCAL_HEADER_SIZE + entry.nameBytes.length + stamp.length;
    header.writeUInt16LE(EXTRA_ZIP64, at);
    header.writeUInt16LE(16, at + 2);
    writeU64(header, entry.size, at + 4);
    writeU64(header, entry.compressedSize, at + 12);
  }
  return header;
}

/** A central-directory record; ZIP64 fields only for the values that need them (or all, forced). */
export function centralRecord(entry: WrittenEntry, forceZip64: boolean): Buffer {
  const needSize = forceZip64 || entry.size >= U32_MAX;
  const needCompressed = forceZip64 || entry.compressedSize >= U32_MAX;
  const needOffset = forceZip64 || entry.offset >= U32_MAX;
  const zip64Fields = [needSize ? entry.size : null, needCompressed ? entry.compressedSize : null, needOffset ? entry.offset : null].filter((v): v is number => v !== null);
  const zip64Length = zip64Fields.length > 0 ? 4 + 8 * zip64Fields.length : 0;
  const stamp = timestampExtra(entry.mtimeSeconds);
  const record = Buffer.alloc(CENTRAL_HEADER_SIZE + entry.nameBytes.length + zip64Length + stamp.length);
  record.writeUInt32LE(SIG_CENTRAL_HEADER, 0);
  record.writeUInt16LE((HOST_UNIX << 8) | VERSION_ZIP64, 4);
  record.writeUInt16LE(zip64Length > 0 || entry.zip64Local ? VERSION_ZIP64 : entry.method === METHOD_DEFLATE ? VERSION_DEFLATE : VERSION_STORED, 6);
  record.writeUInt16LE(entry.flags, 8);
  record.writeUInt16LE(entry.method, 10);
  record.writeUInt16LE(entry.dos.time, 12);
  record.writeUInt16LE(entry.dos.date, 14);
  record.writeUInt32LE(entry.crc32, 16);
  record.writeUInt32LE(needCompressed ? U32_MAX : entry.compressedSize, 20);
  record.writeUInt32LE(needSize ? U32_MAX : entry.size, 24);
  record.writeUInt16LE(entry.nameBytes.length, 28);
  record.writeUInt16LE(zip64Length + stamp.length, 30);
  // comment length, disk number, internal attributes: 0
  record.writeUInt32LE(entry.externalAttributes, 38);
  record.writeUInt32LE(needOffset ? U32_MAX : entry.offset, 42);
  record.set(entry.nameBytes, CENTRAL_HEADER_SIZE);
  let at = CENTRAL_HEADER_SIZE + entry.nameBytes.length;
  if (zip64Length > 0) {
    record.writeUInt16LE(EXTRA_ZIP64, at);
    record.writeUInt16LE(zip64Length - 4, at + 2);
    at += 4;
    for (const value of zip64Fields) {
      writeU64(record, value, at);
      at += 8;
    }
  }
  record.set(stamp, at);
  return record;
}

/** The end records: ZIP64 end record and locator when needed (or forced), then the classic one. */
export function endRecords(count: number, cdOffset: number, cdSize: number, forceZip64: boolean): Buffer {
  const zip64 = forceZip64 || count >= U16_MAX || cdOffset >= U32_MAX || cdSize >= U32_MAX;
  const end = Buffer.alloc((zip64 ? ZIP64_EOCD_SIZE + ZIP64_LOCATOR_SIZE : 0) + EOCD_SIZE);
  let at = 0;
  if (zip64) {
    end.writeUInt32LE(SIG_ZIP64_EOCD, 0);
    writeU64(end, ZIP64_EOCD_SIZE - 12, 4);
    end.writeUInt16LE((HOST_UNIX << 8) | VERSION_ZIP64, 12);
    end.writeUInt16LE(VERSION_ZIP64, 14);
    // disk numbers at 16 and 20: 0
    writeU64(end, count, 24);
    writeU64(end, count, 32);
    writeU64(end, cdSize, 40);
    writeU64(end, cdOffset, 48);
    end.writeUInt32LE(SIG_ZIP64_LOCATOR, 56);
    // disk with the ZIP64 end record at 60: 0
    writeU64(end, cdOffset + cdSize, 64);
    end.writeUInt32LE(1, 72);
    at = ZIP64_EOCD_SIZE + ZIP64_LOCATOR_SIZE;
  }
  end.writeUInt32LE(SIG_EOCD, at);
  end.writeUInt16LE(Math.min(count, U16_MAX), at + 8);
  end.writeUInt16LE(Math.min(count, U16_MAX), at + 10);
  end.writeUInt32LE(Math.min(cdSize, U32_MAX), at + 12);
  end.writeUInt32LE(Math.min(cdOffset, U32_MAX), at + 16);
  return end;
}

/** External attributes of a file: Unix type and mode in the high 16 bits. */
export function fileAttributes(mode: number | null): number {
  return (S_IFREG | ((mode ?? 0o644) & 0o7777)) * 0x10000;
}

/** External attributes of a directory: Unix type and mode, plus the DOS directory bit. */
export function directoryAttributes(mode: number | null): number {
  return (S_IFDIR | ((mode ?? 0o755) & 0o7777)) * 0x10000 + DOS_DIRECTORY;
}
