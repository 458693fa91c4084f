/**
 * Undo for tools that change the workspace behind the Filesystem protocol's back (a shell
 * command, a formatter, a container exec): diff the workspace before and after the tool and
 * record what changed as the tool call's pre-images.
 *
 * Two strategies:
 * - `snapshot` (default for backends with copy-on-write memory snapshots): an O(1) native
 *   snapshot before, a diff after (O(changes)), pre-images read back from the old snapshot.
 *   It sees files; an empty directory created or removed on its own is not seen.
 * - `manifest` (every other backend, e.g. host directories): a size/mtime/mode manifest of
 *   every file and directory, with each file's bytes kept (content-addressed, deduplicated)
 *   in the undo store so a pre-image exists whatever the command does. Files whose stat is
 *   unchanged since the previous call are not read again. A file rewritten with the same
 *   size and modification time is detected only when its mtime is recent (the "racy" window,
 *   as git does); directories, including empty ones, are tracked exactly.
 */
import { hasErrorCode } from "../errors.js";
import { isWithin, parentPath } from "../filesystem/paths.js";
import type { Filesystem } from "../filesystem/protocol.js";
import { isSnapshotable, type FilesystemSnapshot, type SnapshotableFilesystem } from "../filesystem/snapshot-contract.js";
import { sha256Hex } from "./body-store.node.js";
import type { UndoPathState } from "./manifest.js";
import type { PathImage } from "./path-images.js";
import { highestMissing, statOrNull, subtreeImages } from "./path-images.js";
import type { UndoSnapshotInfo, UndoStore } from "./undo-store.node.js";

export type ChangeTrackingStrategy = "auto" | "snapshot" | "manifest";

export interface WorkspaceChanges<T> {
  readonly result: T;
  /** Paths whose pre-images were recorded (directories stand for their subtree). */
  readonly changedPaths: readonly string[];
  readonly snapshot: UndoSnapshotInfo | null;
}

export interface TrackOptions {
  readonly turnId?: string | null;
}

/** Modification times this close to the scan (or later) are not trusted to reveal a rewrite. */
const RACY_WINDOW_MS = 2_000;

interface NodeRecord {
  readonly kind: "file" | "directory";
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly mode: number | null;
  /** Body hash of a file (pinned in the store). */
  hash?: string;
}

/** Paths under a `.git` directory are never tracked: the protocol refuses to write them back. */
function isGitPath(path: string): boolean {
  return path.split("/").includes(".git");
}

async function scan(fs: Filesystem): Promise<Map<string, NodeRecord>> {
  const nodes = new Map<string, NodeRecord>();
  const pending = [""];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries;
    try {
      entries = await fs.list(dir);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) continue; // changed under us
      throw error;
    }
    for (const entry of entries) {
      if (isGitPath(entry.path) || (!entry.isFile && !entry.isDirectory)) continue;
      const stat = await statOrNull(fs, entry.path);
      if (stat === null) continue;
      const kind = stat.isDirectory ? "directory" : "file";
      nodes.set(entry.path, { kind, size: stat.sizeBytes, mtimeMs: stat.modifiedAt?.getTime() ?? null, mode: stat.mode });
      if (stat.isDirectory) pending.push(entry.path);
    }
  }
  return nodes;
}

/** Tracks workspace changes made outside the protocol, per session, into an `UndoStore`. */
export class WorkspaceChangeTracker {
  readonly strategy: "snapshot" | "manifest";
  /** Per session: the last manifest, whose file bodies are pinned in the store. */
  private readonly baselines = new Map<string, Map<string, NodeRecord>>();

  constructor(
    readonly store: UndoStore,
    options: { strategy?: ChangeTrackingStrategy } = {},
  ) {
    const fs = store.workspace;
    const requested = options.strategy ?? "auto";
    const cheapSnapshots = isSnapshotable(fs) && fs.root === "/";
    this.strategy = requested === "auto" ? (cheapSnapshots ? "snapshot" : "manifest") : requested;
    if (this.strategy === "snapshot" && !isSnapshotable(fs)) throw new TypeError("The snapshot strategy needs a SnapshotableFilesystem workspace");
  }

  /**
   * Run `tool` (which may change the workspace any way it likes) and record the pre-images of
   * what it changed into the snapshot of `(sessionId, toolCallId)`.
   */
  async track<T>(sessionId: string, toolCallId: string, tool: () => Promise<T>, options: TrackOptions = {}): Promise<WorkspaceChanges<T>> {
    return this.strategy === "snapshot" ? this.trackWithSnapshots(sessionId, toolCallId, tool, options) : this.trackWithManifest(sessionId, toolCallId, tool, options);
  }

  /** Release what the tracker keeps pinned for a session. */
  async release(sessionId: string): Promise<void> {
    const baseline = this.baselines.get(sessionId);
    this.baselines.delete(sessionId);
    for (const node of baseline?.values() ?? []) if (node.hash !== undefined) await this.store.releaseBody(sessionId, node.hash);
  }

  // ------------------------------------------------------------------ snapshot strategy

  private async trackWithSnapshots<T>(sessionId: string, toolCallId: string, tool: () => Promise<T>, options: TrackOptions): Promise<WorkspaceChanges<T>> {
    const fs = this.store.workspace as SnapshotableFilesystem;
    const before = await fs.snapshot({ tag: `before ${toolCallId}` });
    return runThenRecord(tool, () => this.recordFromSnapshots(fs, before, sessionId, toolCallId, options));
  }

  private async recordFromSnapshots(fs: SnapshotableFilesystem, before: FilesystemSnapshot, sessionId: string, toolCallId: string, options: TrackOptions): Promise<Recorded> {
    const after = await fs.snapshot({ tag: `after ${toolCallId}` });
    try {
      const diff = await fs.diff(before, after);
      if (diff.added.length + diff.modified.length + diff.deleted.length === 0) return { changedPaths: [], snapshot: null };
      // What is gone entirely: the highest ancestor of a deleted file that no longer exists.
      const vanished = new Set<string>();
      for (const path of diff.deleted) {
        let top = path;
        for (let parent = parentPath(top); parent !== "" && (await statOrNull(fs, parent)) === null; parent = parentPath(top)) top = parent;
        vanished.add(top);
      }
      await fs.restore(before);
      const images: PathImage[] = [];
      try {
        const absent = new Set<string>();
        for (const path of diff.added) absent.add(await highestMissing(fs, path));
        for (const path of absent) images.push({ path, state: { kind: "absent" } });
        for (const path of topLevel([...diff.modified, ...vanished])) images.push(...(await subtreeImages(fs, path)));
      } finally {
        await fs.restore(after);
      }
      return await this.record(sessionId, toolCallId, images, options);
    } finally {
      drop(fs, before);
      drop(fs, after);
    }
  }

  private async record(sessionId: string, toolCallId: string, images: readonly PathImage[], options: TrackOptions): Promise<Recorded> {
    const entries: { path: string; state: UndoPathState }[] = [];
    const pinned: string[] = [];
    try {
      for (const image of images) {
        if (image.state.kind === "file") {
          const body = await this.store.pinBody(sessionId, image.state.bytes);
          pinned.push(body.hash);
          entries.push({ path: image.path, state: { kind: "file", bodyHash: body.hash, sizeBytes: body.size, mode: image.state.mode } });
        } else {
          entries.push({ path: image.path, state: image.state });
        }
      }
      return this.recordEntries(sessionId, toolCallId, entries, options);
    } finally {
      for (const hash of pinned) await this.store.releaseBody(sessionId, hash);
    }
  }

  private async recordEntries(sessionId: string, toolCallId: string, entries: { path: string; state: UndoPathState }[], options: TrackOptions): Promise<Recorded> {
    const tops = topLevel(entries.map((entry) => entry.path));
    if (entries.length === 0) return { changedPaths: [], snapshot: null };
    const snapshot = await this.store.recordPreImages(sessionId, toolCallId, entries, options.turnId === undefined ? {} : { turnId: options.turnId });
    return { changedPaths: tops, snapshot };
  }

  // ------------------------------------------------------------------ manifest strategy

  private async trackWithManifest<T>(sessionId: string, toolCallId: string, tool: () => Promise<T>, options: TrackOptions): Promise<WorkspaceChanges<T>> {
    const fs = this.store.workspace;
    const previous = this.baselines.get(sessionId) ?? new Map<string, NodeRecord>();
    const scannedAt = Date.now();
    const before = await scan(fs);
    // Keep every file's bytes: reuse the previous body when its stat is unchanged and not racy.
    const released: string[] = [];
    for (const [path, node] of before) {
      if (node.kind !== "file") continue;
      const old = previous.get(path);
      if (old?.hash !== undefined && sameStat(old, node) && !isRacy(old, scannedAt)) {
        node.hash = old.hash;
        previous.delete(path); // its pin now belongs to `before`
        continue;
      }
      node.hash = await this.pinFile(sessionId, fs, path);
    }
    for (const old of previous.values()) if (old.hash !== undefined) released.push(old.hash);
    this.baselines.set(sessionId, before);
    for (const hash of released) await this.store.releaseBody(sessionId, hash);

    return runThenRecord(tool, () => this.recordFromManifests(sessionId, toolCallId, before, scannedAt, options));
  }

  private async pinFile(sessionId: string, fs: Filesystem, path: string): Promise<string | undefined> {
    try {
      return (await this.store.pinBody(sessionId, (await fs.readBytes(path)).content)).hash;
    } catch (error) {
      if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "EACCES") || hasErrorCode(error, "EISDIR")) return undefined;
      throw error;
    }
  }

  private async recordFromManifests(sessionId: string, toolCallId: string, before: Map<string, NodeRecord>, scannedAt: number, options: TrackOptions): Promise<Recorded> {
    const fs = this.store.workspace;
    const after = await scan(fs);
    const entries: { path: string; state: UndoPathState }[] = [];
    const covered = new Set<string>();
    const add = (path: string, state: UndoPathState): void => {
      entries.push({ path, state });
      covered.add(path);
    };
    const stateOf = (node: NodeRecord): UndoPathState | null =>
      node.kind === "directory" ? { kind: "directory", mode: node.mode } : node.hash === undefined ? null : { kind: "file", bodyHash: node.hash, sizeBytes: node.size, mode: node.mode };
    const sorted = [...before.keys()].sort();
    for (const path of sorted) {
      if ([...covered].some((top) => isWithin(path, top))) continue;
      const old = before.get(path) as NodeRecord;
      const now = after.get(path);
      if (old.kind === "directory") {
        if (now?.kind === "directory") continue;
        // The directory is gone or replaced: record it with its whole old subtree.
        add(path, { kind: "directory", mode: old.mode });
        for (const below of sorted) {
          if (below === path || !isWithin(below, path)) continue;
          const state = stateOf(before.get(below) as NodeRecord);
          if (state !== null) entries.push({ path: below, state });
        }
        continue;
      }
      const state = stateOf(old);
      if (state === null) continue;
      if (now === undefined || now.kind !== "file" || now.size !== old.size || now.mode !== old.mode) add(path, state);
      else if ((now.mtimeMs !== old.mtimeMs || isRacy(old, scannedAt)) && !(await this.sameContent(fs, path, old))) add(path, state);
    }
    // New paths: the highest one whose parent existed as a directory before.
    for (const path of [...after.keys()].sort()) {
      if (before.has(path) || [...covered].some((top) => isWithin(path, top))) continue;
      let top = path;
      while (parentPath(top) !== "" && !before.has(parentPath(top))) top = parentPath(top);
      add(top, { kind: "absent" });
    }
    return this.recordEntries(sessionId, toolCallId, entries, options);
  }

  private async sameContent(fs: Filesystem, path: string, old: NodeRecord): Promise<boolean> {
    try {
      return sha256Hex((await fs.readBytes(path)).content) === old.hash;
    } catch {
      return false;
    }
  }
}

type Recorded = { changedPaths: string[]; snapshot: UndoSnapshotInfo | null };

/** Run the tool, then record what it changed — also when it fails (then rethrow). */
async function runThenRecord<T>(tool: () => Promise<T>, record: () => Promise<Recorded>): Promise<WorkspaceChanges<T>> {
  let result: T;
  try {
    result = await tool();
  } catch (error) {
    await record();
    throw error;
  }
  return { result, ...(await record()) };
}

function sameStat(a: NodeRecord, b: NodeRecord): boolean {
  return a.kind === b.kind && a.size === b.size && a.mtimeMs === b.mtimeMs && a.mode === b.mode;
}

function isRacy(node: NodeRecord, scannedAt: number): boolean {
  return node.mtimeMs === null || node.mtimeMs >= scannedAt - RACY_WINDOW_MS;
}

function topLevel(paths: readonly string[]): string[] {
  const tops: string[] = [];
  for (const path of [...paths].sort()) if (!tops.some((top) => isWithin(path, top))) tops.push(path);
  return tops;
}

function drop(fs: Filesystem, snapshot: FilesystemSnapshot): void {
  const dropper = (fs as { dropSnapshot?: (id: string) => boolean }).dropSnapshot;
  if (typeof dropper === "function") dropper.call(fs, snapshot.snapshotId);
}
