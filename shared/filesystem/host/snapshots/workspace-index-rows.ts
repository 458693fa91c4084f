/**
 * A binary workspace index (workspace-index-binary.ts) read as rows of its columns rather
 * than as a map of objects, for the first restore of a process, which waits for the load.
 *
 * A map of 5,000 entries is 5,000 objects and 10,000 strings that all survive: on this
 * machine their allocation cost 10–20 ms, and often set off a young-generation collection
 * that copied them and grew the heap (35 ms on a busy VM). Here the load builds one hash
 * table over the paths' bytes and one string per directory; a leaf becomes a string or an
 * object only when something asks for that leaf (a walk meets a changed file, a plan looks
 * up a candidate). The map is made on first use of `entries`, for the callers that need
 * it (a capture, which replaces the index anyway).
 *
 * A restore's result (`update`) is kept beside the columns: a few rows are marked removed
 * and their new entries appended as extra rows, so the next restore of the process reads
 * rows too.
 */
import type { Buffer } from "node:buffer";

import type { IndexEntry, IndexEntryRows, WorkspaceIndex } from "./workspace-index-types.js";
import type { LeafKind, LeafStat } from "./workspace-scan.js";

/** Bit 15 of a row's permission bits: the leaf is a symlink. */
export const SYMLINK_BIT = 0x8000;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Where the columns of an index are in its (8-byte aligned) buffer; see workspace-index-binary.ts. */
export interface IndexColumnsLayout {
  readonly bytes: Buffer;
  readonly count: number;
  /** Offsets in `bytes`: the f64 stat columns, the u32 path and id ends, the u16 permission bits, the paths' bytes. */
  readonly stats: number;
  readonly ends: number;
  readonly perms: number;
  readonly text: number;
}

export class IndexRows implements IndexEntryRows {
  private readonly bytes: Buffer;
  /** Rows read from the columns; rows from `baseCount` on are entries added since. */
  private readonly baseCount: number;
  private readonly stats: Float64Array;
  private readonly ends: Uint32Array;
  private readonly bits: Uint16Array;
  /** Absolute offsets of the paths' and the ids' bytes. */
  private readonly pathsAt: number;
  private readonly oidsAt: number;
  /** Open-addressing table of row + 1 (0: empty), keyed by the FNV-1a hash of the path's bytes. */
  private readonly table: Int32Array;
  private readonly hashes: Uint32Array;
  private readonly dirIds: Uint32Array;
  private readonly dirNames: string[];
  /** Column rows removed or replaced since the load (null until one is). */
  private removed: Uint8Array | null = null;
  private readonly addedPaths: string[] = [];
  private readonly addedEntries: (IndexEntry | null)[] = [];
  private readonly addedRows = new Map<string, number>();
  private liveCount: number;

  private constructor(layout: IndexColumnsLayout) {
    const { bytes, count } = layout;
    this.bytes = bytes;
    this.baseCount = count;
    this.liveCount = count;
    this.stats = new Float64Array(bytes.buffer, bytes.byteOffset + layout.stats, count * 4);
    this.ends = new Uint32Array(bytes.buffer, bytes.byteOffset + layout.ends, count * 2);
    this.bits = new Uint16Array(bytes.buffer, bytes.byteOffset + layout.perms, count);
    this.pathsAt = layout.text;
    this.oidsAt = layout.text + (count === 0 ? 0 : (this.ends[count - 1] as number));
    let size = 16;
    while (size < count * 2) size *= 2;
    this.table = new Int32Array(size);
    this.hashes = new Uint32Array(count);
    this.dirIds = new Uint32Array(count);
    this.dirNames = [];
  }

  /**
   * The rows of a well-formed index's columns; null when a path is there twice or an end is
   * out of order (not an index we wrote).
   */
  static read(layout: IndexColumnsLayout): IndexRows | null {
    const rows = new IndexRows(layout);
    return rows.build() ? rows : null;
  }

  /** Hashes every path into the table and numbers the directories (one string per run of rows in one directory). */
  private build(): boolean {
    const { bytes, ends, table, hashes, dirIds, dirNames, pathsAt } = this;
    const mask = table.length - 1;
    const count = this.baseCount;
    let start = 0;
    let oidStart = 0;
    let lastDirStart = -1;
    let lastDirEnd = -1;
    for (let row = 0; row < count; row++) {
      const end = ends[row] as number;
      const oidEnd = ends[count + row] as number;
      if (end < start || oidEnd < oidStart) return false;
      let hash = FNV_OFFSET;
      let slash = -1;
      for (let i = pathsAt + start; i < pathsAt + end; i++) {
        const byte = bytes[i] as number;
        if (byte === 0x2f) slash = i;
        hash = Math.imul(hash ^ byte, FNV_PRIME);
      }
      hash >>>= 0;
      hashes[row] = hash;
      for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
        const held = table[slot] as number;
        if (held === 0) {
          table[slot] = row + 1;
          break;
        }
        if (hashes[held - 1] === hash && this.sameBytes(held - 1, pathsAt + start, end - start)) return false;
      }
      // The directory: the bytes before the last "/" ("" at the top).
      const dirStart = pathsAt + start;
      const dirEnd = slash < 0 ? dirStart : slash;
      if (lastDirStart < 0 || !sameRange(bytes, lastDirStart, lastDirEnd, dirStart, dirEnd)) {
        dirNames.push(bytes.toString("latin1", dirStart, dirEnd));
        lastDirStart = dirStart;
        lastDirEnd = dirEnd;
      }
      dirIds[row] = dirNames.length - 1;
      start = end;
      oidStart = oidEnd;
    }
    return true;
  }

  /** True when the path of column row `row` is the `length` bytes at `at`. */
  private sameBytes(row: number, at: number, length: number): boolean {
    const start = this.pathsAt + (row === 0 ? 0 : (this.ends[row - 1] as number));
    const end = this.pathsAt + (this.ends[row] as number);
    return sameRange(this.bytes, start, end, at, at + length);
  }

  get size(): number {
    return this.liveCount;
  }

  get rowCount(): number {
    return this.baseCount + this.addedPaths.length;
  }

  live(row: number): boolean {
    if (row < this.baseCount) return this.removed === null || this.removed[row] !== 1;
    return this.addedEntries[row - this.baseCount] !== null;
  }

  rowOf(path: string): number {
    const added = this.addedRows.get(path);
    if (added !== undefined) return this.addedEntries[added - this.baseCount] === null ? -1 : added;
    const row = this.columnRowOf(path);
    return row >= 0 && this.live(row) ? row : -1;
  }

  /** The column row of `path` (removed or not); -1 when none. */
  private columnRowOf(path: string): number {
    let hash = FNV_OFFSET;
    for (let i = 0; i < path.length; i++) {
      const code = path.charCodeAt(i);
      if (code > 0xff) return -1; // not a byte string: no path of ours
      hash = Math.imul(hash ^ code, FNV_PRIME);
    }
    hash >>>= 0;
    const { table, hashes, ends, bytes, pathsAt } = this;
    const mask = table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = table[slot] as number;
      if (held === 0) return -1;
      const row = held - 1;
      if (hashes[row] !== hash) continue;
      const start = pathsAt + (row === 0 ? 0 : (ends[row - 1] as number));
      const end = pathsAt + (ends[row] as number);
      if (end - start !== path.length) continue;
      let same = true;
      for (let i = 0; i < path.length && same; i++) same = bytes[start + i] === path.charCodeAt(i);
      if (same) return row;
    }
  }

  pathOf(row: number): string {
    if (row >= this.baseCount) return this.addedPaths[row - this.baseCount] as string;
    const start = row === 0 ? 0 : (this.ends[row - 1] as number);
    return this.bytes.toString("latin1", this.pathsAt + start, this.pathsAt + (this.ends[row] as number));
  }

  dirOf(row: number): string {
    if (row >= this.baseCount) {
      const path = this.addedPaths[row - this.baseCount] as string;
      const slash = path.lastIndexOf("/");
      return slash < 0 ? "" : path.slice(0, slash);
    }
    return this.dirNames[this.dirIds[row] as number] as string;
  }

  private added(row: number): IndexEntry {
    return this.addedEntries[row - this.baseCount] as IndexEntry;
  }

  isFile(row: number): boolean {
    if (row >= this.baseCount) return this.added(row).kind === "file";
    return ((this.bits[row] as number) & SYMLINK_BIT) === 0;
  }

  permOf(row: number): number {
    if (row >= this.baseCount) return this.added(row).perm;
    return (this.bits[row] as number) & 0o7777;
  }

  sizeOf(row: number): number {
    if (row >= this.baseCount) return this.added(row).size;
    return this.stats[row] as number;
  }

  newestTimeOf(row: number): number {
    if (row >= this.baseCount) {
      const entry = this.added(row);
      return Math.max(entry.mtimeMs, entry.ctimeMs);
    }
    const count = this.baseCount;
    return Math.max(this.stats[count + row] as number, this.stats[2 * count + row] as number);
  }

  matches(row: number, kind: LeafKind, perm: number, size: number, mtimeMs: number, ctimeMs: number, ino: number): boolean {
    if (row >= this.baseCount) {
      const e = this.added(row);
      return e.kind === kind && e.perm === perm && e.size === size && e.mtimeMs === mtimeMs && e.ctimeMs === ctimeMs && e.ino === ino;
    }
    const count = this.baseCount;
    const stats = this.stats;
    return (
      this.isFile(row) === (kind === "file") &&
      this.permOf(row) === perm &&
      stats[row] === size &&
      stats[count + row] === mtimeMs &&
      stats[2 * count + row] === ctimeMs &&
      stats[3 * count + row] === ino
    );
  }

  statOf(row: number): LeafStat {
    const { kind, perm, size, mtimeMs, ctimeMs, ino } = this.entryAt(row);
    return { kind, perm, size, mtimeMs, ctimeMs, ino };
  }

  /** The entry of row `row`, as an object. */
  entryAt(row: number): IndexEntry {
    if (row >= this.baseCount) return this.added(row);
    const count = this.baseCount;
    const stats = this.stats;
    const oidStart = row === 0 ? 0 : (this.ends[count + row - 1] as number);
    return {
      kind: this.isFile(row) ? "file" : "symlink",
      perm: this.permOf(row),
      size: stats[row] as number,
      mtimeMs: stats[count + row] as number,
      ctimeMs: stats[2 * count + row] as number,
      ino: stats[3 * count + row] as number,
      oid: this.bytes.toString("latin1", this.oidsAt + oidStart, this.oidsAt + (this.ends[count + row] as number)),
    };
  }

  /** The entry recorded for `path`, or undefined. */
  get(path: string): IndexEntry | undefined {
    const row = this.rowOf(path);
    return row < 0 ? undefined : this.entryAt(row);
  }

  /** Record `entry` for `path` (null: `path` is no leaf any more). */
  update(path: string, entry: IndexEntry | null): void {
    const row = this.rowOf(path);
    if (row >= this.baseCount) {
      this.addedEntries[row - this.baseCount] = entry;
      if (entry === null) this.liveCount -= 1;
      return;
    }
    if (row >= 0) {
      this.removed ??= new Uint8Array(this.baseCount);
      this.removed[row] = 1;
      this.liveCount -= 1;
    }
    if (entry === null) return;
    // A path removed and recorded again gets a new row; its earlier added row stays dead.
    this.addedRows.set(path, this.baseCount + this.addedPaths.length);
    this.addedPaths.push(path);
    this.addedEntries.push(entry);
    this.liveCount += 1;
  }

  /** Every live leaf as a map (in row order). */
  toMap(): Map<string, IndexEntry> {
    const entries = new Map<string, IndexEntry>();
    const rowCount = this.rowCount;
    for (let row = 0; row < rowCount; row++) if (this.live(row)) entries.set(this.pathOf(row), this.entryAt(row));
    return entries;
  }
}

function sameRange(bytes: Buffer, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (bytes[aStart + i] !== bytes[bStart + i]) return false;
  return true;
}

/**
 * A workspace index whose leaves are `IndexRows` until something asks for `entries`: the
 * map is made then, and from that moment it is the index (`rows` is undefined, so no
 * reader mixes the two).
 */
export class RowsWorkspaceIndex implements WorkspaceIndex {
  readonly ref: string;
  readonly scanStartedAtMs: number;
  readonly treeDirs?: ReadonlySet<string>;
  private leafRows: IndexEntryRows | null;
  private map: Map<string, IndexEntry> | null = null;

  constructor(ref: string, scanStartedAtMs: number, rows: IndexEntryRows, treeDirs: ReadonlySet<string> | undefined) {
    this.ref = ref;
    this.scanStartedAtMs = scanStartedAtMs;
    if (treeDirs !== undefined) this.treeDirs = treeDirs;
    this.leafRows = rows;
  }

  get rows(): IndexEntryRows | undefined {
    return this.leafRows ?? undefined;
  }

  get entries(): Map<string, IndexEntry> {
    if (this.map === null) {
      this.map = (this.leafRows as IndexEntryRows).toMap();
      this.leafRows = null;
    }
    return this.map;
  }
}
