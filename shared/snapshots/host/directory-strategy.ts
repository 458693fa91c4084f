/**
 * reflink / copy snapshots: each snapshot is a directory outside the workspace,
 *
 *   <snapshotDir>/<snapshotId>/tree/…          the files (mtime and permission bits kept)
 *   <snapshotDir>/<snapshotId>/manifest.json   the record, directories and leaves with their stat
 *   <snapshotDir>/index.json                   the workspace index (stat cache)
 *
 * Files unchanged since the previous snapshot (per the workspace index) are hard-linked
 * from it, so a snapshot writes only changed data; the others are cloned (`reflink`:
 * FICLONE, required) or copied (`copy`: FICLONE when it happens to work, else bytes).
 * Restores and diffs compare size, then mtime, then content; restores go through the
 * crash-safe applier like every other strategy.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";

import { SnapshotCreationError, SnapshotError, SnapshotRestoreError, WinkError } from "../../errors.js";
import { STAGING_PREFIX } from "../../filesystem/host/tree-apply.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../types.js";
import { compareBytePaths, joinBytePath, toBytePath, toFsPath } from "./byte-paths.js";
import { supportsReflink } from "./detect-strategy.js";
import { finishDiff } from "./leaf-diff.js";
import { LeafChangedError, LeafReader, PROC_FD_WORKS } from "./leaf-reader.js";
import { DIRECTORY_SNAPSHOT_MANIFEST, releaseDirectorySnapshot } from "./release.js";
import { applyRestorePlan, indexAfterRestore, planRestore, planSize, stagedName, type TargetLeaf } from "./restore-plan.js";
import { ensureStorageDir } from "./storage-dir.js";
import type { HostSnapshotStrategy, OperationStats, SnapshotDraft, StrategyContext } from "./strategy.js";
import { isTrustworthy, loadWorkspaceIndex, saveWorkspaceIndex, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import { PARALLEL_SCAN_MIN_ENTRIES, scanWorkspaceFast } from "./scan-pool.js";
import { leafStatOf, regularFileStat, type IndexedScan, type LeafKind, type LeafStat, type WorkspaceScan } from "./workspace-scan.js";

const MANIFEST = DIRECTORY_SNAPSHOT_MANIFEST;
const TREE = "tree";
const FORMAT_VERSION = 1;

export interface DirectoryStrategyOptions {
  readonly mode: "reflink" | "copy";
  /** Default: a new `wink-snapshots-*` directory under the system temp dir, made on first use. */
  readonly snapshotDir?: string | null;
}

/** A leaf as the manifest records it. */
interface StoredLeaf {
  readonly kind: LeafKind;
  readonly perm: number;
  readonly size: number;
  readonly mtimeMs: number;
}

interface Manifest {
  readonly record: FilesystemSnapshot;
  readonly dirs: Map<string, number>;
  readonly leaves: Map<string, StoredLeaf>;
}

type PackedLeaf = [string, 0 | 1, number, number, number];

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function readManifest(storagePath: string): Manifest | null {
  let parsed: { version?: unknown; record?: FilesystemSnapshot; dirs?: [string, number][]; leaves?: PackedLeaf[] };
  try {
    parsed = JSON.parse(readFileSync(path.join(storagePath, MANIFEST), "utf8")) as typeof parsed;
  } catch {
    return null;
  }
  if (parsed.version !== FORMAT_VERSION || parsed.record === undefined || !Array.isArray(parsed.dirs) || !Array.isArray(parsed.leaves)) return null;
  const leaves = new Map<string, StoredLeaf>();
  for (const [p, kind, perm, size, mtimeMs] of parsed.leaves) leaves.set(p, { kind: kind === 1 ? "symlink" : "file", perm, size, mtimeMs });
  return { record: parsed.record, dirs: new Map(parsed.dirs), leaves };
}

/** Git-style blob id of a leaf in a tree we own (snapshot storage). */
function hashStored(treeBytes: string, relative: string, kind: LeafKind): string {
  const full = toFsPath(joinBytePath(treeBytes, relative));
  const data = kind === "symlink" ? readlinkSync(full, { encoding: "buffer" }) : readFileSync(full);
  return createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");
}

function sameByStat(a: { size: number; mtimeMs: number }, b: { size: number; mtimeMs: number }): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function identityMode(kind: LeafKind, perm: number): string {
  return kind === "symlink" ? "l" : perm & 0o100 ? "x" : "f";
}

export class DirectorySnapshotStrategy implements HostSnapshotStrategy {
  readonly name: "reflink" | "copy";
  private readonly context: StrategyContext;
  private readonly rootBytes: string;
  private dir: string | null;
  private index: WorkspaceIndex | null = null;
  private indexLoaded = false;
  lastStats: OperationStats | null = null;

  constructor(context: StrategyContext, options: DirectoryStrategyOptions) {
    this.context = context;
    this.name = options.mode;
    this.rootBytes = toBytePath(context.root);
    this.dir = options.snapshotDir ? path.resolve(options.snapshotDir) : null;
  }

  get snapshotDir(): string | null {
    return this.dir;
  }

  private get indexFile(): string {
    return path.join(this.ensureDir(), "index.json");
  }

  private ensureDir(): string {
    this.dir = ensureStorageDir(this.dir, this.context.root, "wink-snapshots-", "snapshot directory");
    return this.dir;
  }


  private currentIndex(): WorkspaceIndex | null {
    if (!this.indexLoaded) {
      this.indexLoaded = true;
      this.index = loadWorkspaceIndex(this.indexFile, this.context.root);
    }
    return this.index;
  }

  private setIndex(index: WorkspaceIndex): void {
    this.index = index;
    this.indexLoaded = true;
    try {
      saveWorkspaceIndex(this.indexFile, this.context.root, index);
    } catch {
      // Only an optimisation: without it the next snapshot copies every file.
    }
  }

  /** The workspace index as a scan baseline, without creating a storage directory that does not exist yet. */
  private baseline(): WorkspaceIndex | null {
    if (this.indexLoaded) return this.index;
    if (this.dir === null || !existsSync(this.dir)) return null;
    return this.currentIndex();
  }

  /**
   * Every leaf of the workspace. The walk runs against the workspace index (on worker
   * threads when the workspace is big, scan-pool.ts), so the leaves it trusts come back
   * only counted; their lstat equals their index entry field for field, so the entry
   * stands in for it and callers see exactly what a plain walk returns.
   */
  private async scan(): Promise<WorkspaceScan> {
    const index = this.baseline();
    // Our operations are synchronous underneath: without one turn of the event loop the pool's
    // "ready" messages (threads started by an earlier walk) would never be seen.
    if ((index?.entries.size ?? 0) >= PARALLEL_SCAN_MIN_ENTRIES) await new Promise<void>((resolve) => setImmediate(resolve));
    const scan = await scanWorkspaceFast(this.rootBytes, index, { excludeTopLevelPrefix: STAGING_PREFIX });
    return { ...scan, leaves: withTrustedLeaves(scan, index) };
  }

  async capture(draft: SnapshotDraft): Promise<FilesystemSnapshot> {
    let dir: string;
    let scan: WorkspaceScan;
    try {
      dir = this.ensureDir();
      if (this.name === "reflink" && !supportsReflink(this.context.root, dir)) {
        throw new SnapshotCreationError(`Failed to create snapshot: ${dir} cannot hold copy-on-write clones of ${this.context.root} (reflink needs btrfs, XFS or similar on the same filesystem); use the copy or git strategy`, {
          snapshotDir: dir,
        });
      }
      scan = await this.scan();
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw new SnapshotCreationError(`Failed to create snapshot: ${message(error)}`, { root: this.context.root }, { cause: error });
    }
    const partial = path.join(dir, `.partial-${draft.snapshotId}`);
    const final = path.join(dir, draft.snapshotId);
    try {
      const { entries, copied } = this.copyTree(scan, path.join(partial, TREE));
      this.lastStats = { operation: "capture", leaves: scan.leaves.size, read: copied, changed: copied };
      let totalBytes = 0;
      for (const entry of entries.values()) totalBytes += entry.size;
      const record: FilesystemSnapshot = {
        ...draft,
        fileCount: entries.size,
        totalBytes,
        backend: "host",
        strategy: this.name,
        commitRef: draft.snapshotId,
        rootPath: this.context.root,
        gitDir: null,
        storagePath: final,
      };
      const leaves: PackedLeaf[] = [];
      for (const [p, e] of entries) leaves.push([p, e.kind === "symlink" ? 1 : 0, e.perm, e.size, e.mtimeMs]);
      writeFileSync(path.join(partial, MANIFEST), JSON.stringify({ version: FORMAT_VERSION, record, dirs: [...scan.dirs], leaves }));
      renameSync(partial, final);
      this.setIndex({ ref: draft.snapshotId, scanStartedAtMs: scan.startedAtMs, entries });
      return record;
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new SnapshotCreationError(`Failed to create snapshot in ${dir}: ${message(error)}`, { snapshotDir: dir }, { cause: error });
    }
  }

  /** Copy the scanned workspace into `treeDir`; returns the leaves with the stat each copy was made from. */
  private copyTree(scan: WorkspaceScan, treeDir: string): { entries: Map<string, IndexEntry>; copied: number } {
    const treeBytes = toBytePath(treeDir);
    mkdirSync(treeDir, { recursive: true, mode: 0o700 });
    const dirs = [...scan.dirs.keys()].sort(compareBytePaths);
    for (const d of dirs) mkdirSync(toFsPath(joinBytePath(treeBytes, d)), { mode: 0o700 });
    const index = this.currentIndex();
    const previousTree = index !== null ? toBytePath(path.join(this.ensureDir(), index.ref, TREE)) : null;
    const realRoot = new LeafReader(this.rootBytes);
    const cloneFlag = this.name === "reflink" ? constants.COPYFILE_FICLONE_FORCE : constants.COPYFILE_FICLONE;
    const entries = new Map<string, IndexEntry>();
    let copied = 0;
    for (const [p, stat] of scan.leaves) {
      const target = toFsPath(joinBytePath(treeBytes, p));
      const source = joinBytePath(this.rootBytes, p);
      try {
        if (stat.kind === "symlink") {
          symlinkSync(readlinkSync(toFsPath(source), { encoding: "buffer" }), target);
          entries.set(p, { ...leafStatOf(lstatSync(toFsPath(source)), "symlink"), oid: "" });
          continue;
        }
        const cached = index?.entries.get(p);
        if (previousTree !== null && cached !== undefined && isTrustworthy(cached, stat, index!.scanStartedAtMs)) {
          try {
            linkSync(toFsPath(joinBytePath(previousTree, p)), target);
            entries.set(p, cached);
            continue;
          } catch {
            // the previous snapshot is gone or differs: copy instead
          }
        }
        entries.set(p, { ...copyLeaf(realRoot, p, target, cloneFlag), oid: "" });
        copied += 1;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === "ENOENT") continue; // vanished since the scan
        throw error;
      }
    }
    // Permission bits last (a read-only directory could not have been filled), deepest first.
    for (const d of dirs.reverse()) chmodSync(toFsPath(joinBytePath(treeBytes, d)), scan.dirs.get(d) ?? 0o755);
    return { entries, copied };
  }

  /** The snapshot's manifest and stored tree (byte path). */
  private storageOf(snapshot: FilesystemSnapshot, fail: (reason: string) => WinkError): { manifest: Manifest; storage: string; treeBytes: string } {
    const storage = snapshot.storagePath ?? (this.dir !== null ? path.join(this.dir, snapshot.commitRef) : null);
    if (storage === null || !existsSync(storage)) throw fail(`its storage ${storage ?? "(none)"} does not exist`);
    const manifest = readManifest(storage);
    if (manifest === null) throw fail(`${path.join(storage, MANIFEST)} is missing or unreadable`);
    return { manifest, storage, treeBytes: toBytePath(path.join(storage, TREE)) };
  }

  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    const fail = (reason: string, cause?: unknown): SnapshotRestoreError =>
      new SnapshotRestoreError(`Failed to restore snapshot ${snapshot.snapshotId}: ${reason}`, { snapshotId: snapshot.snapshotId }, { cause });
    const { manifest, storage, treeBytes } = this.storageOf(snapshot, fail);
    try {
      const scan = await this.scan();
      const reader = new LeafReader(this.rootBytes);
      const targetLeaves = new Map<string, TargetLeaf>();
      for (const [p, leaf] of manifest.leaves) targetLeaves.set(p, { kind: leaf.kind, perm: leaf.perm, oid: "=" });
      const currentLeaves = new Map<string, IndexEntry>();
      let read = 0;
      for (const [p, stat] of scan.leaves) {
        const stored = manifest.leaves.get(p);
        const same = stored !== undefined && this.sameContent(reader, p, stat, treeBytes, stored, () => (read += 1));
        currentLeaves.set(p, { ...stat, oid: same ? "=" : "≠" });
      }
      const plan = planRestore({ leaves: currentLeaves, dirs: scan.dirs, others: scan.others }, { leaves: targetLeaves, dirs: manifest.dirs });
      await applyRestorePlan(
        this.context.root,
        plan,
        async (staging) => {
          plan.puts.forEach((p, index) => {
            const stored = manifest.leaves.get(p) as StoredLeaf;
            const from = toFsPath(joinBytePath(treeBytes, p));
            const to = path.join(staging.treeDir, stagedName(index));
            if (stored.kind === "symlink") {
              symlinkSync(readlinkSync(from, { encoding: "buffer" }), to);
              return;
            }
            copyFileSync(from, to, constants.COPYFILE_FICLONE);
            chmodSync(to, stored.perm);
            utimesSync(to, stored.mtimeMs / 1000, stored.mtimeMs / 1000);
          });
        },
        this.context.treeApply,
      );
      this.lastStats = { operation: "restore", leaves: scan.leaves.size, read, changed: planSize(plan) };
      if (path.dirname(storage) === this.dir) {
        const entries = indexAfterRestore(this.rootBytes, targetLeaves, currentLeaves, plan.puts, () => "");
        this.setIndex({ ref: manifest.record.snapshotId, scanStartedAtMs: scan.startedAtMs, entries });
      }
    } catch (error) {
      if (error instanceof SnapshotRestoreError) throw error;
      throw fail(message(error), error);
    }
  }

  /** Size, then mtime, then bytes: is the workspace leaf the stored one? */
  private sameContent(reader: LeafReader, relative: string, stat: LeafStat, treeBytes: string, stored: StoredLeaf, onRead: () => void): boolean {
    if (stat.kind !== stored.kind || stat.size !== stored.size) return false;
    if (stat.kind === "file" && sameByStat(stat, stored)) return true;
    onRead();
    try {
      return reader.hash(relative, stat.kind).oid === hashStored(treeBytes, relative, stored.kind);
    } catch {
      return false;
    }
  }

  async diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    const fail = (reason: string): SnapshotError => new SnapshotError(`Cannot diff snapshot ${base.snapshotId}: ${reason}`, { snapshotId: base.snapshotId });
    const { manifest: baseManifest, treeBytes: baseTree } = this.storageOf(base, fail);
    const added: string[] = [];
    const modified: string[] = [];
    const deleted: string[] = [];
    let unchanged = 0;
    const compare = (p: string, now: { kind: LeafKind; perm: number; size: number; mtimeMs: number }, equalBytes: () => boolean): void => {
      const before = baseManifest.leaves.get(p);
      if (before === undefined) added.push(p);
      else if (identityMode(before.kind, before.perm) !== identityMode(now.kind, now.perm) || before.size !== now.size) modified.push(p);
      else if ((now.kind === "file" && sameByStat(before, now)) || equalBytes()) unchanged += 1;
      else modified.push(p);
    };
    if (target !== null) {
      const { manifest: targetManifest, treeBytes: targetTree } = this.storageOf(target, fail);
      for (const [p, leaf] of targetManifest.leaves) {
        compare(p, leaf, () => hashStored(baseTree, p, leaf.kind) === hashStored(targetTree, p, leaf.kind));
      }
      for (const p of baseManifest.leaves.keys()) if (!targetManifest.leaves.has(p)) deleted.push(p);
    } else {
      const scan = await this.scan();
      const reader = new LeafReader(this.rootBytes);
      for (const [p, stat] of scan.leaves) {
        compare(p, stat, () => {
          try {
            return reader.hash(p, stat.kind).oid === hashStored(baseTree, p, stat.kind);
          } catch {
            return false;
          }
        });
      }
      for (const p of baseManifest.leaves.keys()) if (!scan.leaves.has(p)) deleted.push(p);
    }
    return finishDiff(added, modified, deleted, unchanged);
  }

  async release(snapshots: readonly FilesystemSnapshot[]): Promise<void> {
    for (const snapshot of snapshots) {
      const storage = snapshot.storagePath ?? (this.dir !== null ? path.join(this.dir, snapshot.commitRef) : null);
      if (storage !== null) releaseDirectorySnapshot(storage);
    }
  }

  async cleanup(): Promise<void> {
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.index = null;
    this.indexLoaded = false;
  }

  async list(): Promise<FilesystemSnapshot[]> {
    if (this.dir === null || !existsSync(this.dir)) return [];
    const records: FilesystemSnapshot[] = [];
    for (const name of readdirSync(this.dir)) {
      if (name.startsWith(".")) continue;
      const manifest = readManifest(path.join(this.dir, name));
      if (manifest !== null) records.push(manifest.record);
    }
    return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }
}

/** The scan's untrusted leaves plus the index entries it trusted (met unchanged: neither untrusted nor missing). */
function withTrustedLeaves(scan: IndexedScan, index: WorkspaceIndex | null): Map<string, LeafStat> {
  if (index === null || scan.untrusted.size === scan.leafCount) return scan.untrusted;
  const missing = new Set(scan.missing);
  const leaves = new Map<string, LeafStat>();
  for (const [p, entry] of index.entries) if (!missing.has(p) && !scan.untrusted.has(p)) leaves.set(p, entry);
  for (const [p, stat] of scan.untrusted) leaves.set(p, stat);
  return leaves;
}

/** Copy one workspace file without following links; returns the stat it was copied from. */
function copyLeaf(reader: LeafReader, relative: string, target: string | Buffer, cloneFlag: number): LeafStat {
  const fd = reader.openVerified(relative);
  try {
    const stat = regularFileStat(fd);
    if (stat === null) throw new LeafChangedError(relative, "no longer a regular file");
    // Through the descriptor's /proc link: the very file we opened and checked, never a swapped-in link.
    copyFileSync(PROC_FD_WORKS ? `/proc/self/fd/${fd}` : toFsPath(reader.absolute(relative)), target, cloneFlag);
    utimesSync(target, stat.mtimeMs / 1000, stat.mtimeMs / 1000);
    chmodSync(target, stat.perm);
    return stat;
  } finally {
    closeSync(fd);
  }
}

