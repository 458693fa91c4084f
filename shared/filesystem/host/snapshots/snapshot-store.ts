/**
 * A persistent store of snapshot records: one JSON file per snapshot in a directory,
 * written atomically (temp file, fsync, rename, fsync of the directory), so the records a
 * session refers to survive a process restart and a crash never leaves half a record.
 * Deleting or pruning a record also frees the storage behind it (git ref, snapshot
 * directory, archive) through a releaser.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";

import { SnapshotError, SnapshotNotFoundError } from "../../../errors.js";
import { checkSnapshotId } from "../../snapshot-support.node.js";
import { releaseSnapshotStorage } from "./release.js";
import { selectSnapshotsToPrune, type PruneSelectionOptions, type SnapshotRetentionPolicy } from "../../snapshot-retention.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { errnoCode } from "../../errno.js";

/** Frees what keeps snapshots alive. */
export type SnapshotReleaser = (records: readonly FilesystemSnapshot[]) => Promise<unknown>;

export interface SnapshotStoreOptions {
  /** Default: `releaseSnapshotStorage` (host strategies; other backends are left alone). */
  readonly release?: SnapshotReleaser;
}

const RECORD_SUFFIX = ".json";

/** True when `value` has the shape of a FilesystemSnapshot record. */
export function isSnapshotRecord(value: unknown): value is FilesystemSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.snapshotId === "string" &&
    typeof r.createdAt === "string" &&
    !Number.isNaN(Date.parse(r.createdAt)) &&
    (r.parentId === null || typeof r.parentId === "string") &&
    (r.tag === null || typeof r.tag === "string") &&
    typeof r.fileCount === "number" &&
    typeof r.totalBytes === "number" &&
    typeof r.backend === "string" &&
    typeof r.strategy === "string" &&
    typeof r.commitRef === "string" &&
    typeof r.rootPath === "string"
  );
}

export class SnapshotStore {
  readonly dir: string;
  private readonly releaser: SnapshotReleaser;

  constructor(dir: string, options: SnapshotStoreOptions = {}) {
    this.dir = path.resolve(dir);
    this.releaser = options.release ?? releaseSnapshotStorage;
  }

  private fileOf(snapshotId: string): string {
    checkSnapshotId(snapshotId);
    return path.join(this.dir, `${snapshotId}${RECORD_SUFFIX}`);
  }

  /** Persist a record (replacing one with the same id). */
  async save(record: FilesystemSnapshot): Promise<void> {
    if (!isSnapshotRecord(record)) throw new SnapshotError("Not a snapshot record", { record: JSON.stringify(record)?.slice(0, 200) ?? null });
    const file = this.fileOf(record.snapshotId);
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temp = path.join(this.dir, `.${record.snapshotId}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
    const handle = await fs.open(temp, "wx", 0o600);
    try {
      await handle.writeFile(JSON.stringify(record));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    const dirHandle = await fs.open(this.dir, "r");
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  }

  /** The record of `snapshotId`; SnapshotNotFoundError when there is none. */
  async load(snapshotId: string): Promise<FilesystemSnapshot> {
    const file = this.fileOf(snapshotId);
    let text: string;
    try {
      text = await fs.readFile(file, "utf8");
    } catch (error) {
      if (errnoCode(error) === "ENOENT") throw new SnapshotNotFoundError(snapshotId);
      throw new SnapshotError(`Cannot read snapshot record ${file}: ${(error as Error).message}`, { snapshotId, file }, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new SnapshotError(`Snapshot record ${file} is not valid JSON`, { snapshotId, file }, { cause: error });
    }
    if (!isSnapshotRecord(parsed) || parsed.snapshotId !== snapshotId) throw new SnapshotError(`Snapshot record ${file} is not a snapshot record for ${snapshotId}`, { snapshotId, file });
    return parsed;
  }

  /** Every readable record, oldest first (unreadable files are skipped). */
  async list(): Promise<FilesystemSnapshot[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return [];
      throw error;
    }
    const records: FilesystemSnapshot[] = [];
    for (const name of names) {
      if (name.startsWith(".") || !name.endsWith(RECORD_SUFFIX)) continue;
      try {
        records.push(await this.load(name.slice(0, -RECORD_SUFFIX.length)));
      } catch {
        // a foreign or damaged file is not a record
      }
    }
    return records.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.snapshotId < b.snapshotId ? -1 : 1));
  }

  /** Free a snapshot's storage and forget its record; false when there was no record. */
  async delete(snapshotId: string): Promise<boolean> {
    let record: FilesystemSnapshot;
    try {
      record = await this.load(snapshotId);
    } catch (error) {
      if (error instanceof SnapshotNotFoundError) return false;
      throw error;
    }
    await this.releaser([record]);
    await fs.rm(this.fileOf(snapshotId), { force: true });
    return true;
  }

  /**
   * Apply a retention policy: storage of the pruned snapshots is freed (by `options.release`,
   * default the store's releaser), then their records go. Returns how many were pruned.
   */
  async prune(policy: SnapshotRetentionPolicy, options: PruneSelectionOptions & { release?: SnapshotReleaser } = {}): Promise<number> {
    const pruned = selectSnapshotsToPrune(await this.list(), policy, options);
    if (pruned.length === 0) return 0;
    await (options.release ?? this.releaser)(pruned);
    for (const record of pruned) await fs.rm(this.fileOf(record.snapshotId), { force: true });
    return pruned.length;
  }
}
