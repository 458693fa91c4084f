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

import { SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotRestoreError, WinkError } from "../../errors.js";
import { STAGING_PREFIX } from "../../filesystem/host/tree-apply.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../types.js";
import { parentBytePath, toBytePath } from "./byte-paths.js";
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
  type TreeLeaf,
} from "./git-repo.js";
import { diffLeaves } from "./leaf-diff.js";
import { identifyLeaves } from "./leaf-identity.js";
import { LeafReader } from "./leaf-reader.js";
import { readCommitTree, readSnapshotCommit, readTreeLeaves, stageBlobs, targetFromTree } from "./git-target.js";
import { applyRestorePlan, indexAfterRestore, planRestore, planSize } from "./restore-plan.js";
import type { HostSnapshotStrategy, OperationStats, SnapshotDraft, StrategyContext } from "./strategy.js";
import { loadWorkspaceIndex, saveWorkspaceIndex, type IndexEntry, type WorkspaceIndex } from "./workspace-index.js";
import { releaseGitSnapshots } from "./release.js";
import { scanWorkspace, ScanError, type WorkspaceScan } from "./workspace-scan.js";

/** Run `git gc --auto` after this many snapshots (packs the loose objects small snapshots leave). */
const COMPACT_EVERY = 50;

export interface GitStrategyOptions {
  /** External git directory; default: a new `wink-git-*` directory under the system temp dir, made on first use. */
  readonly gitDir?: string | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function identityOf(kind: "file" | "symlink", perm: number, oid: string): string {
  return `${gitModeOf(kind, perm)} ${oid}`;
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

  private async ensureRepo(): Promise<GitSnapshotRepo> {
    await requireGit();
    if (this.gitDirPath === null) this.gitDirPath = mkdtempSync(path.join(tmpdir(), "wink-git-"));
    const inside = path.relative(this.context.root, this.gitDirPath);
    if (inside === "" || (!inside.startsWith("..") && !path.isAbsolute(inside))) {
      throw new SnapshotIncompatibleError(`The git directory ${this.gitDirPath} must be outside the workspace ${this.context.root}`, { gitDir: this.gitDirPath });
    }
    if (this.repo === null || this.repo.gitDir !== this.gitDirPath) {
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
      saveWorkspaceIndex(repo.indexFile, this.context.root, index);
    } catch {
      // The index only saves work; without it the next process re-reads the files.
    }
  }

  private scan(): WorkspaceScan {
    return scanWorkspace(this.rootBytes, { excludeTopLevelPrefix: STAGING_PREFIX });
  }

  async capture(draft: SnapshotDraft): Promise<FilesystemSnapshot> {
    let repo: GitSnapshotRepo;
    try {
      repo = await this.ensureRepo();
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw new SnapshotCreationError(`Failed to create snapshot: cannot prepare the git directory: ${message(error)}`, { gitDir: this.gitDirPath }, { cause: error });
    }
    let scan: WorkspaceScan;
    try {
      scan = this.scan();
    } catch (error) {
      throw new SnapshotCreationError(`Failed to create snapshot: ${message(error)}`, { root: this.context.root }, { cause: error });
    }
    const base = await this.currentIndex(repo);
    const baseEntries = base?.entries ?? new Map<string, IndexEntry>();
    const reader = new LeafReader(this.rootBytes);

    const perms: [string, number][] = [];
    const dirsWithLeaves = new Set<string>();
    for (const leafPath of scan.leaves.keys()) {
      for (let d = parentBytePath(leafPath); d !== "" && !dirsWithLeaves.has(d); d = parentBytePath(d)) dirsWithLeaves.add(d);
    }
    const emptyDirs = [...scan.dirs.keys()].filter((d) => !dirsWithLeaves.has(d)).sort();
    for (const [dir, perm] of scan.dirs) if (perm !== defaultPerm("dir")) perms.push([dir, perm]);

    // The counts go into the commit message, written before the files are read, so they
    // come from the scan (a file vanishing meanwhile leaves them one high).
    const counts = { fileCount: 0, totalBytes: 0 };
    for (const stat of scan.leaves.values()) {
      counts.fileCount += 1;
      counts.totalBytes += stat.size;
    }
    const writer = FastImportWriter.start(repo.git);
    let commit: string;
    let entries: Map<string, IndexEntry>;
    let changed = 0;
    try {
      // Deletions first: a path that turned from file into directory (or back) is then free.
      const deleted = new Set<string>();
      for (const p of baseEntries.keys()) {
        if (!scan.leaves.has(p)) deleted.add(p);
      }
      for (const [p, stat] of scan.leaves) {
        const mode = gitModeOf(stat.kind, stat.perm);
        if (stat.kind === "file" && stat.perm !== defaultPerm(mode)) perms.push([p, stat.perm]);
      }
      perms.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const meta: CommitMeta = { ...draft, ...counts, emptyDirs, perms };
      await writer.begin({
        ref: `${SNAPSHOT_REF_PREFIX}${draft.snapshotId}`,
        message: encodeCommitMessage(meta),
        time: Date.parse(draft.createdAt) / 1000,
        parent: base?.ref ?? null,
      });
      for (const p of deleted) await writer.delete(p);
      changed += deleted.size;
      const identified = await identifyLeaves(scan, base, reader, async (p, hashed) => {
        const mode = gitModeOf(hashed.stat.kind, hashed.stat.perm);
        const previous = baseEntries.get(p);
        if (previous !== undefined && previous.oid === hashed.oid && gitModeOf(previous.kind, previous.perm) === mode) return;
        changed += 1;
        if (hashed.data !== null) await writer.modify(p, mode, hashed.data);
        else await writer.modifyStreamed(p, mode, hashed.stat.size, (sink) => reader.stream(p, hashed, sink));
      });
      entries = identified.entries;
      for (const p of scan.leaves.keys()) {
        if (!entries.has(p) && baseEntries.has(p) && !deleted.has(p)) await writer.delete(p); // vanished while hashing
      }
      commit = await writer.finish([BASE_REF]);
      this.lastStats = { operation: "capture", leaves: scan.leaves.size, read: identified.hashedCount, changed };
    } catch (error) {
      await writer.abort();
      repo.removeCrashReports();
      if (error instanceof ScanError || (error instanceof Error && error.name === "LeafChangedError")) {
        throw new SnapshotCreationError(`Failed to create snapshot: ${message(error)}`, { root: this.context.root }, { cause: error });
      }
      throw new SnapshotCreationError(`Failed to create snapshot commit: ${message(error)}`, { gitDir: repo.gitDir }, { cause: error });
    }
    this.setIndex(repo, { ref: commit, scanStartedAtMs: scan.startedAtMs, entries });
    this.snapshotsSinceCompact += 1;
    if (this.snapshotsSinceCompact >= COMPACT_EVERY) {
      this.snapshotsSinceCompact = 0;
      await repo.maybeCompact().catch(() => undefined);
    }
    return {
      ...draft,
      fileCount: counts.fileCount,
      totalBytes: counts.totalBytes,
      backend: "host",
      strategy: "git",
      commitRef: commit,
      rootPath: this.context.root,
      gitDir: repo.gitDir,
      storagePath: null,
    };
  }

  /** The repository a snapshot lives in; adopts the snapshot's git dir when we have none yet. */
  private async repoFor(snapshot: FilesystemSnapshot): Promise<GitSnapshotRepo> {
    const wanted = snapshot.gitDir ? path.resolve(snapshot.gitDir) : null;
    if (wanted !== null && wanted !== this.gitDirPath) {
      if (this.repo === null && (this.gitDirPath === null || !existsDir(this.gitDirPath))) {
        this.gitDirPath = wanted;
      } else {
        // Another filesystem's repository: read from it, leave it as it is.
        await requireGit();
        if (!existsDir(wanted)) throw new SnapshotError(`the git directory ${wanted} does not exist`, { gitDir: wanted });
        return new GitSnapshotRepo(wanted, this.context.root);
      }
    }
    if (this.gitDirPath === null) throw new SnapshotIncompatibleError("The snapshot names no git directory and this filesystem has none", { snapshotId: snapshot.snapshotId });
    return this.ensureRepo();
  }

  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    const fail = (reason: string, cause?: unknown): SnapshotRestoreError =>
      new SnapshotRestoreError(`Failed to restore snapshot ${snapshot.snapshotId}: ${reason}`, { snapshotId: snapshot.snapshotId, commitRef: snapshot.commitRef }, { cause });
    if (!isCommitId(snapshot.commitRef)) throw fail(`${JSON.stringify(snapshot.commitRef)} is not a git commit id`);
    const gitDir = snapshot.gitDir ?? this.gitDirPath;
    if (gitDir === null || !existsDir(gitDir)) throw fail(`the git directory ${gitDir ?? "(none)"} does not exist`);
    let repo: GitSnapshotRepo;
    try {
      repo = await this.repoFor(snapshot);
    } catch (error) {
      if (error instanceof SnapshotIncompatibleError) throw error;
      throw fail(message(error), error);
    }
    const ours = repo === this.repo;
    const reader = new GitObjectReader(repo.git);
    try {
      const found = await readSnapshotCommit(reader, snapshot.snapshotId, snapshot.commitRef);
      if (found === "missing") throw fail(`commit ${snapshot.commitRef} is not in ${repo.gitDir}`);
      // A released (pruned) snapshot stays unrestorable even before git collects its objects.
      if (found === "released") throw fail(`the snapshot was released (no ${SNAPSHOT_REF_PREFIX}${snapshot.snapshotId} pointing at ${snapshot.commitRef} in ${repo.gitDir})`);
      const index = ours ? await this.currentIndex(repo) : null;
      let base: { tree: string; leaves: ReadonlyMap<string, IndexEntry> } | null = null;
      if (index !== null) {
        const tree = index.ref === found.commit ? found.tree : await readCommitTree(reader, index.ref);
        if (tree !== null) base = { tree, leaves: index.entries };
      }
      const target = targetFromTree(await readTreeLeaves(reader, found.tree, base), found.meta);
      const scan = this.scan();
      const current = await identifyLeaves(scan, index, new LeafReader(this.rootBytes));
      const plan = planRestore({ leaves: current.entries, dirs: scan.dirs, others: scan.others }, target);
      await applyRestorePlan(this.context.root, plan, (staging) => stageBlobs(reader, staging, plan.puts, target), this.context.treeApply);
      this.lastStats = { operation: "restore", leaves: scan.leaves.size, read: current.hashedCount, changed: planSize(plan) };
      // The workspace now mirrors the commit. The index is kept in memory only: the one on
      // disk still describes an older commit consistently, and a new process merely re-reads
      // the files this restore wrote.
      if (ours) {
        const entries = indexAfterRestore(this.rootBytes, target.leaves, current.entries, plan.puts, (_p, leaf) => leaf.oid);
        this.index = { ref: found.commit, scanStartedAtMs: scan.startedAtMs, entries };
      }
    } catch (error) {
      if (error instanceof SnapshotRestoreError) throw error;
      const reason = error instanceof Error && error.name === "MissingObjectError" ? `the snapshot is corrupt (${message(error)})` : message(error);
      throw fail(reason, error);
    } finally {
      await reader.close().catch(() => reader.destroy());
    }
  }

  async diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    try {
      const repo = await this.repoFor(base);
      const baseCommit = await repo.resolveCommit(base.commitRef);
      if (baseCommit === null) throw new SnapshotError(`Cannot diff: commit ${base.commitRef} is not in ${repo.gitDir}`, { snapshotId: base.snapshotId });
      if (target !== null) {
        if (target.strategy !== "git") throw new SnapshotIncompatibleError(`Cannot diff a git snapshot with a ${target.strategy} snapshot`, { snapshotId: target.snapshotId });
        const targetCommit = await repo.resolveCommit(target.commitRef);
        if (targetCommit === null) throw new SnapshotError(`Cannot diff: commit ${target.commitRef} is not in ${repo.gitDir}`, { snapshotId: target.snapshotId });
        const [baseTree, targetTree] = await Promise.all([repo.listTree(baseCommit), repo.listTree(targetCommit)]);
        return diffLeaves(treeIdentities(baseTree), treeIdentities(targetTree));
      }
      const baseTree = await repo.listTree(baseCommit);
      const scan = this.scan();
      const index = repo === this.repo ? await this.currentIndex(repo) : null;
      const current = await identifyLeaves(scan, index, new LeafReader(this.rootBytes));
      const now = new Map<string, string>();
      for (const [p, entry] of current.entries) now.set(p, identityOf(entry.kind, entry.perm, entry.oid));
      return diffLeaves(treeIdentities(baseTree), now);
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw new SnapshotError(`Cannot diff snapshot ${base.snapshotId}: ${message(error)}`, { snapshotId: base.snapshotId }, { cause: error });
    }
  }

  async release(snapshots: readonly FilesystemSnapshot[]): Promise<void> {
    const byGitDir = new Map<string, string[]>();
    for (const snapshot of snapshots) {
      const gitDir = snapshot.gitDir ?? this.gitDirPath;
      if (gitDir !== null) byGitDir.set(gitDir, [...(byGitDir.get(gitDir) ?? []), snapshot.snapshotId]);
    }
    for (const [gitDir, ids] of byGitDir) await releaseGitSnapshots(gitDir, ids);
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
      records.push({
        snapshotId: meta.snapshotId,
        createdAt: meta.createdAt,
        parentId: meta.parentId,
        tag: meta.tag,
        fileCount: meta.fileCount,
        totalBytes: meta.totalBytes,
        backend: "host",
        strategy: "git",
        commitRef: commit,
        rootPath: this.context.root,
        gitDir: repo.gitDir,
        storagePath: null,
      });
    }
    return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }
}

function treeIdentities(tree: ReadonlyMap<string, TreeLeaf>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [p, leaf] of tree) if (leaf.mode !== "160000") out.set(p, `${leaf.mode} ${leaf.oid}`);
  return out;
}

function existsDir(dir: string): boolean {
  try {
    return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
