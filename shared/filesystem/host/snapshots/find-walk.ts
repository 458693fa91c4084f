/**
 * The workspace walk done by GNU `find`, for the first walk of a process.
 *
 * A walk must lstat every file (a write changes only the file's own stat). On Node 20 each
 * `lstatSync` builds a `Stats` object with four `Date`s; on the cold code of a new
 * process that is most of the walk: 5,000 files cost ~120 ms of CPU on this thread against
 * ~40 ms for the syscalls. `find -printf` does the same lstats in C, in its own process on
 * another core, started before the workspace index is loaded, so the walk and the load
 * overlap; this thread only parses its output (~20 ms for 5,000 files).
 *
 * Same rules as the walk of workspace-scan.ts: symlinks are never followed (`find` without
 * `-L`; `-H` only for the root itself, as `readdir` of the root follows it), names are raw
 * bytes (NUL-terminated, so any byte but NUL and `/` is fine), and the entries go through
 * the same `ScanCollector`. A stat field only decides whether the index may vouch for a
 * file; a field parsed differently from `lstat` makes that file read again, never trusted.
 * Anything unusual — no GNU find (no `-printf`), an unreadable directory, an entry that
 * vanished, a malformed record — makes `collect` answer null, and the caller walks in JS,
 * which reports errors as it always did.
 *
 * Started with the scan time of the index it will be compared with (`unchangedSince`),
 * `find` prints only what that index cannot vouch for by itself: every directory, every
 * FIFO, socket or device, and the files and symlinks whose ctime is later than the index's
 * racy bound. Any change to a file — a write, a chmod, a rename onto its name, a new hard
 * link — sets its ctime to now, and an index entry's stat was taken after the index's scan
 * started, so a file with an older ctime still has exactly the stat its entry records (the
 * kernel's ctime clock lags wall time by far less than the racy margin). A name added or
 * removed sets its directory's ctime too: the directories with a later ctime are listed
 * here, their names compared with the index. For 5,000 unchanged files `find` then prints
 * some 60 records instead of 5,000, and this thread parses those, not a record per file.
 * Only on local filesystems (`ctimesBoundIndex`): elsewhere a server's clock dates ctimes.
 */
import { spawn, type ChildProcess, type ChildProcessByStdio } from "node:child_process";
import { lstatSync, readdirSync, statfsSync, statSync } from "node:fs";
import type { Readable } from "node:stream";

import { isAsciiBytePath, joinBytePath, parentBytePath, toDisplayPath, toFsPath } from "./byte-paths.js";
import { PackedIndexEntries } from "./packed-index-entries.js";
import { RACY_MARGIN_MS, ScanCollector, type IndexedScan, type LeafStat, type ScanBaseline, type ScanOptions } from "./workspace-scan.js";

/** One record per entry: type, permission bits (octal), size, mtime and ctime (seconds.fraction), inode, path below the root. */
const FORMAT = "%y %m %s %T@ %C@ %i %P\\0";

/** Set once `find` could not start or has no `-printf`: later walks do not try again. */
let unusable = false;

export interface FindWalkOptions extends ScanOptions {
  /**
   * The scan time of the index the walk will be compared with: `find` then leaves out the
   * files and symlinks that index vouches for by their ctime (see the module comment).
   */
  readonly unchangedSince?: number;
}

/**
 * Local filesystems (ext2–4, XFS, Btrfs, tmpfs, overlayfs, ZFS, F2FS), whose ctimes come from
 * this machine's clock. On a network or FUSE filesystem a server's lagging clock could date
 * a change before the index's scan; there `find` is not told the bound (every entry is
 * compared, as without it).
 */
const LOCAL_FILESYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010]);

/** True when the ctimes of the filesystem holding `rootBytes` can bound an index (see LOCAL_FILESYSTEMS). */
export function ctimesBoundIndex(rootBytes: string): boolean {
  try {
    return LOCAL_FILESYSTEMS.has(statfsSync(toFsPath(rootBytes)).type);
  } catch {
    return false;
  }
}

/** The ctime bound (whole ms) at or below which a leaf of an index scanned at `scanStartedAtMs` is unchanged. */
function ctimeBound(scanStartedAtMs: number): number {
  return Math.floor(scanStartedAtMs - RACY_MARGIN_MS);
}

/** What a walk that left out unchanged leaves saw, for completing it from the index. */
interface Filtered {
  readonly bound: number;
  /** Paths `find` printed (any type). */
  readonly printed: Set<string>;
  /** Directories found, and those among them changed since the bound (names added or removed). */
  readonly dirs: Set<string>;
  readonly changedDirs: Set<string>;
}

/** find's arguments after the root: the filter (when told a bound), then the output format. */
function findArgs(bound: number | null): string[] {
  const filter = bound === null ? [] : ["(", "(", "-type", "f", "-o", "-type", "l", ")", "!", "-newerct", timeArgument(bound), ")", "-o"];
  return ["-mindepth", "1", ...filter, "-printf", FORMAT];
}

/** A time in whole ms as GNU find reads it (`@seconds.fraction`). */
function timeArgument(ms: number): string {
  return `@${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, "0")}`;
}

/**
 * The shell text that runs `find` beside a git process started with the same process
 * start (see `FindWalk.besideGit`): find writes to fd 3 and, after it, `#<exit code>\0`;
 * then the shell becomes git ("$@"), without fd 3. The root and the bound come through the
 * environment, never through the script text.
 */
const BESIDE_GIT_PRELUDE =
  '(find -H "$WINK_FIND_ROOT" -mindepth 1 \\( \\( -type f -o -type l \\) ! -newerct "$WINK_FIND_NEWER" \\) -o -printf "$WINK_FIND_FORMAT" >&3 2>/dev/null 3>&-; printf \'#%d\\0\' "$?" >&3) & exec "$@" 3>&-';

/** A process start for a git process with a shell prelude (GitProcess.spawnAfterShell). */
export type ShellSpawner = (prelude: string, env: Record<string, string>) => ChildProcess;

export class FindWalk {
  private readonly startedAtMs: number;
  private readonly options: ScanOptions;
  private readonly rootBytes: string;
  /** The ctime bound `find` filtered with; null: every entry printed. */
  private readonly bound: number | null;
  private readonly chunks: Buffer[] = [];
  private done: Promise<boolean> = Promise.resolve(false);
  private stop: () => void = () => undefined;
  /** find's output ends with `#<exit code>\0` (run by a shell beside git). */
  private readonly trailer: boolean;

  private constructor(rootBytes: string, options: FindWalkOptions, trailer: boolean) {
    this.options = options;
    this.rootBytes = rootBytes;
    this.trailer = trailer;
    this.bound = options.unchangedSince === undefined ? null : ctimeBound(options.unchangedSince);
    // Before the first stat: a file modified from here on is racy for the index this walk makes.
    this.startedAtMs = Date.now();
  }

  private spawnFind(root: string): void {
    const child: ChildProcessByStdio<null, Readable, Readable> = spawn("find", ["-H", root, ...findArgs(this.bound)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
      windowsHide: true,
    });
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => this.chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    this.done = new Promise((resolve) => {
      child.on("error", () => {
        unusable = true;
        resolve(false);
      });
      child.on("close", (code) => {
        // No output at all and a failure: not a find we can use (BusyBox, BSD: no -printf).
        if (code !== 0 && this.chunks.length === 0 && /printf|unknown|unrecognized|invalid/i.test(stderr)) unusable = true;
        resolve(code === 0);
      });
    });
    this.stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
  }

  /** The root as a process argument; null when it cannot be one (not valid UTF-8). */
  private static rootArgument(rootBytes: string): string | null {
    const root = isAsciiBytePath(rootBytes) ? rootBytes : toDisplayPath(rootBytes);
    return isAsciiBytePath(rootBytes) || Buffer.from(root, "utf8").toString("latin1") === rootBytes ? root : null;
  }

  private static usable(options: FindWalkOptions): boolean {
    if (unusable || process.platform === "win32") return false;
    return options.unchangedSince === undefined || options.unchangedSince - RACY_MARGIN_MS > 0;
  }

  /**
   * Starts `find` over `rootBytes` now; null when it cannot be used (known missing, or a
   * root that is not valid UTF-8, which a process argument cannot carry exactly).
   */
  static start(rootBytes: string, options: FindWalkOptions = {}): FindWalk | null {
    const root = FindWalk.usable(options) ? FindWalk.rootArgument(rootBytes) : null;
    if (root === null) return null;
    const walk = new FindWalk(rootBytes, options, false);
    try {
      walk.spawnFind(root);
    } catch {
      unusable = true;
      return null;
    }
    return walk;
  }

  /**
   * Starts a git process with `spawner` and, in the same process start, `find` told
   * `options.unchangedSince`: a shell runs find in the background, its output on fd 3, then
   * becomes git. A process start costs this thread 10–20 ms (a fork of a big process), the
   * first restore of a process needs both, and this saves one. The walk is null (and git is
   * started alone) when find cannot be used.
   */
  static besideGit(rootBytes: string, options: FindWalkOptions & { readonly unchangedSince: number }, spawner: ShellSpawner, alone: () => ChildProcess): { child: ChildProcess; walk: FindWalk | null } {
    const root = FindWalk.usable(options) ? FindWalk.rootArgument(rootBytes) : null;
    if (root === null) return { child: alone(), walk: null };
    const walk = new FindWalk(rootBytes, options, true);
    const child = spawner(BESIDE_GIT_PRELUDE, { WINK_FIND_ROOT: root, WINK_FIND_NEWER: timeArgument(walk.bound as number), WINK_FIND_FORMAT: FORMAT });
    const output = child.stdio[3] as Readable | null | undefined;
    if (output === null || output === undefined) return { child, walk: null };
    output.on("data", (chunk: Buffer) => walk.chunks.push(chunk));
    walk.done = new Promise((resolve) => {
      output.on("error", () => resolve(false));
      // The end of find's output (the exit code is in the trailer); the pipe closes later, with git.
      output.on("end", () => resolve(true));
      output.on("close", () => resolve(true));
    });
    walk.stop = () => output.destroy();
    return { child, walk };
  }

  /**
   * The walk compared with `baseline`; null when `find` failed, or left out leaves and
   * `baseline` is not the index it was started for (walk in JS instead).
   */
  async collect(baseline: ScanBaseline | null): Promise<IndexedScan | null> {
    if (!(await this.done)) return null;
    if (this.bound !== null && (baseline === null || ctimeBound(baseline.scanStartedAtMs) !== this.bound)) return null;
    let text = Buffer.concat(this.chunks).toString("latin1");
    this.chunks.length = 0;
    if (this.trailer) {
      const hash = text.lastIndexOf("#");
      if (hash < 0 || (hash > 0 && text[hash - 1] !== "\0") || text.slice(hash) !== "#0\0") return null;
      text = text.slice(0, hash);
    }
    const collector = new ScanCollector(baseline, this.startedAtMs);
    const excludePrefix = this.options.excludeTopLevelPrefix;
    const filtered: Filtered | null = this.bound === null ? null : { bound: this.bound, printed: new Set(), dirs: new Set(), changedDirs: new Set() };
    if (!parseRecords(text, collector, excludePrefix, filtered)) return null;
    if (filtered !== null && baseline !== null && !completeFromIndex(this.rootBytes, collector, baseline, filtered, excludePrefix)) return null;
    return collector.finish();
  }

  /** Stop `find` if it still runs (the operation ended without its result). */
  cancel(): void {
    this.stop();
  }
}

/** Digits `text[from, to)` as a number; NaN when any is not a digit. */
function digits(text: string, from: number, to: number): number {
  if (to <= from) return Number.NaN;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * `seconds.fraction` (GNU find's `%T@`: nanoseconds and a trailing 0) as Node's `mtimeMs`
 * computes it: `sec * 1000 + nsec / 1e6`, the same operations on the same integers, so an
 * unchanged file gives the very number its index entry holds. Any other shape is NaN.
 */
function timeMs(text: string, from: number, to: number): number {
  const dot = text.indexOf(".", from);
  if (dot < 0 || to - dot !== 11) return Number.NaN;
  return digits(text, from, dot) * 1000 + digits(text, dot + 1, dot + 10) / 1e6;
}

/** Feeds find's records to `collector` (noting them in `filtered`); false on a record that does not parse. */
function parseRecords(text: string, collector: ScanCollector, excludePrefix: string | undefined, filtered: Filtered | null): boolean {
  const spaces = [0, 0, 0, 0, 0, 0];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\0", at);
    if (end < 0) return false;
    const start = at;
    let from = start;
    for (let k = 0; k < 6; k++) {
      const space = text.indexOf(" ", from);
      if (space < 0 || space >= end) return false;
      spaces[k] = space;
      from = space + 1;
    }
    const [s0, s1, s2, s3, s4, s5] = spaces as [number, number, number, number, number, number];
    const rel = text.slice(s5 + 1, end);
    at = end + 1;
    // The prefix holds no "/": a path starting with it is in (or is) an excluded top-level entry.
    if (excludePrefix !== undefined && rel.startsWith(excludePrefix)) continue;
    if (rel === "" || s0 !== start + 1) return false;
    const type = text[start];
    if (filtered !== null) {
      filtered.printed.add(rel);
      if (type === "d") {
        filtered.dirs.add(rel);
        const ctimeMs = timeMs(text, s3 + 1, s4);
        if (Number.isNaN(ctimeMs)) return false;
        if (ctimeMs >= filtered.bound) filtered.changedDirs.add(rel);
      }
    }
    const mode = Number.parseInt(text.slice(s0 + 1, s1), 8);
    if (Number.isNaN(mode)) return false;
    if (type === "f" || type === "l") {
      const size = digits(text, s1 + 1, s2);
      const mtimeMs = timeMs(text, s2 + 1, s3);
      const ctimeMs = timeMs(text, s3 + 1, s4);
      const ino = s5 > s4 + 1 ? Number(text.slice(s4 + 1, s5)) : Number.NaN;
      if (Number.isNaN(size) || Number.isNaN(mtimeMs) || Number.isNaN(ctimeMs) || !Number.isInteger(ino)) return false;
      collector.leaf(rel, type === "f" ? "file" : "symlink", mode, size, mtimeMs, ctimeMs, ino);
      collector.holdsLeaves(parentBytePath(rel));
    } else if (type === "d") collector.directory(rel, mode);
    else collector.other(rel);
  }
  return true;
}

/** One leaf `find` did not print, stat-ed here; false when it is not a leaf (the tree changed under the walk). */
function statLeaf(rootBytes: string, rel: string, collector: ScanCollector): boolean {
  const stats = lstatSync(toFsPath(joinBytePath(rootBytes, rel)), { throwIfNoEntry: false });
  if (stats === undefined) return true; // vanished: as the walk in JS skips it
  if (!stats.isFile() && !stats.isSymbolicLink()) return false;
  collector.leaf(rel, stats.isFile() ? "file" : "symlink", stats.mode, stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino);
  collector.holdsLeaves(parentBytePath(rel));
  return true;
}

/**
 * Completes a walk whose unchanged leaves `find` left out. A leaf `find` did not print has
 * a ctime older than the bound, so it is the very file its index entry records, stat and
 * all (see the module comment): whether its directory changed or not, an index entry at a
 * name that is still there is met as the entry records it. Changed directories (the root
 * included) are listed, to tell the names removed (missing, as the index's entries in
 * directories gone are) from those still there; a name the index lacks there is stat-ed.
 * False when the tree changed under the walk in a way this cannot follow (the caller then
 * walks in JS).
 */
function completeFromIndex(rootBytes: string, collector: ScanCollector, baseline: ScanBaseline, filtered: Filtered, excludePrefix: string | undefined): boolean {
  const { bound, printed, dirs, changedDirs } = filtered;
  const packed = baseline.entries instanceof PackedIndexEntries ? baseline.entries : null;
  // Entries that are not packed rows: all of a map's, a packed index's changes since its load.
  const loose: ReadonlyMap<string, LeafStat> = packed === null ? baseline.entries : packed.overlay;
  // Rows of `packed` still there in a changed directory (null: none, or not packed).
  let present: Uint8Array | null = null;
  const rowCount = packed?.rowCount ?? 0;
  try {
    if (statSync(toFsPath(rootBytes)).ctimeMs >= bound) changedDirs.add("");
    for (const dir of changedDirs) {
      let holds = false;
      for (const name of readdirSync(toFsPath(joinBytePath(rootBytes, dir)), { encoding: "latin1" })) {
        if (dir === "" && excludePrefix !== undefined && name.startsWith(excludePrefix)) continue;
        const rel = dir === "" ? name : `${dir}/${name}`;
        if (printed.has(rel)) continue;
        const row = packed?.liveRow(rel) ?? -1;
        if (row >= 0) {
          (present ??= new Uint8Array(rowCount))[row] = 1;
          continue;
        }
        const entry = loose.get(rel);
        if (entry !== undefined) {
          collector.unchangedLeaf(rel, entry);
          holds = true;
        } else if (!statLeaf(rootBytes, rel, collector)) return false;
      }
      if (holds) collector.holdsLeaves(dir);
    }
    if (packed !== null) meetUnchangedRows(packed, collector, filtered, present);
    // `forEach`, not `for…of` with destructuring: one pass per index entry on cold code,
    // where the iterator protocol costs more than the work.
    let lastDir: string | null = null;
    loose.forEach((entry, rel) => {
      if (printed.has(rel)) return;
      const dir = parentBytePath(rel);
      // A directory gone: its entries are missing. A changed one: met above.
      if ((dir !== "" && !dirs.has(dir)) || changedDirs.has(dir)) return;
      collector.unchangedLeaf(rel, entry);
      if (dir !== lastDir) {
        collector.holdsLeaves(dir);
        lastDir = dir;
      }
    });
  } catch {
    return false; // a directory that vanished or cannot be read: the walk in JS reports it
  }
  return true;
}

/**
 * `completeFromIndex`'s pass over a packed index read in place: its rows met by number, a
 * directory at a time (see ScanCollector.unchangedRows and packed-index-entries.ts).
 */
function meetUnchangedRows(entries: PackedIndexEntries, collector: ScanCollector, filtered: Filtered, present: Uint8Array | null): void {
  const { printed, dirs, changedDirs } = filtered;
  const skip = new Uint8Array(entries.rowCount);
  for (const rel of printed) {
    const row = entries.rowOf(rel);
    if (row >= 0) skip[row] = 1;
  }
  // Per directory number: 1 every row is met, 2 only the rows present (a changed
  // directory), 0 none (a directory gone: its entries are missing).
  const meet = new Uint8Array(entries.dirCount);
  for (let dir = 0; dir < meet.length; dir++) {
    const name = entries.dirName(dir);
    meet[dir] = changedDirs.has(name) ? 2 : name === "" || dirs.has(name) ? 1 : 0;
  }
  collector.unchangedRows(entries, meet, skip, present);
}
