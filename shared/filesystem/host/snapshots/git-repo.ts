/**
 * The external bare repository that holds a workspace's git snapshots.
 *
 * Layout: one commit per snapshot, kept alive by `refs/wink/snapshots/<snapshotId>`; the
 * commit's tree is the workspace byte for byte (files 100644/100755, symlinks 120000,
 * `.git` directories as ordinary trees). What a git tree cannot say — empty directories
 * and permission bits other than 0644/0755 — plus the snapshot record travel in the
 * commit message as one `Wink-Snapshot: <json>` trailer, so a commit alone is enough to
 * restore and to rebuild its record.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

import { processAlive } from "../../process-alive.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { FORCED_ATTRIBUTES, GitCommandError, GitProcess, WINK_SUBDIR } from "./git-process.js";

export const SNAPSHOT_REF_PREFIX = "refs/wink/snapshots/";
/** Keeps the commit the workspace index mirrors alive: it is the parent of the next snapshot, even when its own snapshot was pruned. */
export const BASE_REF = "refs/wink/base";
const META_TRAILER = "Wink-Snapshot: ";

/** A leaf of a commit's tree. */
export interface TreeLeaf {
  /** "100644", "100755", "120000" (or "160000" for a gitlink made by other tools). */
  readonly mode: string;
  readonly oid: string;
}

/** What the commit message carries besides the tree. */
export interface CommitMeta extends Pick<FilesystemSnapshot, "snapshotId" | "createdAt" | "parentId" | "tag" | "fileCount" | "totalBytes"> {
  /** Empty directories (byte paths). */
  readonly emptyDirs: readonly string[];
  /** [byte path, permission bits] for files and directories whose bits differ from the default. */
  readonly perms: readonly (readonly [string, number])[];
}

export function isCommitId(value: string): boolean {
  return /^[0-9a-f]{40}$/.test(value);
}

/** The default permission bits for a git mode / a directory. */
export function defaultPerm(gitMode: string | "dir"): number {
  return gitMode === "100755" || gitMode === "dir" ? 0o755 : 0o644;
}

/** git mode of a leaf from its kind and permission bits. */
export function gitModeOf(kind: "file" | "symlink", perm: number): string {
  if (kind === "symlink") return "120000";
  return perm & 0o100 ? "100755" : "100644";
}

export function encodeCommitMessage(meta: CommitMeta): string {
  const title = meta.tag ?? `snapshot ${meta.snapshotId}`;
  return `${title}\n\n${META_TRAILER}${JSON.stringify(meta)}\n`;
}

/** The trailer of a snapshot commit message, or null when it has none (not ours). */
export function decodeCommitMessage(message: string): CommitMeta | null {
  const at = message.lastIndexOf(`\n${META_TRAILER}`);
  if (at < 0) return null;
  const line = message.slice(at + 1 + META_TRAILER.length).split("\n", 1)[0] ?? "";
  try {
    const value = JSON.parse(line) as Partial<CommitMeta>;
    if (typeof value.snapshotId !== "string" || !Array.isArray(value.emptyDirs) || !Array.isArray(value.perms)) return null;
    return value as CommitMeta;
  } catch {
    return null;
  }
}

export class GitSnapshotRepo {
  readonly gitDir: string;
  readonly git: GitProcess;
  readonly indexFile: string;

  constructor(gitDir: string, workTree: string | null) {
    this.gitDir = gitDir;
    this.git = new GitProcess(gitDir, workTree);
    this.indexFile = GitSnapshotRepo.indexFileOf(gitDir);
  }

  /**
   * Where the workspace index (stat cache) of the repository at `gitDir` is kept, in binary
   * form (workspace-index-binary.ts). An `index.json` left by an older version, or a binary
   * index of an older layout, is not read: the first snapshot re-reads the workspace once
   * and writes this file.
   */
  static indexFileOf(gitDir: string): string {
    return path.join(gitDir, "wink", "index.bin");
  }

  /** Create the bare repository if `gitDir` is missing or empty; adopt it if it already is one. */

  async ensure(): Promise<void> {
    const exists = existsSync(this.gitDir);
    const empty = !exists || readdirSync(this.gitDir).length === 0;
    if (!empty && existsSync(path.join(this.gitDir, "HEAD")) && existsSync(path.join(this.gitDir, "objects"))) {
      this.writeAttributes();
      return;
    }
    if (!empty) throw new GitCommandError(["init"], null, `${this.gitDir} exists and is not a git repository`);
    mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
    const init = new GitProcess(this.gitDir, null);
    await init.run(["init", "--bare", "--quiet", "--template=", "--object-format=sha1"]);
    await init.run(["config", "core.logAllRefUpdates", "false"]);
    this.writeAttributes();
  }

  private writeAttributes(): void {
    mkdirSync(path.join(this.gitDir, "info"), { recursive: true });
    writeFileSync(path.join(this.gitDir, "info", "attributes"), FORCED_ATTRIBUTES);
  }

  /** The commit id `ref` names, or null when it is not a commit here. */
  async resolveCommit(ref: string): Promise<string | null> {
    const result = await this.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], { okCodes: [0, 1, 128] });
    const out = result.stdout.toString("latin1").trim();
    return result.exitCode === 0 && isCommitId(out) ? out : null;
  }

  async readMeta(commit: string): Promise<CommitMeta | null> {
    const result = await this.git.run(["cat-file", "commit", commit]);
    const text = result.stdout.toString("utf8");
    const body = text.indexOf("\n\n");
    return decodeCommitMessage(body < 0 ? "" : text.slice(body + 1));
  }

  /** snapshotId → commit id for every snapshot ref. */
  async snapshotRefs(): Promise<Map<string, string>> {
    const result = await this.git.run(["for-each-ref", "--format=%(objectname) %(refname)", SNAPSHOT_REF_PREFIX]);
    const refs = new Map<string, string>();
    for (const line of result.stdout.toString("latin1").split("\n")) {
      const space = line.indexOf(" ");
      if (space < 0) continue;
      refs.set(line.slice(space + 1 + SNAPSHOT_REF_PREFIX.length), line.slice(0, space));
    }
    return refs;
  }

  async deleteSnapshotRef(snapshotId: string): Promise<boolean> {
    const result = await this.git.run(["update-ref", "-d", "--", `${SNAPSHOT_REF_PREFIX}${snapshotId}`], { okCodes: [0, 1] });
    return result.exitCode === 0;
  }

  /**
   * Drop objects no ref reaches any more (after snapshot refs were deleted). Objects
   * younger than a few minutes stay: a snapshot being written by another process has not
   * pointed its ref at them yet.
   */
  async collectGarbage(): Promise<void> {
    await this.git.run(["gc", "--quiet", "--prune=5.minutes.ago"]);
  }

  /** Let git pack loose objects when there are many (cheap when there is nothing to do). */
  async maybeCompact(): Promise<void> {
    await this.git.run(["gc", "--auto", "--quiet"]);
  }

  /** Where the pid of a fast-import that may be updating refs is noted. */
  private get refWriterFile(): string {
    return path.join(this.gitDir, WINK_SUBDIR, "fast-import.pid");
  }

  /** Note the fast-import process that will update refs (see `removeStaleRefLocks`). */
  noteRefWriter(pid: number | undefined): void {
    if (pid === undefined) return;
    mkdirSync(path.dirname(this.refWriterFile), { recursive: true, mode: 0o700 });
    writeFileSync(this.refWriterFile, String(pid));
  }

  /** The noted fast-import has exited. */
  clearRefWriter(): void {
    rmSync(this.refWriterFile, { force: true });
  }

  /**
   * A fast-import killed while updating refs (kill -9 of the whole process group) leaves
   * `<ref>.lock` files, and git then refuses every later update of `refs/wink/base`. When
   * the noted writer is gone, its locks are stale: remove them. Locks of a live writer, or
   * of a git process we did not start, are left alone.
   */
  removeStaleRefLocks(): void {
    let pid: number;
    try {
      pid = Number(readFileSync(this.refWriterFile, "utf8"));
    } catch {
      return;
    }
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) return;
    const refsDir = path.join(this.gitDir, BASE_REF, "..");
    rmSync(path.join(this.gitDir, `${BASE_REF}.lock`), { force: true });
    try {
      for (const name of readdirSync(path.join(refsDir, "snapshots"))) if (name.endsWith(".lock")) rmSync(path.join(refsDir, "snapshots", name), { force: true });
    } catch {
      // no snapshot refs yet
    }
    this.clearRefWriter();
  }

  /** Remove crash reports a killed fast-import may leave behind. */
  removeCrashReports(): void {
    try {
      for (const name of readdirSync(this.gitDir)) {
        if (name.startsWith("fast_import_crash_")) rmSync(path.join(this.gitDir, name), { force: true });
      }
    } catch {
      // the directory itself is gone; nothing to tidy
    }
  }
}
