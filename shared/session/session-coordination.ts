/**
 * Session and filesystem snapshots taken and restored together (spec "Session
 * Integration"): the filesystem is captured first, a `FilesystemSnapshotRef` item naming
 * it goes into the session, and only then is the session snapshotted, so every session
 * snapshot knows its workspace. A restore puts the filesystem back first (it may fail,
 * leaving both untouched) and then the session's slices.
 *
 * The ref item keeps the keys the viewer reads (`archive_path`, `file_count`,
 * `total_bytes`) and adds what a native restore needs (`snapshot_id`, `filesystem_key`,
 * `backend_type` — the spec's "in_memory", "host" or "podman", only for native snapshots: an
 * archive is backend-agnostic — and the whole `snapshot` record in WINK's snake_case shape);
 * like every item the library writes it carries `__type__`. Readers ignore keys they don't
 * know, and restoring also accepts the camelCase records earlier versions wrote.
 *
 * With a `snapshotId`, the session snapshot is also kept under that id (`session.snapshot(id)`),
 * so `rollbackWithFilesystem(session, target, id)` puts both back under one id, as the spec's
 * coordinated snapshots do.
 */
import { SnapshotIncompatibleError, SnapshotNotFoundError } from "../errors.js";
import type { Session } from "./session-model.js";
import type { SessionSnapshot } from "./snapshot-line.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE, findFilesystemSnapshotRef } from "./workspace-items.js";
import type { ArchiveSnapshotManager, SnapshotInfo } from "../snapshots/archive-snapshot-manager.js";
import { snapshotRecordFromSession, snapshotRecordToSession } from "./snapshot-record-json.js";
import type { FilesystemSnapshot, SnapshotableFilesystem } from "../filesystem/snapshot-contract.js";

export interface CoordinatedSnapshot {
  readonly session: SessionSnapshot;
  /** The native snapshot (SnapshotableFilesystem) or the archive (ArchiveSnapshotManager). */
  readonly filesystem: FilesystemSnapshot | SnapshotInfo;
}

export interface CoordinatedSnapshotOptions {
  /** Names the filesystem in the ref (e.g. "vfs.tools"); default "workspace". */
  readonly filesystemKey?: string;
  readonly tag?: string | null;
}

/** What a native target must offer: a SnapshotableFilesystem, or a HostSnapshots. */
export type NativeSnapshotTarget = Pick<SnapshotableFilesystem, "snapshot" | "restore">;

function isArchiveManager(target: NativeSnapshotTarget | ArchiveSnapshotManager): target is ArchiveSnapshotManager {
  return typeof (target as Partial<ArchiveSnapshotManager>).rollback === "function";
}

/**
 * Snapshot `filesystem` (natively, or as an archive through `manager` under `snapshotId`),
 * record a `FilesystemSnapshotRef` in `session`, then snapshot the session (kept under
 * `snapshotId` when one is given, or when an archive manager names it).
 */
export async function snapshotWithFilesystem(
  session: Session,
  target: NativeSnapshotTarget | ArchiveSnapshotManager,
  options: CoordinatedSnapshotOptions & { snapshotId?: string } = {},
): Promise<CoordinatedSnapshot> {
  const filesystemKey = options.filesystemKey ?? "workspace";
  let ref: Record<string, unknown>;
  let filesystem: FilesystemSnapshot | SnapshotInfo;
  if (isArchiveManager(target)) {
    const snapshotId = options.snapshotId ?? `turn-${session.items(FILESYSTEM_SNAPSHOT_REF_TYPE).length + 1}`;
    const info = await target.snapshot(snapshotId);
    filesystem = info;
    ref = { __type__: FILESYSTEM_SNAPSHOT_REF_TYPE, archive_path: info.archivePath, file_count: info.fileCount, total_bytes: info.totalBytes, snapshot_id: info.snapshotId, filesystem_key: filesystemKey };
    session.append(FILESYSTEM_SNAPSHOT_REF_TYPE, ref, { itemType: FILESYSTEM_SNAPSHOT_REF_TYPE });
    return { session: session.snapshot(snapshotId), filesystem };
  }
  const record = await target.snapshot({ tag: options.tag ?? null });
  filesystem = record;
  const archivePath = record.strategy === "archive" ? (record.storagePath ?? null) : null;
  ref = {
    __type__: FILESYSTEM_SNAPSHOT_REF_TYPE,
    archive_path: archivePath,
    file_count: record.fileCount,
    total_bytes: record.totalBytes,
    snapshot_id: record.snapshotId,
    filesystem_key: filesystemKey,
    backend_type: record.backend,
    snapshot: snapshotRecordToSession(record),
  };
  session.append(FILESYSTEM_SNAPSHOT_REF_TYPE, ref, { itemType: FILESYSTEM_SNAPSHOT_REF_TYPE });
  return { session: options.snapshotId === undefined ? session.snapshot() : session.snapshot(options.snapshotId), filesystem };
}

/** Put `session`'s slices back to what `snapshot` holds (slices it lacks are emptied). */
export function restoreSessionSlices(session: Session, snapshot: SessionSnapshot): void {
  session.restore(snapshot);
}

/**
 * Restore the filesystem named by the snapshot's latest `FilesystemSnapshotRef`, then the
 * session's slices. The filesystem goes first: when it fails, the session is left as is.
 */
export async function restoreWithFilesystem(session: Session, snapshot: SessionSnapshot, target: NativeSnapshotTarget | ArchiveSnapshotManager): Promise<void> {
  const ref = findFilesystemSnapshotRef(snapshot);
  if (ref === null) throw new SnapshotNotFoundError("(none)", `Session snapshot of ${snapshot.sessionId} records no filesystem snapshot`, { sessionId: snapshot.sessionId });
  const snapshotId = typeof ref.item.snapshot_id === "string" ? ref.item.snapshot_id : null;
  if (isArchiveManager(target)) {
    if (snapshotId !== null && target.get(snapshotId) !== null) await target.rollback(snapshotId);
    else if (ref.archivePath !== null) await target.restore(ref.archivePath);
    else throw new SnapshotNotFoundError(snapshotId ?? "(none)", `Filesystem snapshot ${snapshotId ?? "(unnamed)"} has no archive to restore from`);
  } else {
    const record = snapshotRecordFromSession(ref.item.snapshot);
    if (record === null) {
      throw new SnapshotIncompatibleError(`The session's filesystem reference ${snapshotId ?? ""} carries no native snapshot record; restore its archive with an ArchiveSnapshotManager`, { snapshotId });
    }
    await target.restore(record);
  }
  session.restore(snapshot);
}

/**
 * Roll back the filesystem and the session to the snapshots taken under `snapshotId`: the
 * filesystem first — when it fails, the session is left as is. Two pairings are recognised:
 * `snapshotWithFilesystem(session, target, {snapshotId})`, and (archive managers) the
 * documented `session.snapshot(id)` beside `manager.snapshot(id)`: the manager's own archive
 * of that id wins over any older reference the session snapshot carries. A native target has
 * no ids of its own to look up, so it needs the reference `snapshotWithFilesystem` records.
 * SnapshotNotFoundError when the session kept no snapshot under that id, or nothing pairs it.
 */
export async function rollbackWithFilesystem(session: Session, target: NativeSnapshotTarget | ArchiveSnapshotManager, snapshotId: string): Promise<void> {
  const saved = session.savedSnapshot(snapshotId);
  if (saved === null) throw new SnapshotNotFoundError(snapshotId, `No session snapshot with id ${JSON.stringify(snapshotId)} in session ${session.sessionId}`, { sessionId: session.sessionId });
  if (isArchiveManager(target) && target.get(snapshotId) !== null) {
    await target.rollback(snapshotId);
    session.restore(saved);
    return;
  }
  if (findFilesystemSnapshotRef(saved) === null) {
    const how = isArchiveManager(target)
      ? `the archive manager has no snapshot ${JSON.stringify(snapshotId)} (take it with manager.snapshot(${JSON.stringify(snapshotId)}))`
      : `a native filesystem is paired only by snapshotWithFilesystem(session, filesystem, { snapshotId: ${JSON.stringify(snapshotId)} })`;
    throw new SnapshotNotFoundError(snapshotId, `Session snapshot ${JSON.stringify(snapshotId)} of ${session.sessionId} records no filesystem snapshot and ${how}`, { sessionId: session.sessionId });
  }
  await restoreWithFilesystem(session, saved, target);
}
