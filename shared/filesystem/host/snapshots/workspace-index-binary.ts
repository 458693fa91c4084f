/**
 * The workspace index as one binary buffer, for the git strategy: a first restore in a new
 * process loads it before anything else can be compared, and the JSON form cost most of
 * that (5,000 leaves: reading and decoding 600 KB of UTF-8, JSON.parse building 5,000
 * arrays, then the map: ~50 ms of CPU on cold code). Here the stat fields are columns of
 * doubles read as typed arrays, paths and ids are latin1 bytes, and a hash table of the
 * paths is part of the file: decoding builds no object per entry (packed-index-entries.ts).
 *
 * Layout (little-endian): "WKIX", u32 version, u32 header length, u32 entry count, f64
 * scanStartedAtMs (the head `readIndexHead` reads without the rest), the header (UTF-8
 * JSON: root, ref, scanStartedAtMs, treeDirs, dirs, and the sum of the sizes in each of
 * them, dirBytes), zero padding to 8 bytes, then
 * columns of `count` values each: f64 size, f64 mtimeMs, f64 ctimeMs, f64 ino, u32 end of
 * each path, u32 end of each id, u32 number of each path's directory (in the header's
 * `dirs`), u16 permission bits (bit 15: symlink, bit 14: racy for this index), zero
 * padding to 4 bytes, the path table (i32 × tableSlots(count): row + 1 at the slot of the
 * path's FNV-1a hash, linear probing, 0 empty), the paths' bytes, the ids' bytes; last, the
 * SHA-1 of everything before it. A file that is truncated, corrupted or of another version decodes
 * to null (a full re-read), never to wrong entries.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

import { PackedIndexEntries, pathHash, RACY_BIT, SYMLINK_BIT, tableSlots } from "./packed-index-entries.js";
import { parentBytePath } from "./byte-paths.js";
import type { IndexEntry, WorkspaceIndex } from "./workspace-index-types.js";
import { RACY_MARGIN_MS } from "./workspace-scan.js";

const MAGIC = "WKIX";
const VERSION = 3;
const FIXED_HEAD = 24;
const DIGEST = 20;
/** The columns are read as typed arrays, in the platform's byte order: little-endian only (elsewhere: a full re-read). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** True when `data` starts like a binary index (any version). */
export function isBinaryIndex(data: Buffer): boolean {
  return data.length >= 4 && data.toString("latin1", 0, 4) === MAGIC;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** Byte offsets of the sections after the header, for `count` entries. */
function sections(headerLength: number, count: number): { columns: number; ends: number; dirs: number; perms: number; table: number; slots: number; text: number } {
  const columns = align8(FIXED_HEAD + headerLength);
  const ends = columns + count * 32;
  const dirs = ends + count * 8;
  const perms = dirs + count * 4;
  const table = align4(perms + count * 2);
  const slots = tableSlots(count);
  return { columns, ends, dirs, perms, table, slots, text: table + slots * 4 };
}

function digest(data: Buffer, end: number): Buffer {
  return createHash("sha1").update(data.subarray(0, end)).digest();
}

/** The index as a buffer (see the module comment for the layout). */
export function encodeWorkspaceIndex(rootPath: string, index: WorkspaceIndex): Buffer {
  const count = index.entries.size;
  const paths: string[] = new Array<string>(count);
  const rows: IndexEntry[] = new Array<IndexEntry>(count);
  const dirOf = new Uint32Array(count);
  const dirNumbers = new Map<string, number>();
  const dirBytes: number[] = [];
  let pathBytes = 0;
  let oidBytes = 0;
  let i = 0;
  for (const [p, e] of index.entries) {
    paths[i] = p;
    rows[i] = e;
    pathBytes += p.length;
    oidBytes += e.oid.length;
    const dir = parentBytePath(p);
    let number = dirNumbers.get(dir);
    if (number === undefined) {
      dirNumbers.set(dir, (number = dirNumbers.size));
      dirBytes.push(0);
    }
    dirOf[i] = number;
    dirBytes[number] = (dirBytes[number] as number) + e.size;
    i += 1;
  }
  const head = { root: rootPath, ref: index.ref, scanStartedAtMs: index.scanStartedAtMs, treeDirs: index.treeDirs === undefined ? null : [...index.treeDirs], dirs: [...dirNumbers.keys()], dirBytes };
  const header = Buffer.from(JSON.stringify(head), "utf8");
  const { columns, ends, dirs, perms, table, slots, text } = sections(header.length, count);
  const total = text + pathBytes + oidBytes + DIGEST;
  const out = Buffer.alloc(total);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(VERSION, 4);
  out.writeUInt32LE(header.length, 8);
  out.writeUInt32LE(count, 12);
  out.writeDoubleLE(index.scanStartedAtMs, 16);
  header.copy(out, FIXED_HEAD);
  let pathAt = text;
  let oidAt = text + pathBytes;
  const racyFrom = index.scanStartedAtMs - RACY_MARGIN_MS;
  const tableRows = new Int32Array(slots);
  for (i = 0; i < count; i++) {
    const e = rows[i] as IndexEntry;
    const p = paths[i] as string;
    out.writeDoubleLE(e.size, columns + i * 8);
    out.writeDoubleLE(e.mtimeMs, columns + (count + i) * 8);
    out.writeDoubleLE(e.ctimeMs, columns + (2 * count + i) * 8);
    out.writeDoubleLE(e.ino, columns + (3 * count + i) * 8);
    pathAt += out.write(p, pathAt, "latin1");
    oidAt += out.write(e.oid, oidAt, "latin1");
    out.writeUInt32LE(pathAt - text, ends + i * 4);
    out.writeUInt32LE(oidAt - text - pathBytes, ends + (count + i) * 4);
    out.writeUInt32LE(dirOf[i] as number, dirs + i * 4);
    const racy = !(e.mtimeMs < racyFrom && e.ctimeMs < racyFrom);
    out.writeUInt16LE((e.perm & 0o7777) | (e.kind === "symlink" ? SYMLINK_BIT : 0) | (racy ? RACY_BIT : 0), perms + i * 2);
    let slot = pathHash(p) & (slots - 1);
    while (tableRows[slot] !== 0) slot = (slot + 1) & (slots - 1);
    tableRows[slot] = i + 1;
  }
  Buffer.from(tableRows.buffer, tableRows.byteOffset, tableRows.byteLength).copy(out, table);
  digest(out, total - DIGEST).copy(out, total - DIGEST);
  return out;
}

/**
 * The index in `data` if it is a well-formed binary index for `rootPath`; null otherwise
 * (truncated, corrupted, another version or another root).
 */
export function decodeWorkspaceIndex(data: Buffer, rootPath: string): WorkspaceIndex | null {
  if (!LITTLE_ENDIAN || data.length < FIXED_HEAD + DIGEST || !isBinaryIndex(data) || data.readUInt32LE(4) !== VERSION) return null;
  const headerLength = data.readUInt32LE(8);
  const count = data.readUInt32LE(12);
  const { columns, ends, dirs, perms, table, slots, text } = sections(headerLength, count);
  if (text + DIGEST > data.length || !digest(data, data.length - DIGEST).equals(data.subarray(data.length - DIGEST))) return null;
  let header: { root?: unknown; ref?: unknown; scanStartedAtMs?: unknown; treeDirs?: unknown; dirs?: unknown; dirBytes?: unknown };
  try {
    header = JSON.parse(data.toString("utf8", FIXED_HEAD, FIXED_HEAD + headerLength)) as typeof header;
  } catch {
    return null;
  }
  if (header.root !== rootPath || typeof header.ref !== "string" || header.scanStartedAtMs !== data.readDoubleLE(16)) return null;
  const treeDirs = Array.isArray(header.treeDirs) && header.treeDirs.every((d) => typeof d === "string") ? new Set(header.treeDirs as string[]) : undefined;
  if (!Array.isArray(header.dirs) || !header.dirs.every((d) => typeof d === "string")) return null;
  if (!Array.isArray(header.dirBytes) || header.dirBytes.length !== header.dirs.length || !header.dirBytes.every((n) => typeof n === "number")) return null;
  const dirNames = header.dirs as string[];
  // Typed-array views need aligned offsets: a buffer that is not gets one aligned copy.
  let bytes = data;
  if (bytes.byteOffset % 8 !== 0) {
    bytes = Buffer.allocUnsafeSlow(data.length);
    data.copy(bytes);
  }
  const endsOf = new Uint32Array(bytes.buffer, bytes.byteOffset + ends, count * 2);
  const pathBytes = count === 0 ? 0 : (endsOf[count - 1] as number);
  const textEnd = data.length - DIGEST;
  if (text + pathBytes > textEnd || (count > 0 && text + pathBytes + (endsOf[2 * count - 1] as number) !== textEnd)) return null;
  // Every path and id within its section, every directory number named: the entries read
  // them without further checks.
  const dirOf = new Uint32Array(bytes.buffer, bytes.byteOffset + dirs, count);
  for (let i = 0; i < count; i++) {
    if ((dirOf[i] as number) >= dirNames.length) return null;
    if (i > 0 && ((endsOf[i] as number) < (endsOf[i - 1] as number) || (endsOf[count + i] as number) < (endsOf[count + i - 1] as number))) return null;
  }
  const entries = new PackedIndexEntries({
    count,
    bytes,
    stats: new Float64Array(bytes.buffer, bytes.byteOffset + columns, count * 4),
    ends: endsOf,
    bits: new Uint16Array(bytes.buffer, bytes.byteOffset + perms, count),
    dirOf,
    dirNames,
    dirBytes: header.dirBytes as number[],
    table: new Int32Array(bytes.buffer, bytes.byteOffset + table, slots),
    pathsAt: text,
    oidsAt: text + pathBytes,
    racyFrom: (header.scanStartedAtMs as number) - RACY_MARGIN_MS,
  });
  return { ref: header.ref, scanStartedAtMs: header.scanStartedAtMs as number, entries, ...(treeDirs === undefined ? {} : { treeDirs }) };
}

/**
 * The entry count and scan time of the binary index in `file`, from its first bytes only
 * (for deciding how to walk before the index is loaded); null when it is not one. Not
 * checked against the digest: what is decided from it is checked again on the loaded index.
 */
export function readIndexHead(file: string): { count: number; scanStartedAtMs: number } | null {
  const head = Buffer.alloc(FIXED_HEAD);
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    if (readSync(fd, head, 0, FIXED_HEAD, 0) !== FIXED_HEAD || !isBinaryIndex(head) || head.readUInt32LE(4) !== VERSION) return null;
    return { count: head.readUInt32LE(12), scanStartedAtMs: head.readDoubleLE(16) };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
