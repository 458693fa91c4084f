/**
 * A `FilesystemSnapshot` record as session data: WINK's snake_case shape with `__type__`
 * (`weakincentives.filesystem._types:FilesystemSnapshot`, whose fields `snapshot_id`,
 * `created_at`, `commit_ref`, `root_path`, `git_dir`, `tag` it carries, plus ours, which WINK's
 * reader ignores), and back. Reading also accepts the camelCase records earlier versions of
 * this library wrote (and their backend name "memory"), so old sessions still restore.
 */
import type { JsonObject } from "./json-value.js";
import { pythonIsoTimestamp } from "./session-model.js";
import type { FilesystemSnapshot, SnapshotBackend } from "../filesystem/snapshot-contract.js";

export const FILESYSTEM_SNAPSHOT_TYPE = "weakincentives.filesystem._types:FilesystemSnapshot";

const BACKENDS: Readonly<Record<string, SnapshotBackend>> = { in_memory: "in_memory", memory: "in_memory", host: "host", podman: "podman" };

/** The record in WINK's shape, for a session slice item or a field of one. */
export function snapshotRecordToSession(record: FilesystemSnapshot): JsonObject {
  const created = new Date(record.createdAt);
  return {
    __type__: FILESYSTEM_SNAPSHOT_TYPE,
    snapshot_id: record.snapshotId,
    created_at: Number.isNaN(created.getTime()) ? record.createdAt : pythonIsoTimestamp(created),
    parent_id: record.parentId,
    tag: record.tag,
    file_count: record.fileCount,
    total_bytes: record.totalBytes,
    backend: record.backend,
    strategy: record.strategy,
    commit_ref: record.commitRef,
    root_path: record.rootPath,
    git_dir: record.gitDir ?? null,
    storage_path: record.storagePath ?? null,
  };
}

function pick(source: Record<string, unknown>, snake: string, camel: string): unknown {
  return Object.prototype.hasOwnProperty.call(source, snake) ? source[snake] : source[camel];
}

function count(value: unknown): number {
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** A record from session data in either shape (snake_case with `__type__`, or camelCase); null when it is none. */
export function snapshotRecordFromSession(value: unknown): FilesystemSnapshot | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const source = value as Record<string, unknown>;
  const snapshotId = text(pick(source, "snapshot_id", "snapshotId"));
  const createdAt = text(pick(source, "created_at", "createdAt"));
  const backend = BACKENDS[text(pick(source, "backend", "backend")) ?? ""];
  const strategy = text(source.strategy);
  const commitRef = text(pick(source, "commit_ref", "commitRef"));
  const rootPath = text(pick(source, "root_path", "rootPath"));
  if (snapshotId === null || createdAt === null || Number.isNaN(Date.parse(createdAt)) || backend === undefined || strategy === null || commitRef === null || rootPath === null) return null;
  return {
    snapshotId,
    createdAt: new Date(createdAt).toISOString(),
    parentId: text(pick(source, "parent_id", "parentId")),
    tag: text(source.tag),
    fileCount: count(pick(source, "file_count", "fileCount")),
    totalBytes: count(pick(source, "total_bytes", "totalBytes")),
    backend,
    strategy,
    commitRef,
    rootPath,
    gitDir: text(pick(source, "git_dir", "gitDir")),
    storagePath: text(pick(source, "storage_path", "storagePath")),
  };
}
