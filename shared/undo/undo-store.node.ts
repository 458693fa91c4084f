/**
 * The per-tool-call undo store (Gemini-style /restore): pre-images of the paths a tool call
 * changes, keyed by `(sessionId, scopeId)` — canonically the ACP toolCallId — so one call can
 * be rolled back without touching other work, and a whole turn can be rolled back and redone.
 *
 * Storage lives outside the workspace (default: a fresh temp directory):
 *   <stateDir>/snapshots/<session_id>/<snapshot_id>/manifest.json
 *   <stateDir>/snapshots/<session_id>/bodies/<sha256>
 * Every file is written crash-safely (temp + rename) and bodies before the manifest that
 * names them, so a crash never leaves a manifest pointing at a half-written body. Bodies are
 * shared by the session's snapshots and counted once towards the per-session byte cap
 * (default 1 GiB); past it the oldest snapshots are evicted.
 *
 * Restores, rollbacks and redos go straight to the workspace (never through a capturing
 * wrapper) and are all-or-nothing: the touched paths are captured first and put back if any
 * step fails. One store instance owns a state directory; calls for one session are serialised.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InvalidArgumentError, SnapshotNotFoundError, SnapshotRestoreError, WinkError } from "../errors.js";
import type { Filesystem } from "../filesystem/protocol.js";
import type { UndoPathState, UndoSnapshotKind } from "./manifest.js";
import { UNDO_SNAPSHOTS_DIR, compareUndoManifests, isValidUndoSessionId } from "./manifest.js";
import type { PathImage } from "./path-images.js";
import { applyImages, applyImagesAtomically, currentImagesFor, explicitCapturePath, highestMissing, isCovered, normalizeFor, shallowImage, statOrNull, subtreeImages } from "./path-images.js";
import { type EntryRecord, SnapshotRecord, type StagedEntry, UndoSession, type UndoSnapshotInfo } from "./undo-session.node.js";

export type { UndoSnapshotInfo } from "./undo-session.node.js";

/** Default per-session byte cap: 1 GiB. */
export const DEFAULT_SESSION_BYTE_CAP = 1024 ** 3;

export interface UndoStoreOptions {
  /** The workspace whose paths are captured and restored. */
  readonly workspace: Filesystem;
  /** Where snapshots live (must be outside a host workspace). Default: a new `wink-undo-*` temp directory. */
  readonly stateDir?: string;
  /** Bytes (bodies + manifests) a session may hold before its oldest snapshots are evicted. */
  readonly sessionByteCap?: number;
  /** fsync files and directories (default false: a process crash is already safe; this also covers power loss). */
  readonly durable?: boolean;
  /** Record each path's post-image when a snapshot is closed (default true), so viewers can show diffs. */
  readonly recordPostImages?: boolean;
  readonly clock?: () => Date;
  /** Snapshot ids (default: random UUIDs); must return a fresh, path-safe id per call. */
  readonly newId?: () => string;
}

/** What a mutating call is about to do. */
export type MutationIntent =
  | { readonly kind: "write"; readonly path: string }
  | { readonly kind: "mkdir"; readonly path: string }
  | { readonly kind: "delete"; readonly path: string }
  | { readonly kind: "replace-all" };


/** A session that has undo state (ACP `session/list`). */
export interface UndoSessionInfo {
  readonly sessionId: string;
  readonly snapshotCount: number;
  /** Latest capture, close or restore of its snapshots (ISO-8601), or null. */
  readonly updatedAt: string | null;
}

export interface RestoreResult {
  readonly snapshotId: string;
  readonly scopeId: string;
  /** Workspace paths written back or removed, sorted. */
  readonly restoredPaths: readonly string[];
}

export interface TurnRestoreResult {
  /** Turns rolled back (latest first) or redone. */
  readonly turnIds: readonly string[];
  /** Tool calls whose changes were undone (rollback) or put back (redo). */
  readonly toolCallIds: readonly string[];
  readonly restoredPaths: readonly string[];
  /** Each tool call with the paths its snapshot covers. */
  readonly toolCalls: readonly { readonly toolCallId: string; readonly restoredPaths: readonly string[] }[];
}

export interface RegisterOptions {
  /** Capture these paths now (whole subtrees for directories) and close the snapshot to auto-capture. */
  readonly paths?: readonly string[];
  /** The turn it belongs to (default: the session's current turn). */
  readonly turnId?: string | null;
}

function checkSessionId(sessionId: unknown): asserts sessionId is string {
  if (!isValidUndoSessionId(sessionId)) {
    throw new InvalidArgumentError(`Invalid session id ${JSON.stringify(sessionId)}: use 1–200 letters, digits, "_", "-" or "." (it names a directory)`, { sessionId: String(sessionId) });
  }
}

function checkScopeId(scopeId: unknown): asserts scopeId is string {
  if (typeof scopeId !== "string" || scopeId === "" || scopeId.length > 1024) {
    throw new InvalidArgumentError(`Invalid scope id ${JSON.stringify(scopeId)}: a non-empty string of at most 1024 characters`, { scopeId: String(scopeId) });
  }
}

function restoreError(error: unknown, message: string, data: Record<string, unknown>): WinkError {
  if (error instanceof SnapshotRestoreError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const causeCode = error instanceof WinkError ? { causeCode: error.code } : {};
  return new SnapshotRestoreError(`${message}: ${reason}; the workspace was left as it was`, { ...data, ...causeCode }, { cause: error });
}

/** The per-tool-call undo store. Create it with `UndoStore.create()`. */
export class UndoStore {
  readonly workspace: Filesystem;
  readonly stateDir: string;
  readonly defaultByteCap: number;
  private readonly durable: boolean;
  private readonly recordPostImages: boolean;
  private readonly clock: () => Date;
  private readonly newId: () => string;
  private readonly sessions = new Map<string, Promise<UndoSession>>();
  private readonly caps = new Map<string, number>();
  /** Manifests that could not be read when a session was loaded (left on disk untouched). */
  readonly problems: { path: string; message: string }[] = [];

  private constructor(options: UndoStoreOptions, stateDir: string) {
    this.workspace = options.workspace;
    this.stateDir = stateDir;
    this.defaultByteCap = options.sessionByteCap ?? DEFAULT_SESSION_BYTE_CAP;
    this.durable = options.durable ?? false;
    this.recordPostImages = options.recordPostImages ?? true;
    this.clock = options.clock ?? (() => new Date());
    this.newId = options.newId ?? randomUUID;
  }

  /** A store for `workspace`; refuses a state directory inside a host workspace (it would capture itself). */
  static async create(options: UndoStoreOptions): Promise<UndoStore> {
    const cap = options.sessionByteCap ?? DEFAULT_SESSION_BYTE_CAP;
    if (!Number.isSafeInteger(cap) || cap <= 0) throw new InvalidArgumentError(`sessionByteCap must be a positive integer, got ${String(cap)}`, { sessionByteCap: cap });
    const stateDir = options.stateDir === undefined ? await mkdtemp(join(tmpdir(), "wink-undo-")) : resolve(options.stateDir);
    await mkdir(stateDir, { recursive: true });
    const root = options.workspace.root;
    if (root !== "/") {
      const [realState, realRoot] = await Promise.all([realpath(stateDir), realpath(root).catch(() => null)]);
      if (realRoot !== null && (realState === realRoot || realState.startsWith(`${realRoot}/`))) {
        throw new InvalidArgumentError(`The undo state directory ${stateDir} is inside the workspace ${root}: keep it outside, or it would capture itself`, { stateDir, root });
      }
    }
    return new UndoStore(options, stateDir);
  }

  /** Directory of a session's snapshots. */
  sessionDir(sessionId: string): string {
    checkSessionId(sessionId);
    return join(this.stateDir, UNDO_SNAPSHOTS_DIR, sessionId);
  }

  /** Override the byte cap of one session (applies immediately, evicting if needed). */
  async configureSessionByteCap(sessionId: string, bytes: number): Promise<void> {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new InvalidArgumentError(`Byte cap must be a positive integer, got ${String(bytes)}`, { bytes });
    this.caps.set(sessionId, bytes);
    await this.locked(sessionId, async (session) => {
      session.cap = bytes;
      await session.enforceCap(null);
    });
  }

  /** Bytes a session holds on disk (distinct bodies plus manifests). */
  async sessionBytes(sessionId: string): Promise<number> {
    return (await this.session(sessionId)).totalBytes;
  }

  // ------------------------------------------------------------------ sessions and locking

  private session(sessionId: string): Promise<UndoSession> {
    checkSessionId(sessionId);
    let loading = this.sessions.get(sessionId);
    if (loading === undefined) {
      loading = UndoSession.load(sessionId, this.sessionDir(sessionId), { workspaceRoot: this.workspace.root, durable: this.durable, cap: this.caps.get(sessionId) ?? this.defaultByteCap, problems: this.problems });
      this.sessions.set(sessionId, loading);
      loading.catch(() => this.sessions.delete(sessionId));
    }
    return loading;
  }

  private async locked<T>(sessionId: string, task: (session: UndoSession) => Promise<T>): Promise<T> {
    const session = await this.session(sessionId);
    const run = session.queue.then(
      () => task(session),
      () => task(session),
    );
    session.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * A new snapshot. Its manifest is written with its first pre-images (or by the caller):
   * an empty open snapshot lost in a crash held nothing to restore.
   */
  private async createRecord(session: UndoSession, scopeId: string, kind: UndoSnapshotKind, turnId: string | null, open: boolean): Promise<SnapshotRecord> {
    const snapshotId = this.newId();
    if (!isValidUndoSessionId(snapshotId) || session.records.has(snapshotId)) throw new InvalidArgumentError(`Snapshot id ${JSON.stringify(snapshotId)} is not a fresh, path-safe id`, { snapshotId });
    const record = new SnapshotRecord(snapshotId, scopeId, kind, turnId, this.clock().toISOString(), session.nextSequence++, open);
    session.records.set(record.snapshotId, record);
    if (kind === "tool_call") {
      session.byScope.set(scopeId, record);
      session.evicted.delete(scopeId);
      // New work starts a new history: what was rolled back can no longer be redone.
      for (const redo of [...session.redos]) await session.removeRecord(redo);
    } else {
      session.redos.add(record);
    }
    return record;
  }

  // ------------------------------------------------------------------ capture

  /** Pre-images a mutation needs that the snapshot does not hold yet. */
  private async imagesFor(record: SnapshotRecord, intent: MutationIntent): Promise<PathImage[]> {
    const fs = this.workspace;
    const covered = (path: string): boolean => isCovered(record.entries, path);
    if (intent.kind === "replace-all") return covered("") ? [] : subtreeImages(fs, "", (path) => record.entries.has(path));
    const path = normalizeFor(fs, intent.path);
    if (path === null || path === "" || covered(path)) return [];
    if (intent.kind === "delete") return subtreeImages(fs, path, covered);
    const stat = await statOrNull(fs, path);
    if (stat === null) return [{ path: await highestMissing(fs, path), state: { kind: "absent" } }];
    // An existing directory (mkdir, or a write that will fail with EISDIR) is left as it is.
    return intent.kind === "write" && stat.isFile ? [await shallowImage(fs, path)] : [];
  }

  /**
   * Run `operation` (a mutation of the workspace) with the pre-images it needs captured first
   * into the snapshot of `(sessionId, scopeId)`. Without an open snapshot for the scope the
   * operation just runs — unless `autoRegister` opens one. A failed operation records nothing.
   */
  async captureAround<T>(sessionId: string, scopeId: string, intent: MutationIntent, operation: () => Promise<T>, options: { autoRegister?: boolean; turnId?: string | null } = {}): Promise<T> {
    checkScopeId(scopeId);
    return this.locked(sessionId, async (session) => {
      let record = session.byScope.get(scopeId);
      if (record === undefined && options.autoRegister === true && !session.evicted.has(scopeId)) {
        record = await this.createRecord(session, scopeId, "tool_call", options.turnId ?? session.currentTurn, true);
      }
      if (record === undefined || !record.open) return operation();
      // Write-ahead: the pre-images are on disk and named by the manifest before the workspace changes.
      const staged = await session.stage(await this.imagesFor(record, intent));
      if (staged.length > 0) {
        record.addBefore(staged);
        await session.writeManifest(record);
      }
      let result: T;
      try {
        result = await operation();
      } catch (error) {
        if (staged.length > 0) {
          for (const entry of staged) record.entries.delete(entry.path);
          await session.unstage(staged);
          await session.writeManifest(record);
        }
        throw error;
      }
      if (staged.length > 0) await session.enforceCap(record);
      return result;
    });
  }

  /**
   * Keep bytes in the session's body store (deduplicated) until `releaseBody`: change
   * trackers pin what a workspace held before a command, so pre-images can be recorded after it.
   */
  async pinBody(sessionId: string, bytes: Uint8Array): Promise<{ hash: string; size: number }> {
    return this.locked(sessionId, async (session) => {
      await mkdir(session.bodies.dir, { recursive: true });
      session.bodiesDirReady = true;
      const body = await session.bodies.put(bytes);
      session.ref(body.hash, body.size);
      return { hash: body.hash, size: body.size };
    });
  }

  /** Release a body pinned with `pinBody`. */
  async releaseBody(sessionId: string, hash: string): Promise<void> {
    await this.locked(sessionId, (session) => session.unref(hash));
  }

  /**
   * Record pre-images observed after the fact (e.g. by diffing the workspace around a shell
   * command) into the snapshot of `(sessionId, scopeId)`, registering it if needed. File
   * states must name bodies already in the store (pinned). Paths the snapshot already
   * covers keep their earlier pre-image.
   */
  async recordPreImages(sessionId: string, scopeId: string, entries: readonly { path: string; state: UndoPathState }[], options: { turnId?: string | null } = {}): Promise<UndoSnapshotInfo> {
    checkScopeId(scopeId);
    return this.locked(sessionId, async (session) => {
      const record = session.byScope.get(scopeId) ?? (await this.createRecord(session, scopeId, "tool_call", options.turnId === undefined ? session.currentTurn : options.turnId, true));
      const known = new Map(record.entries);
      const added: StagedEntry[] = [];
      const seen = new Set<string>();
      for (const entry of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
        if (isCovered(known, entry.path) || seen.has(entry.path)) continue;
        seen.add(entry.path);
        if (entry.state.kind === "file") {
          const pinned = session.refs.get(entry.state.bodyHash);
          if (pinned === undefined) throw new InvalidArgumentError(`Pre-image of ${entry.path} names body ${entry.state.bodyHash}, which is not in the store`, { path: entry.path });
          session.ref(entry.state.bodyHash, pinned.size);
        }
        added.push(entry);
      }
      record.addBefore(added);
      await session.writeManifest(record);
      await session.enforceCap(record);
      return session.info(record);
    });
  }

  /**
   * Register the snapshot of `(sessionId, scopeId)`. With `paths`, their pre-images are
   * captured now and the snapshot does not auto-capture; without, it is open: the next
   * mutating calls of that scope (through a capturing filesystem) capture what they touch.
   * Registering an existing scope adds the paths to its snapshot; without paths it reopens
   * it (a retried or re-run call), keeping the first pre-images.
   */
  async register(sessionId: string, scopeId: string, options: RegisterOptions = {}): Promise<UndoSnapshotInfo> {
    checkScopeId(scopeId);
    const paths = options.paths?.map((path) => explicitCapturePath(this.workspace, path));
    return this.locked(sessionId, async (session) => {
      const existing = session.byScope.get(scopeId);
      const record = existing ?? (await this.createRecord(session, scopeId, "tool_call", options.turnId === undefined ? session.currentTurn : options.turnId, paths === undefined));
      if (existing !== undefined && paths === undefined && (!existing.open || existing.restoredAt !== null)) {
        // The same tool call runs again (a retry, or a re-run after an undo): capture into the
        // same snapshot, keeping the first pre-images, so undo still goes back to before its first run.
        existing.open = true;
        existing.closedAt = null;
        existing.restoredAt = null;
        await session.writeManifest(existing);
      }
      for (const path of paths ?? []) {
        if (isCovered(record.entries, path)) continue;
        const exists = (await statOrNull(this.workspace, path)) !== null;
        const images = exists ? await subtreeImages(this.workspace, path, (p) => isCovered(record.entries, p)) : [{ path: await highestMissing(this.workspace, path), state: { kind: "absent" as const } }];
        record.addBefore(await session.stage(images));
      }
      if (paths !== undefined) await session.writeManifest(record);
      await session.enforceCap(record);
      return session.info(record);
    });
  }

  /** Record post-images of a snapshot's paths and stop it capturing. Returns null when unknown. */
  async close(sessionId: string, scopeId: string): Promise<UndoSnapshotInfo | null> {
    return this.locked(sessionId, async (session) => {
      const record = session.byScope.get(scopeId);
      if (record === undefined) return null;
      await this.closeRecord(session, record);
      return session.info(record);
    });
  }

  private async closeRecord(session: UndoSession, record: SnapshotRecord): Promise<void> {
    if (record.closedAt !== null) return;
    if (this.recordPostImages) {
      const images: PathImage[] = [];
      const created: PathImage[] = [];
      for (const path of record.paths()) {
        const entry = record.entries.get(path) as EntryRecord;
        try {
          const image = await shallowImage(this.workspace, path);
          images.push(image);
          // A directory the call created: record what it put inside (within limits), so viewers see the new files.
          if (entry.before.kind === "absent" && image.state.kind === "directory") created.push(...(await createdContents(this.workspace, path)));
        } catch {
          // A path that became a symlink has no post-image we can store; the pre-image still restores.
        }
      }
      for (const entry of await session.stage(images)) {
        const target = record.entries.get(entry.path) as EntryRecord;
        if (target.after?.kind === "file") await session.unref(target.after.bodyHash);
        target.after = entry.state;
      }
      for (const entry of await session.stage(created)) {
        // Below an absent pre-image these paths were absent too; restoring the ancestor removes them.
        if (!record.entries.has(entry.path)) record.entries.set(entry.path, { before: { kind: "absent" }, after: entry.state });
        else if (entry.state.kind === "file") await session.unref(entry.state.bodyHash);
      }
    }
    record.open = false;
    record.closedAt = this.clock().toISOString();
    await session.writeManifest(record);
    await session.enforceCap(record);
  }

  // ------------------------------------------------------------------ restore

  /** Write a tool call's pre-images back (and remove what it created). Returns the restored paths. */
  async restore(sessionId: string, scopeId: string): Promise<RestoreResult> {
    checkScopeId(scopeId);
    return this.locked(sessionId, async (session) => {
      const record = session.byScope.get(scopeId);
      if (record === undefined) {
        const evicted = session.evicted.has(scopeId);
        throw new SnapshotNotFoundError(scopeId, `No undo snapshot for tool call ${scopeId} in session ${sessionId}${evicted ? " (evicted by the session byte cap)" : ""}`, { sessionId, scopeId, evicted });
      }
      await this.closeRecord(session, record);
      try {
        await applyImagesAtomically(this.workspace, await session.loadImages(record));
      } catch (error) {
        throw restoreError(error, `Cannot restore tool call ${scopeId}`, { sessionId, scopeId, snapshotId: record.snapshotId });
      }
      record.restoredAt = this.clock().toISOString();
      await session.writeManifest(record);
      return { snapshotId: record.snapshotId, scopeId, restoredPaths: record.paths() };
    });
  }

  /** Snapshots of a session, by capture time. */
  async list(sessionId: string): Promise<UndoSnapshotInfo[]> {
    const session = await this.session(sessionId);
    return [...session.records.values()].sort(compareUndoManifests).map((record) => session.info(record));
  }

  /** The snapshot of a scope, or null. */
  async get(sessionId: string, scopeId: string): Promise<UndoSnapshotInfo | null> {
    const session = await this.session(sessionId);
    const record = session.byScope.get(scopeId);
    return record === undefined ? null : session.info(record);
  }

  /** Remove a scope's snapshot (manifest and unshared bodies). False when there was none. */
  async drop(sessionId: string, scopeId: string): Promise<boolean> {
    return this.locked(sessionId, async (session) => {
      const record = session.byScope.get(scopeId);
      if (record === undefined) return false;
      await session.removeRecord(record);
      return true;
    });
  }

  /** Sessions with snapshots in the state directory (earlier processes' included), most recently active first. */
  async listSessions(): Promise<UndoSessionInfo[]> {
    let names: string[];
    try {
      names = await readdir(join(this.stateDir, UNDO_SNAPSHOTS_DIR));
    } catch {
      names = [];
    }
    const ids = new Set([...names.filter((name) => isValidUndoSessionId(name)), ...this.sessions.keys()]);
    const sessions: UndoSessionInfo[] = [];
    for (const sessionId of ids) {
      const snapshots = await this.list(sessionId);
      if (snapshots.length === 0) continue;
      const times = snapshots.flatMap((info) => [info.capturedAt, info.closedAt, info.restoredAt]).filter((time): time is string => typeof time === "string");
      sessions.push({ sessionId, snapshotCount: snapshots.length, updatedAt: times.sort().at(-1) ?? null });
    }
    return sessions.sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? "") || (a.sessionId < b.sessionId ? -1 : 1));
  }

  /** Remove every snapshot of a session (e.g. on ACP `session/close`). */
  async dropSession(sessionId: string): Promise<void> {
    await this.locked(sessionId, async (session) => {
      await rm(session.dir, { recursive: true, force: true });
      this.sessions.delete(sessionId);
    });
  }

  // ------------------------------------------------------------------ turns

  /** Start a turn: snapshots registered from now on belong to it. Discards what could be redone. */
  async beginTurn(sessionId: string, turnId: string = randomUUID()): Promise<string> {
    checkScopeId(turnId);
    return this.locked(sessionId, async (session) => {
      session.currentTurn = turnId;
      for (const redo of [...session.redos]) await session.removeRecord(redo);
      return turnId;
    });
  }

  /** End the current turn (later snapshots belong to no turn until the next `beginTurn`). */
  async endTurn(sessionId: string): Promise<void> {
    await this.locked(sessionId, async (session) => {
      session.currentTurn = null;
    });
  }

  /** Turns whose tool calls are in effect, oldest first, each with those calls in order. */
  private appliedTurns(session: UndoSession): { turnId: string; records: SnapshotRecord[] }[] {
    const turns = new Map<string, SnapshotRecord[]>();
    for (const record of session.records.values()) {
      if (record.kind !== "tool_call" || record.turnId === null || record.restoredAt !== null) continue;
      const list = turns.get(record.turnId) ?? [];
      list.push(record);
      turns.set(record.turnId, list);
    }
    return [...turns].map(([turnId, records]) => ({ turnId, records }));
  }

  /**
   * Roll back the latest turn still in effect — or, with `turnId`, every turn from the
   * latest back to and including that one. Each turn's current state is captured first as
   * a redo snapshot, then its tool calls' pre-images are restored, latest call first.
   */
  async rollback(sessionId: string, options: { turnId?: string } = {}): Promise<TurnRestoreResult> {
    return this.locked(sessionId, async (session) => {
      const turns = this.appliedTurns(session);
      const from = options.turnId === undefined ? turns.length - 1 : turns.findIndex((turn) => turn.turnId === options.turnId);
      if (turns.length === 0 || from < 0) {
        const what = options.turnId === undefined ? "no turn with changes in effect" : `turn ${options.turnId} has no changes in effect`;
        throw new SnapshotNotFoundError(options.turnId ?? sessionId, `Nothing to roll back in session ${sessionId}: ${what}`, { sessionId, ...(options.turnId === undefined ? {} : { turnId: options.turnId }) });
      }
      const redos: SnapshotRecord[] = [];
      const undone: SnapshotRecord[] = [];
      try {
        for (const turn of turns.slice(from).reverse()) {
          for (const record of turn.records) await this.closeRecord(session, record);
          const paths = new Set(turn.records.flatMap((record) => record.paths()));
          const redo = await this.createRecord(session, `redo:${turn.turnId}`, "redo", turn.turnId, false);
          redos.push(redo);
          redo.addBefore(await session.stage(await currentImagesFor(this.workspace, paths)));
          redo.undoneScopeIds = turn.records.map((record) => record.scopeId);
          redo.closedAt = redo.capturedAt;
          await session.writeManifest(redo);
          for (const record of [...turn.records].reverse()) {
            await applyImages(this.workspace, await session.loadImages(record));
            undone.push(record);
          }
        }
      } catch (error) {
        // Put every rolled-back turn back, latest redo image first, then forget the redo snapshots.
        for (const redo of [...redos].reverse()) await applyImages(this.workspace, await session.loadImages(redo));
        for (const redo of redos) await session.removeRecord(redo);
        throw restoreError(error, `Cannot roll back session ${sessionId}`, { sessionId });
      }
      const now = this.clock().toISOString();
      for (const record of undone) {
        record.restoredAt = now;
        await session.writeManifest(record);
      }
      session.currentTurn = null;
      await session.enforceCap(redos[redos.length - 1] ?? null);
      return {
        turnIds: redos.map((redo) => redo.turnId as string),
        toolCallIds: undone.map((record) => record.scopeId),
        restoredPaths: [...new Set(redos.flatMap((redo) => redo.paths()))].sort(),
        toolCalls: undone.map((record) => ({ toolCallId: record.scopeId, restoredPaths: record.paths() })),
      };
    });
  }

  /** Re-apply the most recently rolled-back turn. */
  async redo(sessionId: string): Promise<TurnRestoreResult> {
    return this.locked(sessionId, async (session) => {
      const redo = [...session.redos].pop();
      if (redo === undefined) throw new SnapshotNotFoundError(sessionId, `Nothing to redo in session ${sessionId}`, { sessionId });
      try {
        await applyImagesAtomically(this.workspace, await session.loadImages(redo));
      } catch (error) {
        throw restoreError(error, `Cannot redo turn ${redo.turnId ?? ""}`, { sessionId, turnId: redo.turnId, snapshotId: redo.snapshotId });
      }
      const scopes = redo.undoneScopeIds ?? [];
      const toolCalls: { toolCallId: string; restoredPaths: string[] }[] = [];
      for (const scopeId of scopes) {
        const record = session.byScope.get(scopeId);
        if (record === undefined) continue;
        record.restoredAt = null;
        await session.writeManifest(record);
        toolCalls.push({ toolCallId: scopeId, restoredPaths: record.paths() });
      }
      await session.removeRecord(redo);
      return { turnIds: redo.turnId === null ? [] : [redo.turnId], toolCallIds: scopes, restoredPaths: redo.paths(), toolCalls };
    });
  }
}

/** Post-images recorded below a directory a call created: at most this many entries and bytes. */
const MAX_CREATED_ENTRIES = 2_000;
const MAX_CREATED_BYTES = 32 * 1024 * 1024;

async function createdContents(fs: Filesystem, path: string): Promise<PathImage[]> {
  const images = (await subtreeImages(fs, path)).slice(1);
  const bytes = images.reduce((sum, image) => sum + (image.state.kind === "file" ? image.state.bytes.length : 0), 0);
  return images.length > MAX_CREATED_ENTRIES || bytes > MAX_CREATED_BYTES ? [] : images;
}
