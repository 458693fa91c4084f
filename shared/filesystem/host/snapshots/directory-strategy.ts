/**
 * reflink / copy snapshots: each snapshot is a directory outside the workspace, in the
 * format of directory-manifest.ts (stored files keep their mtime and permission bits), and
 * `<snapshotDir>/index.json` is the workspace index (stat cache; each entry names its owner).
 *
 * A snapshot stores only the files that changed since the previous one, cloned (`reflink`:
 * FICLONE, required) or copied (`copy`: FICLONE when it happens to work, else bytes); for
 * the others its manifest names the earlier snapshot whose tree holds them (the owner). So
 * an incremental snapshot costs a walk and a manifest, not one `link()` per file (which
 * made it 4.5× bare git at 50,000 files), and releasing a snapshot keeps its tree while a
 * live snapshot still reads from it (release.ts). Stored files are never modified, and a
 * tree is whole or absent, so an index entry is trusted only while its owner's tree exists.
 * Restores and diffs compare size, then mtime, then content; restores go through the
 * crash-safe applier like every other strategy. Version-1 snapshots (a whole tree each,
 * unchanged files hard-linked) are still read.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  type Stats,
} from "node:fs";
import path from "node:path";

import { SnapshotCreationError, SnapshotError, SnapshotRestoreError, WinkError } from "../../../errors.js";
import { STAGING_PREFIX } from "../tree-apply/index.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../../snapshot-contract.js";
import { joinBytePath, parentBytePath, toBytePath, toFsPath } from "./byte-paths.js";
import { supportsReflink } from "./detect-strategy.js";
import { finishDiff } from "./leaf-diff.js";
import { LeafChangedError, LeafReader, PROC_FD_WORKS } from "./leaf-reader.js";
import {
  DIRECTORY_SNAPSHOT_MANIFEST as MANIFEST,
  DIRECTORY_SNAPSHOT_TREE as TREE,
  isOwnerName,
  readDirectoryManifest,
  writeDirectoryManifest,
  type DirectoryManifest as Manifest,
  type StoredLeaf,
} from "./directory-manifest.js";
import { releaseDirectorySnapshot } from "./release.js";
import { applyRestorePlan, indexAfterRestore, planRestore, planSize, stagedName, type TargetLeaf } from "./restore-plan.js";
import { ensureStorageDir } from "./storage-dir.js";
import type { HostSnapshotStrategy, OperationStats, SnapshotDraft, StrategyContext } from "./strategy.js";
import { isTrustworthy, loadWorkspaceIndex, saveWorkspaceIndex, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import { PARALLEL_SCAN_MIN_ENTRIES, scanWorkspaceFast } from "./scan-pool.js";
import { leafStatOf, regularFileStat, type IndexedScan, type LeafKind, type LeafStat, type WorkspaceScan } from "./workspace-scan.js";
import { errnoCode } from "../../errno.js";

/** Parsed manifests kept per strategy (a 50,000-leaf one is ~10 MB and ~25 ms to parse). */
const MANIFEST_CACHE_SIZE = 4;

export interface DirectoryStrategyOptions {
  readonly mode: "reflink" | "copy";
  /** Default: a new `wink-snapshots-*` directory under the system temp dir, made on first use. */
  readonly snapshotDir?: string | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Where a stored leaf's bytes are: `relative` in its owner's tree, a sibling of `storagePath`. */
function storedPath(storagePath: string, relative: string, leaf: StoredLeaf): string | Buffer {
  return toFsPath(joinBytePath(toBytePath(path.join(path.dirname(storagePath), leaf.oid, TREE)), relative));
}

/** Git-style blob id of a stored leaf. */
function hashStored(storagePath: string, relative: string, leaf: StoredLeaf): string {
  const full = storedPath(storagePath, relative, leaf);
  const data = leaf.kind === "symlink" ? readlinkSync(full, { encoding: "buffer" }) : readFileSync(full);
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
  private readonly manifests = new Map<string, { stamp: string; manifest: Manifest }>();
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
    const scan = await scanWorkspaceFast(this.rootBytes, index, { excludeTopLevelPrefix: STAGING_PREFIX, startPoolLater: true });
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
      const { entries, copied } = this.copyTree(scan, dir, path.join(partial, TREE), draft.snapshotId);
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
      const owners = writeDirectoryManifest(partial, record, scan.dirs, entries);
      // Another process may have released (and collected) a snapshot we read from since the walk.
      const gone = owners.filter((owner) => owner !== draft.snapshotId && !existsSync(path.join(dir, owner, TREE)));
      if (gone.length > 0) throw new Error(`snapshot storage ${gone.join(", ")} was released while this snapshot was written; take it again`);
      renameSync(partial, final);
      this.setIndex({ ref: draft.snapshotId, scanStartedAtMs: scan.startedAtMs, entries });
      return record;
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new SnapshotCreationError(`Failed to create snapshot in ${dir}: ${message(error)}`, { snapshotDir: dir }, { cause: error });
    }
  }

  /**
   * Store the files of the scanned workspace that the index cannot vouch for in `treeDir`;
   * returns every leaf with the stat its stored copy was made from and, as its `oid`, the
   * snapshot directory that holds it (`snapshotId` for the ones stored now).
   */
  private copyTree(scan: WorkspaceScan, dir: string, treeDir: string, snapshotId: string): { entries: Map<string, IndexEntry>; copied: number } {
    const treeBytes = toBytePath(treeDir);
    mkdirSync(treeDir, { recursive: true, mode: 0o700 });
    // Only the directories of stored files exist in a tree; the manifest keeps every directory and its mode.
    const made = new Set<string>([""]);
    const parentReady = (relative: string): void => {
      const parent = parentBytePath(relative);
      if (made.has(parent)) return;
      mkdirSync(toFsPath(joinBytePath(treeBytes, parent)), { recursive: true, mode: 0o700 });
      for (let at = parent; at !== "" && !made.has(at); at = parentBytePath(at)) made.add(at);
    };
    const index = this.currentIndex();
    // An owner whose tree is gone (storage edited by hand) cannot vouch for anything: store afresh.
    const alive = new Map<string, boolean>();
    const ownerAlive = (owner: string): boolean => {
      let known = alive.get(owner);
      if (known === undefined) {
        known = isOwnerName(owner) && existsSync(path.join(dir, owner, TREE));
        alive.set(owner, known);
      }
      return known;
    };
    const realRoot = new LeafReader(this.rootBytes);
    const cloneFlag = this.name === "reflink" ? constants.COPYFILE_FICLONE_FORCE : constants.COPYFILE_FICLONE;
    const entries = new Map<string, IndexEntry>();
    let copied = 0;
    for (const [p, stat] of scan.leaves) {
      const source = joinBytePath(this.rootBytes, p);
      try {
        if (stat.kind === "file" && index !== null) {
          const cached = index.entries.get(p);
          if (cached !== undefined && isTrustworthy(cached, stat, index.scanStartedAtMs)) {
            // Version-1 indexes name no owner: their files are all in the snapshot they mirror.
            const owner = cached.oid !== "" ? cached.oid : index.ref;
            if (ownerAlive(owner)) {
              entries.set(p, cached.oid === owner ? cached : { ...cached, oid: owner });
              continue;
            }
          }
        }
        parentReady(p);
        const target = toFsPath(joinBytePath(treeBytes, p));
        if (stat.kind === "symlink") {
          symlinkSync(readlinkSync(toFsPath(source), { encoding: "buffer" }), target);
          entries.set(p, { ...leafStatOf(lstatSync(toFsPath(source)), "symlink"), oid: snapshotId });
          continue;
        }
        entries.set(p, { ...copyLeaf(realRoot, p, target, cloneFlag), oid: snapshotId });
        copied += 1;
      } catch (error) {
        const code = errnoCode(error);
        if (code === "ENOENT") continue; // vanished since the scan
        throw error;
      }
    }
    return { entries, copied };
  }

  /** The snapshot's storage directory and manifest. */
  private storageOf(snapshot: FilesystemSnapshot, fail: (reason: string) => WinkError): { manifest: Manifest; storage: string } {
    const storage = snapshot.storagePath ?? (this.dir !== null ? path.join(this.dir, snapshot.commitRef) : null);
    const stat = storage === null ? undefined : statSync(path.join(storage, MANIFEST), { throwIfNoEntry: false });
    if (storage === null || stat === undefined) {
      if (storage !== null && existsSync(storage)) throw fail(`${path.join(storage, MANIFEST)} is missing (the snapshot was released, or this is not a snapshot directory)`);
      throw fail(`its storage ${storage ?? "(none)"} does not exist`);
    }
    const manifest = this.cachedManifest(storage, stat);
    if (manifest === null) throw fail(`${path.join(storage, MANIFEST)} is unreadable or of an unknown format`);
    return { manifest, storage };
  }

  /** A snapshot's manifest, parsed once for repeated restores and diffs (manifests are never rewritten; the stat check covers one edited by hand). */
  private cachedManifest(storage: string, stat: Stats): Manifest | null {
    const stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    const cached = this.manifests.get(storage);
    this.manifests.delete(storage);
    if (cached !== undefined && cached.stamp === stamp) {
      this.manifests.set(storage, cached);
      return cached.manifest;
    }
    const manifest = readDirectoryManifest(storage);
    if (manifest === null) return null;
    this.manifests.set(storage, { stamp, manifest });
    for (const key of this.manifests.keys()) {
      if (this.manifests.size <= MANIFEST_CACHE_SIZE) break;
      this.manifests.delete(key);
    }
    return manifest;
  }

  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    const fail = (reason: string, cause?: unknown): SnapshotRestoreError =>
      new SnapshotRestoreError(`Failed to restore snapshot ${snapshot.snapshotId}: ${reason}`, { snapshotId: snapshot.snapshotId }, { cause });
    const { manifest, storage } = this.storageOf(snapshot, fail);
    try {
      const scan = await this.scan();
      const reader = new LeafReader(this.rootBytes);
      const targetLeaves: ReadonlyMap<string, TargetLeaf> = manifest.leaves;
      const currentLeaves = new Map<string, IndexEntry>();
      let read = 0;
      for (const [p, stat] of scan.leaves) {
        const stored = manifest.leaves.get(p);
        // A leaf with the stored content takes the stored leaf's oid, so the plan leaves it alone.
        const oid = stored !== undefined && this.sameContent(reader, p, stat, storage, stored, () => (read += 1)) ? stored.oid : "";
        // Trusted leaves are index entries; one that already says so is kept, not copied (the index save reuses its serialised form).
        currentLeaves.set(p, (stat as Partial<IndexEntry>).oid === oid && oid !== "" ? (stat as IndexEntry) : { ...stat, oid });
      }
      const plan = planRestore({ leaves: currentLeaves, dirs: scan.dirs, others: scan.others }, { leaves: targetLeaves, dirs: manifest.dirs });
      await applyRestorePlan(
        this.context.root,
        plan,
        async (staging) => {
          plan.puts.forEach((p, index) => {
            const stored = manifest.leaves.get(p) as StoredLeaf;
            const from = storedPath(storage, p, stored);
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
        const entries = indexAfterRestore(this.rootBytes, targetLeaves, currentLeaves, plan.puts, (_, leaf) => leaf.oid);
        this.setIndex({ ref: manifest.record.snapshotId, scanStartedAtMs: scan.startedAtMs, entries });
      }
    } catch (error) {
      if (error instanceof SnapshotRestoreError) throw error;
      throw fail(message(error), error);
    }
  }

  /** Size, then mtime, then bytes: is the workspace leaf the stored one? */
  private sameContent(reader: LeafReader, relative: string, stat: LeafStat, storage: string, stored: StoredLeaf, onRead: () => void): boolean {
    if (stat.kind !== stored.kind || stat.size !== stored.size) return false;
    if (stat.kind === "file" && sameByStat(stat, stored)) return true;
    onRead();
    try {
      return reader.hash(relative, stat.kind).oid === hashStored(storage, relative, stored);
    } catch {
      return false;
    }
  }

  async diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    const fail = (reason: string): SnapshotError => new SnapshotError(`Cannot diff snapshot ${base.snapshotId}: ${reason}`, { snapshotId: base.snapshotId });
    const { manifest: baseManifest, storage: baseStorage } = this.storageOf(base, fail);
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
      const { manifest: targetManifest, storage: targetStorage } = this.storageOf(target, fail);
      const sameStore = path.dirname(baseStorage) === path.dirname(targetStorage);
      for (const [p, leaf] of targetManifest.leaves) {
        compare(p, leaf, () => {
          const before = baseManifest.leaves.get(p) as StoredLeaf;
          // The same stored file (stored files are never modified), else compare the bytes.
          if (sameStore && before.oid === leaf.oid) return true;
          return hashStored(baseStorage, p, before) === hashStored(targetStorage, p, leaf);
        });
      }
      for (const p of baseManifest.leaves.keys()) if (!targetManifest.leaves.has(p)) deleted.push(p);
    } else {
      const scan = await this.scan();
      const reader = new LeafReader(this.rootBytes);
      for (const [p, stat] of scan.leaves) {
        compare(p, stat, () => {
          try {
            return reader.hash(p, stat.kind).oid === hashStored(baseStorage, p, baseManifest.leaves.get(p) as StoredLeaf);
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
      const manifest = readDirectoryManifest(path.join(this.dir, name));
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

