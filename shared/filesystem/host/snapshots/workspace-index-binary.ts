/**
 * The workspace index as one binary buffer, for the git strategy: a first restore in a new
 * process loads it before anything else can be compared, and the JSON form cost most of
 * that (5,000 leaves: reading and decoding 600 KB of UTF-8, JSON.parse building 5,000
 * arrays, then the map: ~50 ms of CPU on cold code). Here the stat fields are columns of
 * doubles read as typed arrays, paths and ids are latin1 bytes sliced out of the same
 * buffer, and the only per-entry work is the map entry itself.
 *
 * Layout (little-endian): "WKIX", u32 version, u32 header length, u32 entry count, f64
 * scanStartedAtMs (the head `readIndexHead` reads without the rest), the header (UTF-8
 * JSON: root, ref, scanStartedAtMs, treeDirs), zero padding to 8 bytes, then
 * columns of `count` values each: f64 size, f64 mtimeMs, f64 ctimeMs, f64 ino, u32 end of
 * each path, u32 end of each id, u16 permission bits (bit 15: symlink), the paths' bytes,
 * the ids' bytes; last, the SHA-1 of everything before it. A file that is truncated,
 * corrupted or of another version decodes to null (a full re-read), never to wrong entries.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

import type { IndexEntry, WorkspaceIndex } from "./workspace-index-types.js";

const MAGIC = "WKIX";
const VERSION = 2;
const FIXED_HEAD = 24;
const DIGEST = 20;
const SYMLINK_BIT = 0x8000;
/** The columns are read as typed arrays, in the platform's byte order: little-endian only (elsewhere: a full re-read). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** True when `data` starts like a binary index (any version). */
export function isBinaryIndex(data: Buffer): boolean {
  return data.length >= 4 && data.toString("latin1", 0, 4) === MAGIC;
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

function digest(data: Buffer, end: number): Buffer {
  return createHash("sha1").update(data.subarray(0, end)).digest();
}

/** The index as a buffer (see the module comment for the layout). */
export function encodeWorkspaceIndex(rootPath: string, index: WorkspaceIndex): Buffer {
  const count = index.entries.size;
  const header = Buffer.from(JSON.stringify({ root: rootPath, ref: index.ref, scanStartedAtMs: index.scanStartedAtMs, treeDirs: index.treeDirs === undefined ? null : [...index.treeDirs] }), "utf8");
  const paths: string[] = new Array<string>(count);
  const oids: string[] = new Array<string>(count);
  let pathBytes = 0;
  let oidBytes = 0;
  let i = 0;
  for (const [p, e] of index.entries) {
    paths[i] = p;
    oids[i] = e.oid;
    pathBytes += p.length;
    oidBytes += e.oid.length;
    i += 1;
  }
  const columns = align8(FIXED_HEAD + header.length);
  const ends = columns + count * 32;
  const perms = ends + count * 8;
  const text = perms + count * 2;
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
  i = 0;
  for (const e of index.entries.values()) {
    out.writeDoubleLE(e.size, columns + i * 8);
    out.writeDoubleLE(e.mtimeMs, columns + (count + i) * 8);
    out.writeDoubleLE(e.ctimeMs, columns + (2 * count + i) * 8);
    out.writeDoubleLE(e.ino, columns + (3 * count + i) * 8);
    pathAt += out.write(paths[i] as string, pathAt, "latin1");
    oidAt += out.write(oids[i] as string, oidAt, "latin1");
    out.writeUInt32LE(pathAt - text, ends + i * 4);
    out.writeUInt32LE(oidAt - text - pathBytes, ends + (count + i) * 4);
    out.writeUInt16LE((e.perm & 0o7777) | (e.kind === "symlink" ? SYMLINK_BIT : 0), perms + i * 2);
    i += 1;
  }
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
  const columns = align8(FIXED_HEAD + headerLength);
  const ends = columns + count * 32;
  const perms = ends + count * 8;
  const text = perms + count * 2;
  if (text + DIGEST > data.length || !digest(data, data.length - DIGEST).equals(data.subarray(data.length - DIGEST))) return null;
  let header: { root?: unknown; ref?: unknown; scanStartedAtMs?: unknown; treeDirs?: unknown };
  try {
    header = JSON.parse(data.toString("utf8", FIXED_HEAD, FIXED_HEAD + headerLength)) as typeof header;
  } catch {
    return null;
  }
  if (header.root !== rootPath || typeof header.ref !== "string" || header.scanStartedAtMs !== data.readDoubleLE(16)) return null;
  const treeDirs = Array.isArray(header.treeDirs) && header.treeDirs.every((d) => typeof d === "string") ? new Set(header.treeDirs as string[]) : undefined;
  // Typed-array views need aligned offsets: a buffer that is not gets one aligned copy.
  let bytes = data;
  if (bytes.byteOffset % 8 !== 0) {
    bytes = Buffer.allocUnsafeSlow(data.length);
    data.copy(bytes);
  }
  const stats = new Float64Array(bytes.buffer, bytes.byteOffset + columns, count * 4);
  const endsOf = new Uint32Array(bytes.buffer, bytes.byteOffset + ends, count * 2);
  const pathBytes = count === 0 ? 0 : (endsOf[count - 1] as number);
  const textEnd = data.length - DIGEST;
  if (text + pathBytes > textEnd || (count > 0 && text + pathBytes + (endsOf[2 * count - 1] as number) !== textEnd)) return null;
  // Two strings for all paths and all ids, sliced per entry: one decoding call each rather
  // than two per entry (a first restore runs this loop once, on cold code).
  const allPaths = bytes.toString("latin1", text, text + pathBytes);
  const allOids = bytes.toString("latin1", text + pathBytes, textEnd);
  const bits = new Uint16Array(bytes.buffer, bytes.byteOffset + perms, count);
  const entries = new Map<string, IndexEntry>();
  let pathStart = 0;
  let oidStart = 0;
  for (let i = 0; i < count; i++) {
    const pathEnd = endsOf[i] as number;
    const oidEnd = endsOf[count + i] as number;
    if (pathEnd < pathStart || oidEnd < oidStart) return null;
    const mode = bits[i] as number;
    entries.set(allPaths.slice(pathStart, pathEnd), {
      kind: (mode & SYMLINK_BIT) !== 0 ? "symlink" : "file",
      perm: mode & 0o7777,
      size: stats[i] as number,
      mtimeMs: stats[count + i] as number,
      ctimeMs: stats[2 * count + i] as number,
      ino: stats[3 * count + i] as number,
      oid: allOids.slice(oidStart, oidEnd),
    });
    pathStart = pathEnd;
    oidStart = oidEnd;
  }
  if (entries.size !== count) return null; // a path twice: not an index we wrote
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
