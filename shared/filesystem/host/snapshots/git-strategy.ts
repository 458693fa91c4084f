/**
 * Git snapshots of a host directory in an external bare repository.
 *
 * Capture: one scan of the workspace; files whose stat matches the workspace index keep
 * their blob id unread; the rest are read (safely, see leaf-reader.ts) and streamed into
 * `git fast-import` as changes against the previous commit, so an incremental snapshot
 * costs the scan plus the changed files. Restore: the target commit's tree against the
 * scanned workspace gives the changed paths only; their blobs come from
 * `git cat-file --batch` into the applier's staging, and the applier swaps them in
 * atomically. Git's index, checkout, hooks and attributes are never involved.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotRestoreError, WinkError } from "../../../errors.js";
import { STAGING_PREFIX } from "../tree-apply/index.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../../snapshot-contract.js";
import { compareBytePaths, toBytePath } from "./byte-paths.js";
import { GitObjectReader } from "./git-object-reader.js";
import { FastImportWriter } from "./git-fast-import.js";
import { requireGit } from "./git-process.js";
import {
  defaultPerm,
  encodeCommitMessage,
  gitModeOf,
  GitSnapshotRepo,
  isCommitId,
  BASE_REF,
  SNAPSHOT_REF_PREFIX,
  type CommitMeta,
} from "./git-repo.js";
import { diffSnapshotWithWorkspace, planGitRestore } from "./git-restore-plan.js";
import { readCommit, readSnapshotCommit, stageBlobs, treeChanges, type SnapshotCommit, type TreeChanges } from "./git-target.js";
import { finishDiff } from "./leaf-diff.js";
import { LeafReader } from "./leaf-reader.js";
import { applyRestorePlan, planSize } from "./restore-plan.js";
import { readUntrustedLeaves, type ReadLeaves } from "./workspace-delta.js";
import type { HostSnapshotStrategy, OperationStats, ReleaseOptions, SnapshotDraft, StrategyContext } from "./strategy.js";
import { loadWorkspaceIndex, saveWorkspaceIndex, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import { readIndexHead } from "./workspace-index-binary.js";
import { PackedIndexEntries } from "./packed-index-entries.js";
import { releaseGitSnapshots } from "./release.js";
import { assertOutsideWorkspace } from "./storage-dir.js";
import { ctimesBoundIndex, FindWalk } from "./find-walk.js";
import { PARALLEL_SCAN_MIN_ENTRIES, scanPoolReady, scanWorkspaceFast, walkedElsewhere } from "./scan-pool.js";
import { ScanError, type IndexedScan } from "./workspace-scan.js";

/** Run `git gc --auto` after this many snapshots (packs the loose objects small snapshots leave). */
const COMPACT_EVERY = 50;
/** Retention releases whose objects are collected together (see `release`). */
const RELEASES_PER_COLLECTION = 10;

export interface GitStrategyOptions {
  /** External git directory; default: a new `wink-git-*` directory under the system temp dir, made on first use. */
  readonly gitDir?: string | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class GitSnapshotStrategy implements HostSnapshotStrategy {
  readonly name = "git" as const;
  private readonly context: StrategyContext;
  private readonly rootBytes: string;
  private gitDirPath: string | null;
  private repo: GitSnapshotRepo | null = null;
  private index: WorkspaceIndex | null = null;
  private indexLoaded = false;
  private snapshotsSinceCompact = 0;
  private releasedSinceCollection = 0;
  lastStats: OperationStats | null = null;

  constructor(context: StrategyContext, options: GitStrategyOptions = {}) {
    this.context = context;
    this.rootBytes = toBytePath(context.root);
    this.gitDirPath = options.gitDir ? path.resolve(options.gitDir) : null;
  }

  /** The external git directory; null until the first snapshot (or restore) creates or adopts one. */
  get gitDir(): string | null {
    return this.gitDirPath;
  }

  /**
   * The repository, made when missing. `checkGit: false` (restore, whose first git process
   * is a reader) runs no `git --version` check before using an existing repository: a
   * restore that fails asks for the check then, and reports its message when git is what
   * is missing (see gitMissingReason). A first restore in a process thus starts one git
   * process, not two (each start is a fork of this process, and waits for the CPU on a
   * busy machine).
   */
  private async ensureRepo(checkGit = true): Promise<GitSnapshotRepo> {
    if (checkGit) await requireGit();
    if (this.gitDirPath === null) this.gitDirPath = mkdtempSync(path.join(tmpdir(), "wink-git-"));
    assertOutsideWorkspace(this.gitDirPath, this.context.root, "git directory");
    if (this.repo === null || this.repo.gitDir !== this.gitDirPath) {
      if (!checkGit && !existsDir(path.join(this.gitDirPath, "objects"))) await requireGit(); // it will run git init
      const repo = new GitSnapshotRepo(this.gitDirPath, this.context.root);
      await repo.ensure();
      this.repo = repo;
      this.indexLoaded = false;
      this.index = null;
    }
    return this.repo;
  }

  /** The workspace index, checked against the repository once per load. */
  private async currentIndex(repo: GitSnapshotRepo): Promise<WorkspaceIndex | null> {
    if (!this.indexLoaded) {
      this.indexLoaded = true;
      const loaded = loadWorkspaceIndex(repo.indexFile, this.context.root);
      this.index = loaded !== null && (await repo.resolveCommit(loaded.ref)) === loaded.ref ? loaded : null;
    }
    return this.index;
  }

  private setIndex(repo: GitSnapshotRepo, index: WorkspaceIndex): void {
    this.index = index;
    this.indexLoaded = true;
    try {
      saveWorkspaceIndex(repo.indexFile, this.context.root, index, "binary");
    } catch {
      // The index only saves work; without it the next process re-reads the files.
    }
  }

  /**
   * Walk the workspace, setting aside the leaves `index` cannot vouch for: with the
   * `find` walk started `ahead` when it succeeds, else here or on the scan threads.
   */
  private async scan(index: WorkspaceIndex | null, ahead: FindWalk | null = null): Promise<IndexedScan> {
    const options = { excludeTopLevelPrefix: STAGING_PREFIX, startPoolLater: true };
    const found = ahead === null ? null : await ahead.collect(index);
    return found !== null ? walkedElsewhere(found, options) : scanWorkspaceFast(this.rootBytes, index, options);
  }

  /**
   * The first walk of a big workspace in this process (no scan threads yet) is done by
   * `find` (find-walk.ts), started at once: it then runs on the other core while the index
   * loads and `cat-file` starts, and this thread never builds a `Stats` per file. `find` is
   * told the scan time of the index (read from the file's first bytes when it is not loaded
   * yet), so it prints only what that index cannot vouch for. Later walks use the scan
   * threads that the first one starts when its operation is over, once they are up (a
   * restore right after the first would otherwise wait for their start).
   */
  /**
   * The scan time of the index a walk ahead will be compared with (undefined: compare
   * every entry, see find-walk.ts); null when no walk ahead is wanted.
   */
  private walkAheadSince(gitDir: string): { since: number | undefined } | null {
    if (scanPoolReady()) return null;
    const head = this.indexLoaded
      ? this.index === null
        ? null
        : { count: this.index.entries.size, scanStartedAtMs: this.index.scanStartedAtMs }
      : readIndexHead(GitSnapshotRepo.indexFileOf(gitDir));
    if (head === null || head.count < PARALLEL_SCAN_MIN_ENTRIES) return null;
    return { since: ctimesBoundIndex(this.rootBytes) ? head.scanStartedAtMs : undefined };
  }

  private startWalkAhead(gitDir: string, ahead = this.walkAheadSince(gitDir)): FindWalk | null {
    return ahead === null ? null : FindWalk.start(this.rootBytes, { excludeTopLevelPrefix: STAGING_PREFIX, ...(ahead.since === undefined ? {} : { unchangedSince: ahead.since }) });
  }

  /** The object reader of `repo`, and the walk ahead (when wanted) started with it: one process start for both. */
  private startReaderAndWalk(repo: GitSnapshotRepo): { objects: GitObjectReader; walk: FindWalk | null } {
    const ahead = this.walkAheadSince(repo.gitDir);
    if (ahead === null) return { objects: new GitObjectReader(repo.git), walk: null };
    if (ahead.since === undefined) return { walk: this.startWalkAhead(repo.gitDir, ahead), objects: new GitObjectReader(repo.git) };
    const { child, walk } = FindWalk.besideGit(
      this.rootBytes,
      { excludeTopLevelPrefix: STAGING_PREFIX, unchangedSince: ahead.since },
      (prelude, env) => repo.git.spawnAfterShell(prelude, env, GitObjectReader.ARGS),
      () => repo.git.spawn(GitObjectReader.ARGS),
    );
    return { objects: new GitObjectReader(repo.git, child), walk };
  }

  async capture(draft: SnapshotDraft): Promise<FilesystemSnapshot> {
    let repo: GitSnapshotRepo;
    try {
      repo = await this.ensureRepo();
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw new SnapshotCreationError(`Failed to create snapshot: cannot prepare the git directory: ${message(error)}`, { gitDir: this.gitDirPath }, { cause: error });
    }
    const base = await this.currentIndex(repo);
    let scan: IndexedScan;
    try {
      scan = await this.scan(base);
    } catch (error) {
      throw new SnapshotCreationError(`Failed to create snapshot: ${message(error)}`, { root: this.context.root }, { cause: error });
    }
    const reader = new LeafReader(this.rootBytes);
    // fileCount/totalBytes for the trailer, written before the files are read: from the scan.
    const meta: CommitMeta = { ...draft, fileCount: scan.leafCount, totalBytes: scan.totalBytes, emptyDirs: emptyDirsOf(scan), perms: unusualPerms(scan) };
    repo.removeStaleRefLocks();
    const writer = FastImportWriter.start(repo.git);
    repo.noteRefWriter(writer.pid);
    let commit: string;
    let read: ReadLeaves;
    const missing = scan.missing;
    let changed = missing.length;
    try {
      await writer.begin({ ref: `${SNAPSHOT_REF_PREFIX}${draft.snapshotId}`, message: encodeCommitMessage(meta), time: Date.parse(draft.createdAt) / 1000, parent: base?.ref ?? null });
      // Deletions first: a path that turned from file into directory (or back) is then free.
      for (const p of missing) await writer.delete(p);
      read = await readUntrustedLeaves(scan, reader, async (p, hashed) => {
        const mode = gitModeOf(hashed.stat.kind, hashed.stat.perm);
        const previous = base?.entries.get(p);
        if (previous !== undefined && previous.oid === hashed.oid && gitModeOf(previous.kind, previous.perm) === mode) return;
        changed += 1;
        if (hashed.data !== null) await writer.modify(p, mode, hashed.data);
        else await writer.modifyStreamed(p, mode, hashed.stat.size, (sink) => reader.stream(p, hashed, sink));
      });
      for (const p of read.vanished) if (base?.entries.has(p)) await writer.delete(p);
      commit = await writer.finish([BASE_REF]);
      repo.clearRefWriter();
      this.lastStats = { operation: "capture", leaves: scan.leafCount, read: read.changed.size, changed };
    } catch (error) {
      // The noted writer stays noted: if it died holding ref locks, the next capture removes them.
      await writer.abort();
      repo.removeCrashReports();
      if (error instanceof ScanError || (error instanceof Error && error.name === "LeafChangedError")) {
        throw new SnapshotCreationError(`Failed to create snapshot: ${message(error)}`, { root: this.context.root }, { cause: error });
      }
      throw new SnapshotCreationError(`Failed to create snapshot commit: ${message(error)}`, { gitDir: repo.gitDir }, { cause: error });
    }
    // The commit's leaves: the base's, minus what went, plus what was read (the base's map
    // is taken over: the base index is replaced below).
    // A packed index (as loaded) becomes a map at the first capture of a process: each
    // capture saves the whole index, and rows read in place would be made into objects
    // at every save rather than once.
    const entries = base === null ? new Map<string, IndexEntry>() : base.entries instanceof PackedIndexEntries ? new Map(base.entries) : base.entries;
    for (const p of missing) entries.delete(p);
    for (const p of read.vanished) entries.delete(p);
    for (const [p, entry] of read.changed) entries.set(p, entry);
    const treeDirs = read.vanished.length === 0 ? scan.dirsWithLeaves : undefined; // rare race: derive them from the leaves
    this.setIndex(repo, { ref: commit, scanStartedAtMs: scan.startedAtMs, entries, ...(treeDirs === undefined ? {} : { treeDirs }) });
    this.snapshotsSinceCompact += 1;
    if (this.snapshotsSinceCompact >= COMPACT_EVERY) {
      this.snapshotsSinceCompact = 0;
      await repo.maybeCompact().catch(() => undefined);
    }
    return gitRecord(meta, commit, this.context.root, repo.gitDir);
  }

  /** The repository a snapshot lives in; adopts the snapshot's git dir when we have none yet. */
  private async repoFor(snapshot: FilesystemSnapshot, checkGit = true): Promise<GitSnapshotRepo> {
    const wanted = snapshot.gitDir ? path.resolve(snapshot.gitDir) : null;
    if (wanted !== null && wanted !== this.gitDirPath) {
      if (this.repo === null && (this.gitDirPath === null || !existsDir(this.gitDirPath))) {
        this.gitDirPath = wanted;
      } else {
        // Another filesystem's repository: read from it, leave it as it is.
        if (checkGit) await requireGit();
        if (!existsDir(wanted)) throw new SnapshotError(`the git directory ${wanted} does not exist`, { gitDir: wanted });
        return new GitSnapshotRepo(wanted, this.context.root);
      }
    }
    if (this.gitDirPath === null) throw new SnapshotIncompatibleError("The snapshot names no git directory and this filesystem has none", { snapshotId: snapshot.snapshotId });
    return this.ensureRepo(checkGit);
  }

  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    const fail = (reason: string, cause?: unknown): SnapshotRestoreError =>
      new SnapshotRestoreError(`Failed to restore snapshot ${snapshot.snapshotId}: ${reason}`, { snapshotId: snapshot.snapshotId, commitRef: snapshot.commitRef }, { cause });
    if (!isCommitId(snapshot.commitRef)) throw fail(`${JSON.stringify(snapshot.commitRef)} is not a git commit id`);
    const gitDir = snapshot.gitDir ?? this.gitDirPath;
    if (gitDir === null || !existsDir(gitDir)) throw fail(`the git directory ${gitDir ?? "(none)"} does not exist`);
    let repo: GitSnapshotRepo;
    try {
      // git is checked only when the restore fails (a first restore in a process would
      // otherwise wait for `git --version`, then for cat-file).
      repo = await this.repoFor(snapshot, false);
    } catch (error) {
      if (error instanceof SnapshotIncompatibleError) throw error;
      throw fail((await gitMissingReason()) ?? message(error), error);
    }
    const ours = repo === this.repo;
    const { objects, walk } = this.startReaderAndWalk(repo);
    try {
      const target = readSnapshotCommit(objects, snapshot.snapshotId, snapshot.commitRef).then((found) => {
        if (found === "missing") throw fail(`commit ${snapshot.commitRef} is not in ${repo.gitDir}`);
        // A released (pruned) snapshot stays unrestorable even before git collects its objects.
        if (found === "released") throw fail(`the snapshot was released (no ${SNAPSHOT_REF_PREFIX}${snapshot.snapshotId} pointing at ${snapshot.commitRef} in ${repo.gitDir})`);
        return found;
      });
      const { commit: found, index, base, changes, scan, read } = await this.compareWorkspace(repo, objects, snapshot.commitRef, target, walk);
      const plan = planGitRestore({ scan, index, read, changes, baseMeta: base?.meta ?? null, targetMeta: found.meta });
      await applyRestorePlan(this.context.root, plan, (staging) => stageBlobs(objects, staging, plan.puts, plan.targets), this.context.treeApply);
      this.lastStats = { operation: "restore", leaves: scan.leafCount, read: read.changed.size, changed: planSize(plan) };
      // The workspace now mirrors the commit. The index stays in memory only: the file on
      // disk still describes an older commit consistently, and a new process merely reads
      // again the files this restore wrote.
      if (ours) {
        this.index = plan.nextIndex(this.rootBytes, found.commit, scan.startedAtMs);
        this.indexLoaded = true;
      }
    } catch (error) {
      if (error instanceof SnapshotRestoreError) throw error;
      const reason = error instanceof Error && error.name === "MissingObjectError" ? `the snapshot is corrupt (${message(error)})` : message(error);
      throw fail((await gitMissingReason()) ?? reason, error);
    } finally {
      walk?.cancel();
      await objects.close().catch(() => objects.destroy());
    }
  }

  /**
   * The workspace against a commit (`pending`, already requested from `objects`): the walk
   * against the index, the files the index cannot vouch for, and the tree changes from the
   * commit the index mirrors to this one. Both commits are requested before the walk, so
   * the cat-file process starts and answers while the walk runs (and `walk`, when started
   * ahead, runs while the index loads). Without a usable index everything is compared.
   */
  private async compareWorkspace(repo: GitSnapshotRepo, objects: GitObjectReader, commitRef: string, pending: Promise<SnapshotCommit>, walk: FindWalk | null): Promise<WorkspaceComparison> {
    pending.catch(() => undefined); // awaited below; not unhandled while the walk runs
    // An index not checked yet is checked here, through the cat-file process already running,
    // rather than by a `git rev-parse` of its own before the walk (a process start saved on
    // the first restore or diff of a process).
    const unchecked = repo === this.repo && !this.indexLoaded;
    let index = repo !== this.repo ? null : unchecked ? loadWorkspaceIndex(repo.indexFile, this.context.root) : this.index;
    const loaded = index;
    const mirrored = loaded === null ? Promise.resolve(null) : loaded.ref === commitRef ? pending : readCommit(objects, loaded.ref);
    // The tree changes need the two commits only: read while the walk runs.
    const changesAhead = Promise.all([pending, mirrored]).then(([commit, base]) => (loaded !== null && base === null ? null : treeChanges(objects, commit.tree, base?.tree ?? null)));
    changesAhead.catch(() => undefined);
    let scan = await this.scan(index, walk);
    const commit = await pending;
    const base = await mirrored;
    let changes = await changesAhead;
    if (index !== null && (base === null || changes === null)) {
      // The index mirrors a commit this repository lacks: compare everything.
      index = null;
      scan = await this.scan(null);
      changes = await treeChanges(objects, commit.tree, null);
    }
    if (unchecked) {
      this.index = index;
      this.indexLoaded = true;
    }
    const read = await readUntrustedLeaves(scan, new LeafReader(this.rootBytes));
    return { commit, index, base: index === null ? null : base, changes: changes as TreeChanges, scan, read };
  }

  async diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    const fail = (reason: string, id = base.snapshotId): SnapshotError => new SnapshotError(`Cannot diff snapshot ${id}: ${reason}`, { snapshotId: id });
    if (target !== null && target.strategy !== "git") throw new SnapshotIncompatibleError(`Cannot diff a git snapshot with a ${target.strategy} snapshot`, { snapshotId: target.snapshotId });
    let repo: GitSnapshotRepo;
    try {
      repo = await this.repoFor(base);
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw fail(message(error));
    }
    const objects = new GitObjectReader(repo.git);
    let walk: FindWalk | null = null;
    try {
      const from = await readCommit(objects, base.commitRef);
      if (from === null) throw fail(`commit ${base.commitRef} is not in ${repo.gitDir}`);
      if (target !== null) {
        const to = await readCommit(objects, target.commitRef);
        if (to === null) throw fail(`commit ${target.commitRef} is not in ${repo.gitDir}`, target.snapshotId);
        const changes = await treeChanges(objects, to.tree, from.tree);
        const added: string[] = [];
        const modified: string[] = [];
        const deleted: string[] = [];
        for (const [p, leaf] of changes.leaves) {
          if (leaf === null) deleted.push(p);
          else (changes.existed.has(p) ? modified : added).push(p);
        }
        const targetCount = to.meta?.fileCount ?? target.fileCount;
        return finishDiff(added, modified, deleted, targetCount - added.length - modified.length);
      }
      // Against the workspace: both sides as changes from the commit the index mirrors.
      walk = this.startWalkAhead(repo.gitDir);
      const { index, base: mirrored, changes, scan, read } = await this.compareWorkspace(repo, objects, from.commit, Promise.resolve(from), walk);
      const result = diffSnapshotWithWorkspace({ scan, index, read, changes, baseMeta: mirrored?.meta ?? null, targetMeta: from.meta });
      return finishDiff(result.added, result.modified, result.deleted, result.unchangedCount);
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw new SnapshotError(`Cannot diff snapshot ${base.snapshotId}: ${message(error)}`, { snapshotId: base.snapshotId }, { cause: error });
    } finally {
      walk?.cancel();
      await objects.close().catch(() => objects.destroy());
    }
  }

  async release(snapshots: readonly FilesystemSnapshot[], options: ReleaseOptions = {}): Promise<void> {
    const byGitDir = new Map<string, string[]>();
    for (const snapshot of snapshots) {
      const gitDir = snapshot.gitDir ?? this.gitDirPath;
      if (gitDir !== null) byGitDir.set(gitDir, [...(byGitDir.get(gitDir) ?? []), snapshot.snapshotId]);
    }
    for (const [gitDir, ids] of byGitDir) {
      if (!options.deferCollection || gitDir !== this.gitDirPath) {
        await releaseGitSnapshots(gitDir, ids);
        continue;
      }
      // Retention releases one snapshot per new one: a whole `git gc` each time would cost more
      // than the snapshot. The refs go now (the snapshots are unrestorable at once), the
      // objects with the gc that every few releases run.
      this.releasedSinceCollection += await releaseGitSnapshots(gitDir, ids, { collect: false });
      if (this.releasedSinceCollection >= RELEASES_PER_COLLECTION) {
        this.releasedSinceCollection = 0;
        await (await this.ensureRepo()).collectGarbage();
      }
    }
  }

  async cleanup(): Promise<void> {
    if (this.gitDirPath !== null) rmSync(this.gitDirPath, { recursive: true, force: true });
    this.repo = null;
    this.index = null;
    this.indexLoaded = false;
  }

  async list(): Promise<FilesystemSnapshot[]> {
    if (this.gitDirPath === null || !existsDir(this.gitDirPath)) return [];
    const repo = await this.ensureRepo();
    const records: FilesystemSnapshot[] = [];
    for (const [, commit] of await repo.snapshotRefs()) {
      const meta = await repo.readMeta(commit);
      if (meta === null) continue;
      records.push(gitRecord(meta, commit, this.context.root, repo.gitDir));
    }
    return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }
}


interface WorkspaceComparison {
  /** The commit compared with. */
  readonly commit: SnapshotCommit;
  /** The index the walk was compared with, and the commit it mirrors (null: none usable). */
  readonly index: WorkspaceIndex | null;
  readonly base: SnapshotCommit | null;
  /** From `base`'s tree (or the empty tree) to `commit`'s. */
  readonly changes: TreeChanges;
  readonly scan: IndexedScan;
  readonly read: ReadLeaves;
}

/** The message of the failed `git --version` check, or null when git runs. */
async function gitMissingReason(): Promise<string | null> {
  return requireGit().then(
    () => null,
    (error: unknown) => message(error),
  );
}

function existsDir(dir: string): boolean {
  try {
    return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** Directories without any leaf below: git trees cannot hold them, the trailer does. */
function emptyDirsOf(scan: IndexedScan): string[] {
  return [...scan.dirs.keys()].filter((dir) => !scan.dirsWithLeaves.has(dir)).sort(compareBytePaths);
}

/** Permission bits a git mode does not say: files other than 0644/0755, directories other than 0755. */
function unusualPerms(scan: IndexedScan): [string, number][] {
  const perms: [string, number][] = [];
  for (const [dir, perm] of scan.dirs) if (perm !== defaultPerm("dir")) perms.push([dir, perm]);
  // The scan lists the files whose bits are neither 0644 nor 0755: exactly those whose git mode does not say them.
  perms.push(...scan.oddPerms);
  return perms.sort((a, b) => compareBytePaths(a[0], b[0]));
}

/** The snapshot record of a commit, from its trailer. */
function gitRecord(meta: CommitMeta, commit: string, root: string, gitDir: string): FilesystemSnapshot {
  const { snapshotId, createdAt, parentId, tag, fileCount, totalBytes } = meta;
  return { snapshotId, createdAt, parentId, tag, fileCount, totalBytes, backend: "host", strategy: "git", commitRef: commit, rootPath: root, gitDir, storagePath: null };
}
