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
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

import { isAsciiBytePath, parentBytePath, toDisplayPath } from "./byte-paths.js";
import { ScanCollector, type IndexedScan, type ScanBaseline, type ScanOptions } from "./workspace-scan.js";

/** One record per entry: type, permission bits (octal), size, mtime and ctime (seconds.fraction), inode, path below the root. */
const FORMAT = "%y %m %s %T@ %C@ %i %P\\0";

/** Set once `find` could not start or has no `-printf`: later walks do not try again. */
let unusable = false;

export class FindWalk {
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;
  private readonly startedAtMs: number;
  private readonly options: ScanOptions;
  private readonly chunks: Buffer[] = [];
  private readonly done: Promise<boolean>;
  private stderr = "";

  private constructor(root: string, options: ScanOptions) {
    this.options = options;
    // Before the first stat: a file modified from here on is racy for the index this walk makes.
    this.startedAtMs = Date.now();
    this.child = spawn("find", ["-H", root, "-mindepth", "1", "-printf", FORMAT], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
      windowsHide: true,
    });
    this.child.stdout.on("data", (chunk: Buffer) => this.chunks.push(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => {
      if (this.stderr.length < 4096) this.stderr += chunk.toString("utf8");
    });
    this.done = new Promise((resolve) => {
      this.child.on("error", () => {
        unusable = true;
        resolve(false);
      });
      this.child.on("close", (code) => {
        // No output at all and a failure: not a find we can use (BusyBox, BSD: no -printf).
        if (code !== 0 && this.chunks.length === 0 && /printf|unknown|unrecognized|invalid/i.test(this.stderr)) unusable = true;
        resolve(code === 0);
      });
    });
  }

  /**
   * Starts `find` over `rootBytes` now; null when it cannot be used (known missing, or a
   * root that is not valid UTF-8, which a process argument cannot carry exactly).
   */
  static start(rootBytes: string, options: ScanOptions = {}): FindWalk | null {
    if (unusable || process.platform === "win32") return null;
    const root = isAsciiBytePath(rootBytes) ? rootBytes : toDisplayPath(rootBytes);
    if (!isAsciiBytePath(rootBytes) && Buffer.from(root, "utf8").toString("latin1") !== rootBytes) return null;
    try {
      return new FindWalk(root, options);
    } catch {
      unusable = true;
      return null;
    }
  }

  /** The walk compared with `baseline`; null when `find` failed (walk in JS instead). */
  async collect(baseline: ScanBaseline | null): Promise<IndexedScan | null> {
    if (!(await this.done)) return null;
    const text = Buffer.concat(this.chunks).toString("latin1");
    this.chunks.length = 0;
    return parseRecords(text, new ScanCollector(baseline, this.startedAtMs), this.options.excludeTopLevelPrefix);
  }

  /** Stop `find` if it still runs (the operation ended without its result). */
  cancel(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
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

/** Feeds find's records to `collector`; null on a record that does not parse. */
function parseRecords(text: string, collector: ScanCollector, excludePrefix: string | undefined): IndexedScan | null {
  const spaces = [0, 0, 0, 0, 0, 0];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\0", at);
    if (end < 0) return null;
    const start = at;
    let from = start;
    for (let k = 0; k < 6; k++) {
      const space = text.indexOf(" ", from);
      if (space < 0 || space >= end) return null;
      spaces[k] = space;
      from = space + 1;
    }
    const [s0, s1, s2, s3, s4, s5] = spaces as [number, number, number, number, number, number];
    const rel = text.slice(s5 + 1, end);
    at = end + 1;
    // The prefix holds no "/": a path starting with it is in (or is) an excluded top-level entry.
    if (excludePrefix !== undefined && rel.startsWith(excludePrefix)) continue;
    if (rel === "" || s0 !== start + 1) return null;
    const type = text[start];
    const mode = Number.parseInt(text.slice(s0 + 1, s1), 8);
    if (Number.isNaN(mode)) return null;
    if (type === "f" || type === "l") {
      const size = digits(text, s1 + 1, s2);
      const mtimeMs = timeMs(text, s2 + 1, s3);
      const ctimeMs = timeMs(text, s3 + 1, s4);
      const ino = s5 > s4 + 1 ? Number(text.slice(s4 + 1, s5)) : Number.NaN;
      if (Number.isNaN(size) || Number.isNaN(mtimeMs) || Number.isNaN(ctimeMs) || !Number.isInteger(ino)) return null;
      collector.leaf(rel, type === "f" ? "file" : "symlink", mode, size, mtimeMs, ctimeMs, ino);
      collector.holdsLeaves(parentBytePath(rel));
    } else if (type === "d") collector.directory(rel, mode);
    else collector.other(rel);
  }
  return collector.finish();
}
