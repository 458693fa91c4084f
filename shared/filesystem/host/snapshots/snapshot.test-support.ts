/**
 * Test helpers for the host snapshot strategies (imported by *.test.ts only).
 */
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync, chmodSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { supportsReflink } from "./detect-strategy.js";
import { scanWorkspace, type IndexedScan, type LeafStat, type ScanBaseline, type ScanOptions } from "./workspace-scan.js";
import { toBytePath } from "./byte-paths.js";

/** Temp directories made by a test file; `removeAll` in afterEach/afterAll. */
export class TempDirs {
  private readonly dirs: string[] = [];

  make(prefix = "wink-snap-test-"): string {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** Register a directory made elsewhere (e.g. a default git dir) for removal. */
  track(dir: string | null | undefined): void {
    if (dir) this.dirs.push(dir);
  }

  removeAll(): void {
    for (const dir of this.dirs.splice(0)) {
      try {
        execFileSync("chmod", ["-R", "u+rwx", dir], { stdio: "ignore" });
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Every entry below `root` as a line: kind, permission bits, and content hash or link
 * target — the same facts as `tree_hash` in security/fault-recipes.sh. Names are read as
 * raw bytes and shown escaped, so non-UTF-8 names compare exactly.
 */
export function fingerprint(root: string): string[] {
  const lines: string[] = [];
  const walk = (dirBytes: Buffer, rel: string): void => {
    for (const name of readdirSync(dirBytes, { encoding: "buffer" })) {
      const full = Buffer.concat([dirBytes, Buffer.from("/"), name]);
      const relName = rel === "" ? name.toString("latin1") : `${rel}/${name.toString("latin1")}`;
      const shown = JSON.stringify(relName);
      const stats = lstatSync(full);
      const perm = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) lines.push(`L ${shown} -> ${readlinkSync(full, { encoding: "buffer" }).toString("latin1")}`);
      else if (stats.isDirectory()) {
        lines.push(`D ${shown} ${perm}`);
        walk(full, relName);
      } else if (stats.isFile()) lines.push(`F ${shown} ${perm} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`);
      else lines.push(`O ${shown}`);
    }
  };
  walk(Buffer.from(root), "");
  return lines.sort();
}

export type TreeSpec = Record<string, string | Uint8Array | { content: string | Uint8Array; mode?: number } | { dir: true; mode?: number } | { symlink: string }>;

/** Create files, directories and symlinks below `root` (parents made as needed). */
export function writeTree(root: string, spec: TreeSpec): void {
  for (const [rel, value] of Object.entries(spec)) {
    const full = path.join(root, rel);
    if (typeof value === "object" && !(value instanceof Uint8Array) && "dir" in value) {
      mkdirSync(full, { recursive: true });
      if (value.mode !== undefined) chmodSync(full, value.mode);
      continue;
    }
    mkdirSync(path.dirname(full), { recursive: true });
    if (typeof value === "object" && !(value instanceof Uint8Array) && "symlink" in value) {
      symlinkSync(value.symlink, full);
      continue;
    }
    const content = typeof value === "string" || value instanceof Uint8Array ? value : value.content;
    writeFileSync(full, content);
    if (typeof value === "object" && !(value instanceof Uint8Array) && value.mode !== undefined) chmodSync(full, value.mode);
  }
}

/** Every byte value, twice: content no text conversion may touch. */
export function allBytes(): Uint8Array {
  const data = new Uint8Array(512);
  for (let i = 0; i < data.length; i++) data[i] = i % 256;
  return data;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Files named like /tmp/wink-canary-*-ran (proof that something in a hostile workspace executed). */
export function canaries(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("wink-canary"));
}

/**
 * A directory whose filesystem clones files (FICLONE), for the reflink strategy: the temp
 * directory when it can, else an XFS image loop-mounted for the test run (needs root and
 * mkfs.xfs). Null when neither is possible.
 */
export class ReflinkArea {
  readonly dir: string | null;
  private readonly mountPoint: string | null;
  private readonly image: string | null;

  private constructor(dir: string | null, mountPoint: string | null, image: string | null) {
    this.dir = dir;
    this.mountPoint = mountPoint;
    this.image = image;
  }

  static create(imageSize = "320M"): ReflinkArea {
    const plain = mkdtempSync(path.join(tmpdir(), "wink-reflink-"));
    if (supportsReflink(plain, plain)) return new ReflinkArea(plain, null, null);
    rmSync(plain, { recursive: true, force: true });
    if (process.getuid?.() !== 0 || !commandExists("mkfs.xfs")) return new ReflinkArea(null, null, null);
    const work = mkdtempSync(path.join(tmpdir(), "wink-reflink-xfs-"));
    const image = path.join(work, "xfs.img");
    const mountPoint = path.join(work, "mnt");
    try {
      mkdirSync(mountPoint);
      execFileSync("truncate", ["-s", imageSize, image]);
      execFileSync("mkfs.xfs", ["-q", "-m", "reflink=1", image], { stdio: "ignore" });
      execFileSync("mount", ["-o", "loop", image, mountPoint], { stdio: "ignore" });
    } catch {
      rmSync(work, { recursive: true, force: true });
      return new ReflinkArea(null, null, null);
    }
    return supportsReflink(mountPoint, mountPoint) ? new ReflinkArea(mountPoint, mountPoint, image) : new ReflinkArea(null, mountPoint, image);
  }

  /** A fresh directory inside the area. */
  make(prefix: string): string {
    if (this.dir === null) throw new Error("no reflink-capable filesystem here");
    return mkdtempSync(path.join(this.dir, prefix));
  }

  dispose(): void {
    if (this.mountPoint !== null && this.image !== null) {
      try {
        execFileSync("umount", [this.mountPoint], { stdio: "ignore" });
      } catch {
        execFileSync("umount", ["-l", this.mountPoint], { stdio: "ignore" });
      }
      rmSync(path.dirname(this.image), { recursive: true, force: true });
    } else if (this.dir !== null) {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

function commandExists(command: string): boolean {
  try {
    execFileSync("sh", ["-c", 'command -v "$1"', "sh", command], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** True when `dir` exists and is a directory. */
export function isDir(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory();
}

/** A scan as plain sorted data (walk order differs between the two walks). */
export function comparableScan(scan: IndexedScan): unknown {
  const byPath = <T>(entries: Iterable<[string, T]>): [string, T][] => [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return {
    untrusted: byPath(scan.untrusted),
    missing: [...scan.missing].sort(),
    leafCount: scan.leafCount,
    totalBytes: scan.totalBytes,
    oddPerms: byPath(scan.oddPerms),
    dirs: byPath(scan.dirs),
    others: [...scan.others].sort(),
    dirsWithLeaves: [...scan.dirsWithLeaves].sort(),
  };
}

/** Every kind of entry a walk meets, with names that are not UTF-8 and the applier's staging. */
export function hostileTree(root: string): void {
  writeTree(root, {
    "a.txt": "a",
    "tool.sh": { content: "#!/bin/sh\n", mode: 0o755 },
    "secret.txt": { content: "s", mode: 0o600 },
    "deep/er/still/x.bin": new Uint8Array([0, 1, 2]),
    "deep/er/y.txt": "y",
    "empty/": { dir: true },
    "locked/": { dir: true, mode: 0o700 },
    "links/to-dir": { symlink: "../deep" },
    "links/dangling": { symlink: "nowhere" },
    "name with spaces\nand a newline.txt": "n",
    ".wink-apply-123-abc/staged.txt": "not workspace content",
  });
  for (let i = 0; i < 40; i++) writeTree(root, { [`many/d${i % 4}/f${i}.txt`]: `file ${i}` });
  const latin1 = Buffer.concat([Buffer.from(root), Buffer.from("/caf\xe9-"), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]);
  writeFileSync(latin1, "not UTF-8");
  mkdirSync(Buffer.concat([Buffer.from(`${root}/dir-`), Buffer.from([0xff])]));
  execFileSync("mkfifo", [path.join(root, "pipe")]);
}

/**
 * An index of a `hostileTree` as it is now (trusted: long before its scan), then changes
 * since: two edits, a new file, a deleted file and directory, an mtime set back.
 */
export function indexThenChange(root: string, options: ScanOptions): ScanBaseline {
  const entries = new Map<string, LeafStat & { oid: string }>();
  for (const [p, stat] of scanWorkspace(toBytePath(root), options).leaves) entries.set(p, { ...stat, oid: "0".repeat(40) });
  writeTree(root, { "a.txt": "changed", "new.txt": "new", "many/d1/f5.txt": "changed too" });
  rmSync(path.join(root, "deep/er/y.txt"));
  rmSync(path.join(root, "many/d2"), { recursive: true });
  const old = (Date.now() - 60_000) / 1000;
  utimesSync(path.join(root, "tool.sh"), old, old);
  return { scanStartedAtMs: Date.now() + 60_000, entries };
}
