/**
 * The files of an open archive in columns: one string per entry name and typed arrays for
 * the numbers, names found by binary search (no map to build or keep). A reader stays open
 * for as long as a viewer shows its archive, so what it holds per entry is what a
 * long-running server pays: as objects (one central record and one file record per entry,
 * two maps) a 10,000-entry archive held ~8 MB; in columns ~1.1 MB. Entry objects are
 * rebuilt on demand (one per `readFile`, all of them for an import).
 */
import type { CentralEntry } from "./central-directory.js";

/** A file of the archive, as the central directory describes it. */
export interface ArchiveFileEntry {
  /** Path relative to the workspace root (no `files/` prefix). */
  readonly path: string;
  /** The entry's name in the archive. */
  readonly entryName: string;
  readonly size: number;
  readonly compressedSize: number;
  readonly crc32: number;
  /** Permission bits as stored (not yet sanitised), or null when the archive has none. */
  readonly mode: number | null;
  readonly mtimeMs: number | null;
}

const NO_MODE = -1;

export class FileIndex {
  /** What entry names add in front of the paths (`files/`, or "" for the root-metadata variant). */
  readonly prefix: string;
  /** Entry names, in central-directory order (a path is its name without the prefix). */
  readonly #names: readonly string[];
  /** Positions in name order, or null when the names are in order already (archives are usually written sorted). */
  readonly #order: Uint32Array | null;
  readonly #size: Float64Array;
  readonly #compressedSize: Float64Array;
  readonly #offset: Float64Array;
  readonly #mtime: Float64Array;
  readonly #crc32: Uint32Array;
  readonly #mode: Int32Array;
  readonly #flags: Uint16Array;
  readonly #method: Uint16Array;
  readonly #nameLength: Uint16Array;
  readonly #extraLength: Uint16Array;

  /** Columns of `entries` (validated file records whose names all start with `prefix`). */
  constructor(entries: readonly CentralEntry[], prefix: string) {
    const count = entries.length;
    this.prefix = prefix;
    this.#size = new Float64Array(count);
    this.#compressedSize = new Float64Array(count);
    this.#offset = new Float64Array(count);
    this.#mtime = new Float64Array(count);
    this.#crc32 = new Uint32Array(count);
    this.#mode = new Int32Array(count);
    this.#flags = new Uint16Array(count);
    this.#method = new Uint16Array(count);
    this.#nameLength = new Uint16Array(count);
    this.#extraLength = new Uint16Array(count);
    const names: string[] = new Array<string>(count);
    let sorted = true;
    for (let i = 0; i < count; i++) {
      const entry = entries[i] as CentralEntry;
      names[i] = entry.name;
      if (i > 0 && !((names[i - 1] as string) < entry.name)) sorted = false;
      this.#size[i] = entry.size;
      this.#compressedSize[i] = entry.compressedSize;
      this.#offset[i] = entry.localHeaderOffset;
      this.#mtime[i] = entry.mtimeMs ?? Number.NaN;
      this.#crc32[i] = entry.crc32;
      this.#mode[i] = entry.mode ?? NO_MODE;
      this.#flags[i] = entry.flags;
      this.#method[i] = entry.method;
      this.#nameLength[i] = entry.nameLength;
      this.#extraLength[i] = entry.extraLength;
    }
    this.#names = names;
    this.#order = sorted ? null : Uint32Array.from(names.keys()).sort((a, b) => ((names[a] as string) < (names[b] as string) ? -1 : 1));
  }

  get count(): number {
    return this.#names.length;
  }

  /** Position of the file at workspace path `path`, or -1. */
  indexOf(path: string): number {
    const name = this.prefix + path;
    const names = this.#names;
    const order = this.#order;
    let low = 0;
    let high = names.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = order === null ? middle : (order[middle] as number);
      const candidate = names[at] as string;
      if (candidate === name) return at;
      if (candidate < name) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** Workspace path of file `index`. */
  path(index: number): string {
    const name = this.#names[index] as string;
    return this.prefix === "" ? name : name.slice(this.prefix.length);
  }

  size(index: number): number {
    return this.#size[index] as number;
  }

  crc32(index: number): number {
    return this.#crc32[index] as number;
  }

  /** The central record of file `index`, rebuilt. */
  entry(index: number): CentralEntry {
    const name = this.#names[index] as string;
    const mode = this.#mode[index] as number;
    const mtime = this.#mtime[index] as number;
    return {
      name,
      path: name,
      isDirectory: false,
      flags: this.#flags[index] as number,
      method: this.#method[index] as number,
      crc32: this.#crc32[index] as number,
      compressedSize: this.#compressedSize[index] as number,
      size: this.#size[index] as number,
      localHeaderOffset: this.#offset[index] as number,
      nameLength: this.#nameLength[index] as number,
      extraLength: this.#extraLength[index] as number,
      mode: mode === NO_MODE ? null : mode,
      mtimeMs: Number.isNaN(mtime) ? null : mtime,
    };
  }

  /** File `index` as `ArchiveReader.files` lists it. */
  file(index: number): ArchiveFileEntry {
    const mode = this.#mode[index] as number;
    const mtime = this.#mtime[index] as number;
    return {
      path: this.path(index),
      entryName: this.#names[index] as string,
      size: this.#size[index] as number,
      compressedSize: this.#compressedSize[index] as number,
      crc32: this.#crc32[index] as number,
      mode: mode === NO_MODE ? null : mode,
      mtimeMs: Number.isNaN(mtime) ? null : mtime,
    };
  }
}
