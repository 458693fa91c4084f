/**
 * The entries of a binary workspace index (workspace-index-binary.ts), read in place from
 * the file's bytes: a `Map` to its users, with no object per entry until one is asked for.
 *
 * Why: a first restore in a new process loads the index and compares the walk with it,
 * and on this VM every fresh page of memory costs ~20 µs to fault in. Building a map of
 * 5,000 entry objects (and their path and id strings) took ~2.4 MB of new heap and ~20 ms,
 * and meeting every unchanged leaf as an object another 2 MB; most of those objects were
 * never looked at again. Here a lookup hashes the path into the file's own table and
 * compares bytes, and a walk that meets unchanged leaves by the thousand (find-walk.ts) reads
 * the columns, directory by directory number, without a string per leaf.
 *
 * Changes after the load (a capture or restore updating the index) go to an overlay: base
 * rows replaced or deleted are marked gone, new entries live in an ordinary map.
 */
import type { Buffer } from "node:buffer";

import type { IndexEntry, LeafKind } from "./workspace-index-types.js";

/** Permission bits column: bit 15 marks a symlink. */
export const SYMLINK_BIT = 0x8000;
/**
 * Permission bits column: bit 14 marks an entry recorded too close to its index's scan to
 * be trusted ("racy", see workspace-scan.ts), decided once when the index is written, so
 * that meeting thousands of unchanged rows reads no timestamp.
 */
export const RACY_BIT = 0x4000;

/** FNV-1a over the path's latin1 code units (the bytes of a byte path, byte-paths.ts). */
export function pathHash(path: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The hash table's slot count for `count` rows: a power of two, at most half full. */
export function tableSlots(count: number): number {
  let slots = 2;
  while (slots < count * 2) slots *= 2;
  return slots;
}

/** The columns of a decoded index, as views into its buffer (offsets checked by the decoder). */
export interface PackedColumns {
  readonly count: number;
  readonly bytes: Buffer;
  /** size, mtimeMs, ctimeMs, ino: one column of `count` doubles each. */
  readonly stats: Float64Array;
  /** The end of each path (first column), then of each id (second), relative to their starts. */
  readonly ends: Uint32Array;
  readonly bits: Uint16Array;
  /** Each row's directory, as a number into `dirNames`. */
  readonly dirOf: Uint32Array;
  readonly dirNames: readonly string[];
  /** The sum of the rows' sizes in each directory. */
  readonly dirBytes: readonly number[];
  /** Open-addressing table of `row + 1` (0: empty slot), by `pathHash & (length - 1)`. */
  readonly table: Int32Array;
  readonly pathsAt: number;
  readonly oidsAt: number;
  /** The racy bound `RACY_BIT` was decided against (the index's scan start minus the margin). */
  readonly racyFrom: number;
}

export class PackedIndexEntries implements Map<string, IndexEntry> {
  private readonly columns: PackedColumns;
  private readonly mask: number;
  /** Entries set since the load; a base row they replace is marked in `gone`. */
  private readonly added = new Map<string, IndexEntry>();
  /** Base rows deleted or replaced since the load (null: none yet). */
  private gone: Uint8Array | null = null;
  private goneCount = 0;

  constructor(columns: PackedColumns) {
    this.columns = columns;
    this.mask = columns.table.length - 1;
  }

  get [Symbol.toStringTag](): string {
    return "PackedIndexEntries";
  }

  /** The columns themselves, for loops over every row (ScanCollector.unchangedRows). */
  get rows(): PackedColumns {
    return this.columns;
  }

  /** Number of rows in the file (whatever changed since). */
  get rowCount(): number {
    return this.columns.count;
  }

  /** True while nothing was set or deleted since the load: every row is an entry. */
  get pristine(): boolean {
    return this.goneCount === 0 && this.added.size === 0;
  }

  /** The rows deleted or replaced since the load, marked 1 (null: none). */
  get goneRows(): Uint8Array | null {
    return this.gone;
  }

  /** The entries set since the load (they are not rows; rows they replace are gone). */
  get overlay(): ReadonlyMap<string, IndexEntry> {
    return this.added;
  }

  get size(): number {
    return this.columns.count - this.goneCount + this.added.size;
  }

  /** The row of `path` in the file (-1: none), whether or not it changed since the load. */
  rowOf(path: string): number {
    const { table, bytes, ends, pathsAt, count } = this.columns;
    let slot = pathHash(path) & this.mask;
    // At most every slot once: a table we did not write could be full.
    for (let probes = 0; probes <= this.mask; probes++) {
      const row = (table[slot] as number) - 1;
      if (row < 0) return -1;
      if (row < count) {
        const start = pathsAt + (row === 0 ? 0 : (ends[row - 1] as number));
        const end = pathsAt + (ends[row] as number);
        if (end - start === path.length) {
          let i = 0;
          while (i < path.length && bytes[start + i] === path.charCodeAt(i)) i++;
          if (i === path.length) return row;
        }
      }
      slot = (slot + 1) & this.mask;
    }
    return -1;
  }

  /** Whether row `row` still holds its entry (not deleted or replaced since the load). */
  private isLive(row: number): boolean {
    return this.gone === null || this.gone[row] === 0;
  }

  /** The row that holds `path`'s entry (-1: none, or it was deleted or replaced since the load). */
  liveRow(path: string): number {
    const row = this.rowOf(path);
    return row >= 0 && this.isLive(row) ? row : -1;
  }

  rowPath(row: number): string {
    const { bytes, ends, pathsAt } = this.columns;
    return bytes.toString("latin1", pathsAt + (row === 0 ? 0 : (ends[row - 1] as number)), pathsAt + (ends[row] as number));
  }

  /** Directory number `dir` ("" for the root); the rows' directories are numbered 0…dirCount-1. */
  dirName(dir: number): string {
    return this.columns.dirNames[dir] as string;
  }

  get dirCount(): number {
    return this.columns.dirNames.length;
  }

  private rowKind(row: number): LeafKind {
    return ((this.columns.bits[row] as number) & SYMLINK_BIT) !== 0 ? "symlink" : "file";
  }

  private rowPerm(row: number): number {
    return (this.columns.bits[row] as number) & 0o7777;
  }

  rowEntry(row: number): IndexEntry {
    const { bytes, ends, stats, count, oidsAt } = this.columns;
    return {
      kind: this.rowKind(row),
      perm: this.rowPerm(row),
      size: stats[row] as number,
      mtimeMs: stats[count + row] as number,
      ctimeMs: stats[2 * count + row] as number,
      ino: stats[3 * count + row] as number,
      oid: bytes.toString("latin1", oidsAt + (row === 0 ? 0 : (ends[count + row - 1] as number)), oidsAt + (ends[count + row] as number)),
    };
  }

  /**
   * A walked leaf against row `row`, without making its entry: true when the stat is the
   * same and the row was not recorded at or after `racyFrom` (ScanCollector's trust rule).
   */
  rowTrusted(row: number, kind: LeafKind, perm: number, size: number, mtimeMs: number, ctimeMs: number, ino: number, racyFrom: number): boolean {
    const { stats, count } = this.columns;
    const rowMtime = stats[count + row] as number;
    const rowCtime = stats[2 * count + row] as number;
    const same = this.rowKind(row) === kind && this.rowPerm(row) === perm && stats[row] === size && rowMtime === mtimeMs && rowCtime === ctimeMs && stats[3 * count + row] === ino;
    return same && rowMtime < racyFrom && rowCtime < racyFrom;
  }

  get(path: string): IndexEntry | undefined {
    const added = this.added.get(path);
    if (added !== undefined) return added;
    const row = this.liveRow(path);
    return row >= 0 ? this.rowEntry(row) : undefined;
  }

  has(path: string): boolean {
    return this.added.has(path) || this.liveRow(path) >= 0;
  }

  set(path: string, entry: IndexEntry): this {
    if (!this.added.has(path)) this.markGone(this.rowOf(path));
    this.added.set(path, entry);
    return this;
  }

  delete(path: string): boolean {
    if (this.added.delete(path)) return true;
    return this.markGone(this.rowOf(path));
  }

  clear(): void {
    this.added.clear();
    this.gone = new Uint8Array(this.columns.count).fill(1);
    this.goneCount = this.columns.count;
  }

  private markGone(row: number): boolean {
    if (row < 0 || !this.isLive(row)) return false;
    this.gone ??= new Uint8Array(this.columns.count);
    this.gone[row] = 1;
    this.goneCount += 1;
    return true;
  }

  forEach(callback: (entry: IndexEntry, path: string, map: Map<string, IndexEntry>) => void, thisArg?: unknown): void {
    for (let row = 0; row < this.columns.count; row++) if (this.isLive(row)) callback.call(thisArg, this.rowEntry(row), this.rowPath(row), this);
    this.added.forEach((entry, path) => callback.call(thisArg, entry, path, this));
  }

  *entries(): MapIterator<[string, IndexEntry]> {
    for (let row = 0; row < this.columns.count; row++) if (this.isLive(row)) yield [this.rowPath(row), this.rowEntry(row)];
    yield* this.added.entries();
  }

  *keys(): MapIterator<string> {
    for (let row = 0; row < this.columns.count; row++) if (this.isLive(row)) yield this.rowPath(row);
    yield* this.added.keys();
  }

  *values(): MapIterator<IndexEntry> {
    for (let row = 0; row < this.columns.count; row++) if (this.isLive(row)) yield this.rowEntry(row);
    yield* this.added.values();
  }

  [Symbol.iterator](): MapIterator<[string, IndexEntry]> {
    return this.entries();
  }
}
