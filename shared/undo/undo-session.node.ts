/**
 * One session of the undo store as memory and disk hold it: its snapshot records, the bodies
 * they reference (counted, so a body shared by several snapshots is stored and charged once),
 * its byte cap and what loading it from disk after a crash leaves. `UndoStore` serialises
 * the calls on a session and does capture, restore and turns through it.
 */
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { InvalidArgumentError } from "../errors.js";
import { BodyStore, TEMP_PREFIX, sha256Hex, writeFileAtomic } from "./body-store.node.js";
import type { UndoManifest, UndoPathState, UndoSnapshotKind } from "./manifest.js";
import { UNDO_BODIES_DIR, UNDO_MANIFEST_NAME, compareUndoManifests, parseUndoManifest, serializeUndoManifest } from "./manifest.js";
import type { PathImage } from "./path-images.js";

/** A snapshot as `list()` and `get()` describe it. */
export interface UndoSnapshotInfo extends Pick<UndoManifest, "snapshotId" | "sessionId" | "scopeId" | "kind" | "turnId" | "capturedAt" | "open" | "closedAt" | "restoredAt"> {
  /** Captured paths, sorted. */
  readonly paths: readonly string[];
}

/** Pre-images staged for a call: their bodies are stored and referenced. */
export interface StagedEntry {
  readonly path: string;
  readonly state: UndoPathState;
}

export interface EntryRecord {
  before: UndoPathState;
  after?: UndoPathState;
}

export class SnapshotRecord {
  readonly entries = new Map<string, EntryRecord>();
  manifestBytes = 0;
  /** Its directory exists on disk. */
  dirReady = false;
  open: boolean;
  closedAt: string | null = null;
  restoredAt: string | null = null;
  undoneScopeIds: string[] | undefined;

  constructor(
    readonly snapshotId: string,
    readonly scopeId: string,
    readonly kind: UndoSnapshotKind,
    readonly turnId: string | null,
    readonly capturedAt: string,
    readonly sequence: number,
    open: boolean,
  ) {
    this.open = open;
  }

  /** Pre-images for paths not captured before. */
  addBefore(staged: readonly StagedEntry[]): void {
    for (const entry of staged) this.entries.set(entry.path, { before: entry.state });
  }

  paths(): string[] {
    return [...this.entries.keys()].sort();
  }

  toManifest(sessionId: string, workspaceRoot: string): UndoManifest {
    return {
      snapshotId: this.snapshotId,
      sessionId,
      scopeId: this.scopeId,
      kind: this.kind,
      turnId: this.turnId,
      capturedAt: this.capturedAt,
      sequence: this.sequence,
      workspaceRoot,
      open: this.open,
      closedAt: this.closedAt,
      restoredAt: this.restoredAt,
      entries: this.paths().map((path) => {
        const entry = this.entries.get(path) as EntryRecord;
        return entry.after === undefined ? { path, before: entry.before } : { path, before: entry.before, after: entry.after };
      }),
      ...(this.undoneScopeIds === undefined ? {} : { undoneScopeIds: this.undoneScopeIds }),
    };
  }
}

/** One session's undo state: its snapshots, the bodies they reference and its byte cap. */
export class UndoSession {
  /** Snapshots in registration order. */
  readonly records = new Map<string, SnapshotRecord>();
  /** The tool-call snapshot of each scope. */
  readonly byScope = new Map<string, SnapshotRecord>();
  /** Scopes whose snapshot was evicted by the byte cap: not captured again. */
  readonly evicted = new Set<string>();
  /** Redo snapshots, oldest first. */
  readonly redos = new Set<SnapshotRecord>();
  readonly refs = new Map<string, { size: number; count: number }>();
  bodyBytes = 0;
  manifestBytes = 0;
  bodiesDirReady = false;
  nextSequence = 0;
  currentTurn: string | null = null;
  cap: number;
  queue: Promise<unknown> = Promise.resolve();

  readonly bodies: BodyStore;

  constructor(
    readonly sessionId: string,
    readonly dir: string,
    /** Written in each manifest (the workspace its paths are in). */
    readonly workspaceRoot: string,
    private readonly durable: boolean,
    cap: number,
  ) {
    this.bodies = new BodyStore(join(dir, UNDO_BODIES_DIR), durable);
    this.cap = cap;
  }

  get totalBytes(): number {
    return this.bodyBytes + this.manifestBytes;
  }

  /**
   * The session as its directory holds it (a missing one is an empty session): leftovers of
   * a crash are removed, manifests that cannot be read are reported in `problems` and left.
   */
  static async load(sessionId: string, dir: string, options: { workspaceRoot: string; durable: boolean; cap: number; problems: { path: string; message: string }[] }): Promise<UndoSession> {
    const session = new UndoSession(sessionId, dir, options.workspaceRoot, options.durable, options.cap);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return session;
    }
    const onDisk = await session.bodies.scan();
    const records: SnapshotRecord[] = [];
    for (const name of names) {
      if (name === UNDO_BODIES_DIR || name.startsWith(TEMP_PREFIX)) continue;
      const manifestPath = join(dir, name, UNDO_MANIFEST_NAME);
      for (const leftover of await readdir(join(dir, name)).catch(() => [] as string[])) {
        if (leftover.startsWith(TEMP_PREFIX)) await rm(join(dir, name, leftover), { force: true });
      }
      let text: string;
      try {
        text = await readFile(manifestPath, "utf8");
      } catch {
        // A crash between creating the directory and renaming its manifest in (or while removing it).
        await rm(join(dir, name), { recursive: true, force: true });
        continue;
      }
      try {
        const manifest = parseUndoManifest(text, manifestPath);
        if (manifest.sessionId !== sessionId || manifest.snapshotId !== name) throw new InvalidArgumentError(`manifest names session ${manifest.sessionId}, snapshot ${manifest.snapshotId}`);
        const record = new SnapshotRecord(manifest.snapshotId, manifest.scopeId, manifest.kind, manifest.turnId, manifest.capturedAt, manifest.sequence, manifest.open);
        record.closedAt = manifest.closedAt;
        record.restoredAt = manifest.restoredAt;
        record.undoneScopeIds = manifest.undoneScopeIds === undefined ? undefined : [...manifest.undoneScopeIds];
        record.manifestBytes = Buffer.byteLength(text);
        record.dirReady = true;
        for (const entry of manifest.entries) record.entries.set(entry.path, entry.after === undefined ? { before: entry.before } : { before: entry.before, after: entry.after });
        records.push(record);
      } catch (error) {
        options.problems.push({ path: manifestPath, message: error instanceof Error ? error.message : String(error) });
      }
    }
    records.sort(compareUndoManifests);
    for (const record of records) {
      session.records.set(record.snapshotId, record);
      if (record.kind === "tool_call") session.byScope.set(record.scopeId, record);
      else session.redos.add(record);
      session.manifestBytes += record.manifestBytes;
      session.nextSequence = Math.max(session.nextSequence, record.sequence + 1);
      for (const state of statesOf(record)) if (state.kind === "file") session.ref(state.bodyHash, onDisk.get(state.bodyHash) ?? 0);
    }
    // Bodies no manifest names were stored for a call that failed or crashed: drop them.
    for (const hash of onDisk.keys()) if (!session.refs.has(hash)) await session.bodies.remove(hash);
    return session;
  }

  ref(hash: string, size: number): void {
    const entry = this.refs.get(hash);
    if (entry === undefined) {
      this.refs.set(hash, { size, count: 1 });
      this.bodyBytes += size;
    } else {
      entry.count += 1;
    }
  }

  async unref(hash: string): Promise<void> {
    const entry = this.refs.get(hash);
    if (entry === undefined) return;
    entry.count -= 1;
    if (entry.count > 0) return;
    this.refs.delete(hash);
    this.bodyBytes -= entry.size;
    await this.bodies.remove(hash);
  }

  /** Store the images' bodies (deduplicated) and reference them. */
  async stage(images: readonly PathImage[]): Promise<StagedEntry[]> {
    const staged: StagedEntry[] = [];
    for (const image of images) {
      const { state } = image;
      if (state.kind === "file") {
        const hash = sha256Hex(state.bytes);
        // A body the session already references is on disk: no I/O at all.
        if (!this.refs.has(hash)) {
          if (!this.bodiesDirReady) {
            await mkdir(this.bodies.dir, { recursive: true });
            this.bodiesDirReady = true;
          }
          await this.bodies.put(state.bytes, hash);
        }
        this.ref(hash, state.bytes.length);
        staged.push({ path: image.path, state: { kind: "file", bodyHash: hash, sizeBytes: state.bytes.length, mode: state.mode } });
      } else {
        staged.push({ path: image.path, state });
      }
    }
    return staged;
  }

  async unstage(staged: readonly StagedEntry[]): Promise<void> {
    for (const entry of staged) if (entry.state.kind === "file") await this.unref(entry.state.bodyHash);
  }

  async writeManifest(record: SnapshotRecord): Promise<void> {
    const dir = join(this.dir, record.snapshotId);
    if (!record.dirReady) {
      await mkdir(dir, { recursive: true });
      record.dirReady = true;
    }
    const text = serializeUndoManifest(record.toManifest(this.sessionId, this.workspaceRoot));
    await writeFileAtomic(join(dir, UNDO_MANIFEST_NAME), text, this.durable, dir);
    const bytes = Buffer.byteLength(text);
    this.manifestBytes += bytes - record.manifestBytes;
    record.manifestBytes = bytes;
  }

  async removeRecord(record: SnapshotRecord): Promise<void> {
    // The manifest goes first: a crash in between leaves unreferenced bodies, which loading removes.
    await rm(join(this.dir, record.snapshotId), { recursive: true, force: true });
    this.records.delete(record.snapshotId);
    this.redos.delete(record);
    if (this.byScope.get(record.scopeId) === record) this.byScope.delete(record.scopeId);
    this.manifestBytes -= record.manifestBytes;
    for (const state of statesOf(record)) if (state.kind === "file") await this.unref(state.bodyHash);
  }

  /** Evict the oldest snapshots (never `keep`) until the session fits its cap. */
  async enforceCap(keep: SnapshotRecord | null): Promise<void> {
    if (this.totalBytes <= this.cap) return;
    for (const record of [...this.records.values()]) {
      if (this.totalBytes <= this.cap) return;
      if (record === keep) continue;
      if (record.kind === "tool_call") this.evicted.add(record.scopeId);
      await this.removeRecord(record);
    }
  }

  async loadImages(record: SnapshotRecord, which: "before" | "after" = "before"): Promise<PathImage[]> {
    const images: PathImage[] = [];
    for (const path of record.paths()) {
      const entry = record.entries.get(path) as EntryRecord;
      const state = which === "before" ? entry.before : entry.after;
      if (state === undefined) continue;
      if (state.kind === "file") {
        const bytes = await this.bodies.get(state.bodyHash, { path, snapshotId: record.snapshotId });
        images.push({ path, state: { kind: "file", bytes, mode: state.mode } });
      } else {
        images.push({ path, state });
      }
    }
    return images;
  }

  /** The snapshot as `list()` and `get()` describe it. */
  info(record: SnapshotRecord): UndoSnapshotInfo {
    return {
      snapshotId: record.snapshotId,
      sessionId: this.sessionId,
      scopeId: record.scopeId,
      kind: record.kind,
      turnId: record.turnId,
      capturedAt: record.capturedAt,
      open: record.open,
      closedAt: record.closedAt,
      restoredAt: record.restoredAt,
      paths: record.paths(),
    };
  }
}

function statesOf(record: SnapshotRecord): UndoPathState[] {
  const states: UndoPathState[] = [];
  for (const entry of record.entries.values()) {
    states.push(entry.before);
    if (entry.after !== undefined) states.push(entry.after);
  }
  return states;
}
