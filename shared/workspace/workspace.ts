/**
 * The workspace owner (the spec's `FilesystemSection` without the prompt machinery): owns one
 * backend, created lazily, plus what hangs off it — the archive snapshot manager and the
 * per-tool-call undo store — and ties it to a session:
 *
 * - `exportSnapshot()` writes the workspace to a `.fs.zip` and records a
 *   `FilesystemSnapshotRef` (`archive_path`, `file_count`, `total_bytes`) in the session;
 *   call it before the session is snapshotted so the line names its workspace.
 * - `restoreFromSnapshot()` restores the archive the session's latest ref names (any backend
 *   can restore any backend's archive); opening the workspace does it automatically, after
 *   host mounts are hydrated, so a resumed session gets its files back.
 *
 * Variants: `InMemoryWorkspace`, `HostWorkspace` (a host directory, default a fresh temp
 * directory) and `ContainerWorkspace` (a Podman sandbox whose /workspace is a host overlay).
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { SessionLoadError } from "../errors.js";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import type { Filesystem } from "../filesystem/protocol.js";
import type { Session } from "../session/session-model.js";
import { readSessionFile } from "../session/session-file.node.js";
import type { SessionSnapshot } from "../session/snapshot-line.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE, findFilesystemSnapshotRef } from "../session/workspace-items.js";
import { ArchiveSnapshotManager, defaultArchiveSnapshotDir, exportArchiveAtomically } from "../snapshots/archive-snapshot-manager.js";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.js";
import { CapturingFilesystem, invokeToolWithUndo } from "../undo/capturing-filesystem.js";
import { UndoStore, type UndoStoreOptions } from "../undo/undo-store.node.js";
import type { HostMountConfig, MountSummary } from "./host-mounts.node.js";
import { hydrateHostMounts } from "./host-mounts.node.js";

/** The `FilesystemSnapshotRef` item recorded in a session (as written: snake_case keys and `__type__`, as WINK writes items). */
export interface FilesystemSnapshotRef {
  readonly __type__: typeof FILESYSTEM_SNAPSHOT_REF_TYPE;
  readonly archive_path: string;
  readonly file_count: number;
  readonly total_bytes: number;
}

export interface WorkspaceOptions {
  /** Session that records `FilesystemSnapshotRef` items and supplies the one to restore. */
  readonly session?: Session;
  /** Where `exportSnapshot()` and the snapshot manager put archives (default `<tmp>/wink-fs-snapshots`). */
  readonly snapshotDir?: string;
  /** Host directories copied into the workspace when it is created. */
  readonly mounts?: readonly HostMountConfig[];
  /** Host roots mounts may read from (required for mounts). */
  readonly allowedHostRoots?: readonly string[];
  /** Per-tool-call undo store settings (`stateDir` default: a fresh temp directory). */
  readonly undo?: Omit<UndoStoreOptions, "workspace">;
  /** Restore the session's latest filesystem snapshot when the workspace is opened (default true). */
  readonly restoreOnOpen?: boolean;
}

export interface ExportSnapshotOptions {
  /** Record the archive's file name only (portable next to the session file) or its absolute path (default). */
  readonly recordAs?: "path" | "name";
  /** Extra manifest keys. */
  readonly manifestExtra?: Record<string, unknown>;
}

/** Owns a backend, its snapshot manager and its undo store. Subclasses say how to create the backend. */
export abstract class Workspace<F extends Filesystem = Filesystem> {
  readonly snapshotDir: string;
  private opening: Promise<F> | null = null;
  private manager: ArchiveSnapshotManager | null = null;
  private undoStore: Promise<UndoStore> | null = null;
  private mountSummaries: MountSummary[] = [];

  constructor(protected readonly options: WorkspaceOptions = {}) {
    this.snapshotDir = resolve(options.snapshotDir ?? defaultArchiveSnapshotDir());
  }

  /** Create a fresh backend (called once, on first use). */
  protected abstract createBackend(): Promise<F>;

  /** Release what the backend holds (temp directories, containers). */
  protected async disposeBackend(_filesystem: F): Promise<void> {}

  get session(): Session | null {
    return this.options.session ?? null;
  }

  /** What the host mounts copied in (after the workspace is opened). */
  get mounts(): readonly MountSummary[] {
    return this.mountSummaries;
  }

  /** The backend: created on first call, hydrated from host mounts, then restored from the session's latest snapshot. */
  filesystem(): Promise<F> {
    if (this.opening === null) {
      this.opening = this.open();
      this.opening.catch(() => {
        this.opening = null;
      });
    }
    return this.opening;
  }

  private async open(): Promise<F> {
    const filesystem = await this.createBackend();
    try {
      if ((this.options.mounts ?? []).length > 0) {
        this.mountSummaries = await hydrateHostMounts(filesystem, this.options.mounts ?? [], { allowedHostRoots: this.options.allowedHostRoots ?? [] });
      }
      if (this.options.restoreOnOpen ?? true) await this.restoreInto(filesystem, null);
    } catch (error) {
      await this.disposeBackend(filesystem);
      throw error;
    }
    return filesystem;
  }

  /** The archive snapshot manager over this workspace (spec `FilesystemSnapshot`). */
  async snapshots(): Promise<ArchiveSnapshotManager> {
    const filesystem = await this.filesystem();
    this.manager ??= new ArchiveSnapshotManager(filesystem, this.snapshotDir);
    return this.manager;
  }

  /** The per-tool-call undo store over this workspace. */
  undo(): Promise<UndoStore> {
    this.undoStore ??= this.filesystem().then((workspace) => UndoStore.create({ ...this.options.undo, workspace }));
    this.undoStore.catch(() => {
      this.undoStore = null;
    });
    return this.undoStore;
  }

  private sessionIdFor(sessionId: string | undefined): string {
    const id = sessionId ?? this.options.session?.sessionId;
    if (id === undefined) throw new SessionLoadError("A session id is needed for undo: pass one or give the workspace a session");
    return id;
  }

  /** A tool context whose filesystem captures pre-images for `toolCallId` (undo). */
  async toolContext(toolCallId: string, options: { sessionId?: string } = {}): Promise<ToolContext> {
    const sessionId = this.sessionIdFor(options.sessionId);
    return { filesystem: new CapturingFilesystem(await this.undo(), { sessionId, toolCallId }), sessionId, toolCallId };
  }

  /** Run a tool call with per-call undo (see `invokeToolWithUndo`). */
  async invoke<V>(tool: ToolDefinition<V>, params: unknown, toolCallId: string, options: { sessionId?: string; turnId?: string | null } = {}): Promise<ToolResult<V>> {
    return invokeToolWithUndo(tool, params, {
      store: await this.undo(),
      sessionId: this.sessionIdFor(options.sessionId),
      toolCallId,
      ...(options.turnId === undefined ? {} : { turnId: options.turnId }),
    });
  }

  /**
   * Write the workspace to `archivePath` (default `<snapshotDir>/<uuid>.fs.zip`) atomically and
   * record a `FilesystemSnapshotRef` in the session (replacing the previous one).
   */
  async exportSnapshot(archivePath?: string, options: ExportSnapshotOptions = {}): Promise<FilesystemSnapshotRef> {
    const filesystem = await this.filesystem();
    const target = resolve(archivePath ?? join(this.snapshotDir, `${randomUUID()}.fs.zip`));
    const summary = await exportArchiveAtomically(filesystem, target, {
      manifestExtra: { ...(this.options.session === undefined ? {} : { session_id: this.options.session.sessionId }), ...options.manifestExtra },
    });
    const ref: FilesystemSnapshotRef = { __type__: FILESYSTEM_SNAPSHOT_REF_TYPE, archive_path: options.recordAs === "name" ? basename(target) : target, file_count: summary.fileCount, total_bytes: summary.totalBytes };
    this.options.session?.replace(FILESYSTEM_SNAPSHOT_REF_TYPE, [ref], { itemType: FILESYSTEM_SNAPSHOT_REF_TYPE });
    return ref;
  }

  /**
   * Restore from `archivePath`, or from the archive the session's latest `FilesystemSnapshotRef`
   * names (an absolute path that exists, else its file name in the snapshot directory).
   * Returns false when there is nothing to restore from (no ref, or its archive is gone).
   */
  async restoreFromSnapshot(archivePath?: string): Promise<boolean> {
    return this.restoreInto(await this.filesystem(), archivePath ?? null);
  }

  /**
   * Restore from a session file: the latest `FilesystemSnapshotRef` of `sessionId`'s last line
   * (or of the given line), resolved next to the JSONL file, else `<stem>.fs.zip` beside it.
   */
  async restoreFromSessionFile(jsonlPath: string, options: { sessionId?: string; lineNumber?: number } = {}): Promise<boolean> {
    const contents = await readSessionFile(jsonlPath);
    const candidates = contents.snapshots.filter(
      (snapshot) => (options.sessionId === undefined || snapshot.sessionId === options.sessionId) && (options.lineNumber === undefined || snapshot.lineNumber === options.lineNumber),
    );
    const snapshot: SessionSnapshot | undefined = candidates[candidates.length - 1];
    if (snapshot === undefined) throw new SessionLoadError(`No matching snapshot in ${jsonlPath}`, { path: jsonlPath, ...options });
    const ref = findFilesystemSnapshotRef(snapshot);
    const directory = dirname(resolve(jsonlPath));
    const archive = ref?.archiveName ? join(directory, ref.archiveName) : join(directory, `${basename(jsonlPath, ".jsonl")}.fs.zip`);
    if (!existsSync(archive)) return false;
    return this.restoreFromSnapshot(archive);
  }

  private async restoreInto(filesystem: F, archivePath: string | null): Promise<boolean> {
    let archive = archivePath;
    if (archive === null) {
      const session = this.options.session;
      const ref = session === undefined ? null : findFilesystemSnapshotRef(session.snapshot());
      if (ref === null || ref.archivePath === null) return false;
      archive = isAbsolute(ref.archivePath) && existsSync(ref.archivePath) ? ref.archivePath : join(this.snapshotDir, ref.archiveName ?? "");
    }
    if (!existsSync(archive)) return false;
    const manager = this.manager ?? new ArchiveSnapshotManager(filesystem, this.snapshotDir);
    await manager.restore(archive);
    return true;
  }

  /** Release the backend (and its temp directory or container). The workspace can be opened again afterwards. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = null;
    this.manager = null;
    this.undoStore = null;
    if (opening === null) return;
    const filesystem = await opening.catch(() => null);
    if (filesystem !== null) await this.disposeBackend(filesystem);
  }
}

/** A workspace held in memory (copy-on-write snapshots). */
export class InMemoryWorkspace extends Workspace<InMemoryFilesystem> {
  protected async createBackend(): Promise<InMemoryFilesystem> {
    return new InMemoryFilesystem();
  }
}

export interface HostWorkspaceOptions extends WorkspaceOptions {
  /** The workspace directory (default: a fresh `wink-workspace-*` temp directory, removed on close). */
  readonly root?: string;
  /** fsync writes (default true). */
  readonly durable?: boolean;
}

/** A workspace in a host directory. */
export class HostWorkspace extends Workspace<HostFilesystem> {
  private createdRoot: string | null = null;

  constructor(protected override readonly options: HostWorkspaceOptions = {}) {
    super(options);
  }

  protected async createBackend(): Promise<HostFilesystem> {
    let root = this.options.root;
    if (root === undefined) {
      root = await mkdtemp(join(tmpdir(), "wink-workspace-"));
      this.createdRoot = root;
    }
    return new HostFilesystem({ root, ...(this.options.durable === undefined ? {} : { durable: this.options.durable }) });
  }

  protected override async disposeBackend(): Promise<void> {
    if (this.createdRoot !== null) await rm(this.createdRoot, { recursive: true, force: true });
    this.createdRoot = null;
  }
}
