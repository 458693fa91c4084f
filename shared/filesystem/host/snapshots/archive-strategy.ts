/**
 * archive snapshots: one `.fs.zip` per snapshot, written and read by the filesystem's own
 * `exportArchive`/`importArchive` (so they restore into any backend), plus a small JSON
 * record beside each archive so the snapshot list survives the process:
 *
 *   <snapshotDir>/<snapshotId>.fs.zip
 *   <snapshotDir>/<snapshotId>.json
 *
 * Diffs read central directories only (sizes and CRC-32s). Symlinks and special files are
 * not archived (the archive format has no place for them), so this strategy is exact for
 * regular files, directories and permission bits only.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { diffArchives, openArchive } from "../../../archive/index.js";
import { SnapshotCreationError, SnapshotError, SnapshotIncompatibleError, SnapshotRestoreError, WinkError } from "../../../errors.js";
import type { Filesystem } from "../../protocol.js";
import { exportArchiveAtomically, restoreFailure } from "../../snapshot-support.node.js";
import type { FilesystemDiff, FilesystemSnapshot } from "../../snapshot-contract.js";
import { releaseArchiveSnapshot } from "./release.js";
import { ensureStorageDir } from "./storage-dir.js";
import type { HostSnapshotStrategy, SnapshotDraft, StrategyContext } from "./strategy.js";

export interface ArchiveStrategyOptions {
  /** Default: a new `wink-snapshots-*` directory under the system temp dir, made on first use. */
  readonly snapshotDir?: string | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ArchiveSnapshotStrategy implements HostSnapshotStrategy {
  readonly name = "archive" as const;
  /** Export/import report their own progress; no per-file stats here. */
  readonly lastStats = null;
  private readonly context: StrategyContext;
  private dir: string | null;

  constructor(context: StrategyContext, options: ArchiveStrategyOptions = {}) {
    this.context = context;
    this.dir = options.snapshotDir ? path.resolve(options.snapshotDir) : null;
  }

  get snapshotDir(): string | null {
    return this.dir;
  }

  private filesystem(): Filesystem {
    if (this.context.filesystem === null) {
      throw new SnapshotIncompatibleError("The archive snapshot strategy needs the filesystem object (HostSnapshots option `filesystem`)", { strategy: "archive" });
    }
    return this.context.filesystem;
  }

  private ensureDir(): string {
    this.dir = ensureStorageDir(this.dir, this.context.root, "wink-snapshots-", "snapshot directory");
    return this.dir;
  }


  async capture(draft: SnapshotDraft): Promise<FilesystemSnapshot> {
    const filesystem = this.filesystem();
    const dir = this.ensureDir();
    const archivePath = path.join(dir, `${draft.snapshotId}.fs.zip`);
    try {
      const summary = await exportArchiveAtomically(filesystem, archivePath, { manifestExtra: { snapshot_id: draft.snapshotId, ...(draft.tag === null ? {} : { tag: draft.tag }) } });
      const record: FilesystemSnapshot = {
        ...draft,
        fileCount: summary.fileCount,
        totalBytes: summary.totalBytes,
        backend: "host",
        strategy: "archive",
        commitRef: path.basename(archivePath),
        rootPath: this.context.root,
        gitDir: null,
        storagePath: archivePath,
      };
      const recordPath = path.join(dir, `${draft.snapshotId}.json`);
      const temp = `${recordPath}.tmp-${randomBytes(4).toString("hex")}`;
      writeFileSync(temp, JSON.stringify(record));
      renameSync(temp, recordPath);
      return record;
    } catch (error) {
      rmSync(archivePath, { force: true });
      throw new SnapshotCreationError(`Failed to create snapshot: ${message(error)}`, { archivePath, ...(error instanceof WinkError ? { causeCode: error.code } : {}) }, { cause: error });
    }
  }

  private archiveOf(snapshot: FilesystemSnapshot): string | null {
    if (snapshot.storagePath) return snapshot.storagePath;
    return this.dir === null ? null : path.join(this.dir, snapshot.commitRef);
  }

  async restore(snapshot: FilesystemSnapshot): Promise<void> {
    const archivePath = this.archiveOf(snapshot);
    if (archivePath === null || !existsSync(archivePath)) {
      throw new SnapshotRestoreError(`Failed to restore snapshot ${snapshot.snapshotId}: the archive ${archivePath ?? "(none)"} does not exist`, { snapshotId: snapshot.snapshotId });
    }
    try {
      // This strategy's own export of the workspace: its nested repositories come back too.
      await this.filesystem().importArchive(archivePath, { allowGitMetadata: true });
    } catch (error) {
      if (error instanceof SnapshotError) throw error;
      throw restoreFailure(error, snapshot.snapshotId, { snapshotId: snapshot.snapshotId, archivePath });
    }
  }

  async diff(base: FilesystemSnapshot, target: FilesystemSnapshot | null): Promise<FilesystemDiff> {
    const basePath = this.archiveOf(base);
    if (basePath === null || !existsSync(basePath)) throw new SnapshotError(`Cannot diff snapshot ${base.snapshotId}: its archive is missing`, { snapshotId: base.snapshotId });
    let targetPath = target === null ? null : this.archiveOf(target);
    let scratch: string | null = null;
    try {
      if (target === null) {
        // The current state, as the same exporter would archive it.
        scratch = mkdtempSync(path.join(tmpdir(), "wink-archive-diff-"));
        targetPath = path.join(scratch, "current.fs.zip");
        await this.filesystem().exportArchive(targetPath);
      }
      if (targetPath === null || !existsSync(targetPath)) throw new SnapshotError(`Cannot diff: the archive of snapshot ${target?.snapshotId ?? "?"} is missing`, {});
      const [a, b] = await Promise.all([openArchive(basePath), openArchive(targetPath)]);
      try {
        return diffArchives(a, b);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    } catch (error) {
      if (error instanceof WinkError) throw error;
      throw new SnapshotError(`Cannot diff snapshot ${base.snapshotId}: ${message(error)}`, { snapshotId: base.snapshotId }, { cause: error });
    } finally {
      if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
    }
  }

  async release(snapshots: readonly FilesystemSnapshot[]): Promise<void> {
    for (const snapshot of snapshots) {
      const archivePath = this.archiveOf(snapshot);
      if (archivePath !== null) releaseArchiveSnapshot(archivePath);
    }
  }

  async cleanup(): Promise<void> {
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
  }

  async list(): Promise<FilesystemSnapshot[]> {
    if (this.dir === null || !existsSync(this.dir)) return [];
    const records: FilesystemSnapshot[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".json")) continue;
      try {
        const record = JSON.parse(readFileSync(path.join(this.dir, name), "utf8")) as FilesystemSnapshot;
        if (record.strategy === "archive" && typeof record.snapshotId === "string" && existsSync(this.archiveOf(record) ?? "")) records.push(record);
      } catch {
        // a torn or foreign file: not a snapshot record
      }
    }
    return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }
}
