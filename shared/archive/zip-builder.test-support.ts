/**
 * A ZIP writer for tests that controls every field the format stores twice: the local
 * header, the data descriptor, the central record and its ZIP64 extra, the end records.
 * It builds valid archives by default and lets a test make exactly one copy of a fact
 * disagree, to check that readers refuse it. Not part of the library.
 */
import { deflateRawSync, crc32 as zlibCrc32 } from "node:zlib";

/** Fields both headers hold: each defaults to the true value. */
interface HeaderOverrides {
  name?: string;
  method?: number;
  flags?: number;
  crc?: number;
  compressedSize?: number;
  size?: number;
  /** Extra fields appended as they are. */
  extra?: Uint8Array;
}

export interface LocalOverrides extends HeaderOverrides {
  /** A ZIP64 extra with both sizes (uncompressed first); `true` uses the real values. */
  zip64?: { size: number; compressedSize: number } | true;
}

export interface CentralOverrides extends HeaderOverrides {
  offset?: number;
  /** External attributes (default: a Unix regular file 0644). */
  external?: number;
  /** The ZIP64 extra's values in order, as 8-byte numbers (`bigint` for anything beyond 2^53). */
  zip64?: readonly (number | bigint)[];
}

export interface DescriptorSpec {
  signature?: boolean;
  /** 8-byte sizes. */
  zip64?: boolean;
  crc?: number;
  compressedSize?: number;
  size?: number;
}

export interface BuildEntry {
  name: string;
  /** Uncompressed content (directories: empty, name ending in "/"). */
  content?: Uint8Array | string;
  /** Stored (0) or deflated (8, default). */
  method?: 0 | 8;
  /** Compressed bytes to use instead of compressing `content` (a lying entry). */
  compressed?: Uint8Array;
  local?: LocalOverrides;
  central?: CentralOverrides;
  /** Write a data descriptor after the data (sets flag bit 3 in both headers unless overridden). */
  descriptor?: DescriptorSpec;
}

export interface BuildOptions {
  /** Write ZIP64 end records (with the classic record's fields as given in `classic`). */
  zip64End?: boolean;
  /** Overrides of the classic end record's count, size and offset fields. */
  classic?: { count?: number; size?: number; offset?: number };
}

const encoder = new TextEncoder();

function u16(value: number): Uint8Array {
  const out = new Uint8Array(2);
  new DataView(out.buffer).setUint16(0, value, true);
  return out;
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0, true);
  return out;
}

function u64(value: number | bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value), true);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function extraField(id: number, data: Uint8Array): Uint8Array {
  return concat([u16(id), u16(data.length), data]);
}

/** The bytes of an archive made of `entries` (see the module comment). */
export function buildZip(entries: readonly BuildEntry[], options: BuildOptions = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const content = typeof entry.content === "string" ? encoder.encode(entry.content) : (entry.content ?? new Uint8Array(0));
    const method = entry.method ?? 8;
    const data = entry.compressed ?? (method === 8 ? new Uint8Array(deflateRawSync(content)) : content);
    const crc = zlibCrc32(content) >>> 0;
    const descriptor = entry.descriptor;
    const baseFlags = 0x0800 | (descriptor === undefined ? 0 : 0x0008);
    const local = entry.local ?? {};
    const localName = encoder.encode(local.name ?? entry.name);
    const localZip64 = local.zip64 === true ? { size: content.length, compressedSize: data.length } : local.zip64;
    const localExtra = concat([
      localZip64 === undefined ? new Uint8Array(0) : extraField(0x0001, concat([u64(localZip64.size), u64(localZip64.compressedSize)])),
      local.extra ?? new Uint8Array(0),
    ]);
    const deferred = descriptor !== undefined;
    const header = concat([
      u32(0x04034b50),
      u16(localZip64 === undefined ? 20 : 45),
      u16(local.flags ?? baseFlags),
      u16(local.method ?? method),
      u16(0),
      u16((1 << 5) | 1),
      u32(local.crc ?? (deferred ? 0 : crc)),
      u32(local.compressedSize ?? (deferred ? 0 : data.length)),
      u32(local.size ?? (deferred ? 0 : content.length)),
      u16(localName.length),
      u16(localExtra.length),
      localName,
      localExtra,
    ]);
    const trailer =
      descriptor === undefined
        ? new Uint8Array(0)
        : concat([
            descriptor.signature === false ? new Uint8Array(0) : u32(0x08074b50),
            u32(descriptor.crc ?? crc),
            (descriptor.zip64 ? u64 : u32)(descriptor.compressedSize ?? data.length),
            (descriptor.zip64 ? u64 : u32)(descriptor.size ?? content.length),
          ]);
    const central = entry.central ?? {};
    const centralName = encoder.encode(central.name ?? entry.name);
    const centralExtra = concat([
      central.zip64 === undefined ? new Uint8Array(0) : extraField(0x0001, concat(central.zip64.map(u64))),
      central.extra ?? new Uint8Array(0),
    ]);
    const isDirectory = entry.name.endsWith("/");
    centrals.push(
      concat([
        u32(0x02014b50),
        u16((3 << 8) | 45),
        u16(central.zip64 === undefined ? 20 : 45),
        u16(central.flags ?? baseFlags),
        u16(central.method ?? method),
        u16(0),
        u16((1 << 5) | 1),
        u32(central.crc ?? crc),
        u32(central.compressedSize ?? data.length),
        u32(central.size ?? content.length),
        u16(centralName.length),
        u16(centralExtra.length),
        u16(0),
        u16(0),
        u16(0),
        u32(central.external ?? ((isDirectory ? 0o040755 : 0o100644) * 0x10000 + (isDirectory ? 0x10 : 0))),
        u32(central.offset ?? offset),
        centralName,
        centralExtra,
      ]),
    );
    parts.push(header, data, trailer);
    offset += header.length + data.length + trailer.length;
  }
  const cd = concat(centrals);
  const classic = options.classic ?? {};
  const end: Uint8Array[] = [];
  if (options.zip64End) {
    end.push(
      concat([u32(0x06064b50), u64(44), u16((3 << 8) | 45), u16(45), u32(0), u32(0), u64(entries.length), u64(entries.length), u64(cd.length), u64(offset)]),
      concat([u32(0x07064b50), u32(0), u64(offset + cd.length), u32(1)]),
    );
  }
  const count = classic.count ?? entries.length;
  end.push(concat([u32(0x06054b50), u16(0), u16(0), u16(count), u16(count), u32(classic.size ?? cd.length), u32(classic.offset ?? offset), u16(0)]));
  return concat([...parts, cd, ...end]);
}

/** A manifest.json for `files` (paths without the `files/` prefix). */
export function manifestFor(files: ReadonlyArray<{ path: string; content: string | Uint8Array }>): string {
  const total = files.reduce((sum, file) => sum + (typeof file.content === "string" ? encoder.encode(file.content).length : file.content.length), 0);
  return JSON.stringify({ version: "1", created_at: "2026-11-26T00:00:00+00:00", file_count: files.length, total_bytes: total });
}
