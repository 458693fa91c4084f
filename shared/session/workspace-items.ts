/**
 * The two slices through which a snapshot knows its workspace: WINK's `VirtualFileSystem`
 * (files stored inside the session) and `FilesystemSnapshotRef` (a pointer to an
 * `.fs.zip` archive next to the JSONL file). Both are matched by display name, so any
 * module path (WINK's or ours) works.
 */
import type { JsonObject, JsonValue } from "./json-value.js";
import { isJsonObject, ownValue } from "./json-value.js";
import type { SessionSlice } from "./snapshot-line.js";

/**
 * Type id under which wink-debug records a filesystem archive reference, in WINK's
 * `module:Qualname` style. Readers match any type whose display name is
 * `FilesystemSnapshotRef`.
 */
export const FILESYSTEM_SNAPSHOT_REF_TYPE = "wink_debug.session:FilesystemSnapshotRef";

/** Display name of WINK's in-session file store slice. */
export const VIRTUAL_FILESYSTEM_NAME = "VirtualFileSystem";

/** A file held inside a `VirtualFileSystem` slice. */
export interface VirtualFile {
  /** `path.segments` joined with `/` (relative, no leading slash). */
  readonly path: string;
  readonly segments: readonly string[];
  readonly content: string;
  /** `size_bytes` as written, or the UTF-8 length of `content` when absent. */
  readonly sizeBytes: number;
  readonly version: number | null;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
  /** `encoding` as written (WINK writes "utf-8"), null when absent. */
  readonly encoding: string | null;
}

/** The latest `FilesystemSnapshotRef` of a snapshot. */
export interface FilesystemSnapshotRefInfo {
  /** `archive_path` as written (WINK wrote absolute paths in some builds), or null. */
  readonly archivePath: string | null;
  /** Its last path component: how the archive is found next to the JSONL file. */
  readonly archiveName: string | null;
  readonly fileCount: number;
  readonly totalBytes: number;
  /** The item as written. */
  readonly item: JsonObject;
}

interface HasSlices {
  readonly slices: readonly SessionSlice[];
}

/**
 * The files of the snapshot's `VirtualFileSystem` slice (its latest item), or null when the
 * snapshot has no such slice. Entries without a string path or content are left out.
 */
export function extractVirtualFiles(snapshot: HasSlices): VirtualFile[] | null {
  const item = latestItemNamed(snapshot, VIRTUAL_FILESYSTEM_NAME);
  if (item === undefined) return null;
  const files = ownValue(item, "files");
  if (!Array.isArray(files)) return [];
  const result: VirtualFile[] = [];
  for (const entry of files) {
    const file = toVirtualFile(entry);
    if (file !== null) result.push(file);
  }
  return result;
}

/** The latest `FilesystemSnapshotRef` item of the snapshot, or null when there is none. */
export function findFilesystemSnapshotRef(snapshot: HasSlices): FilesystemSnapshotRefInfo | null {
  const item = latestItemNamed(snapshot, "FilesystemSnapshotRef");
  if (item === undefined) return null;
  const archivePath = ownValue(item, "archive_path");
  const path = typeof archivePath === "string" && archivePath !== "" ? archivePath : null;
  return {
    archivePath: path,
    archiveName: path === null ? null : (path.split(/[\\/]/).pop() ?? null),
    fileCount: countField(ownValue(item, "file_count")),
    totalBytes: countField(ownValue(item, "total_bytes")),
    item,
  };
}

/** The last item of the last slice whose slice or item type has the given display name. */
function latestItemNamed(snapshot: HasSlices, name: string): JsonObject | undefined {
  for (let i = snapshot.slices.length - 1; i >= 0; i--) {
    const slice = snapshot.slices[i];
    if (slice === undefined || (slice.displayName !== name && slice.itemDisplayName !== name)) continue;
    const item = slice.items[slice.items.length - 1];
    if (item !== undefined) return item;
  }
  return undefined;
}

function toVirtualFile(entry: JsonValue): VirtualFile | null {
  if (!isJsonObject(entry)) return null;
  const pathValue = ownValue(entry, "path");
  const segmentsValue = isJsonObject(pathValue) ? ownValue(pathValue, "segments") : undefined;
  const content = ownValue(entry, "content");
  if (!Array.isArray(segmentsValue) || typeof content !== "string") return null;
  const segments = segmentsValue.filter((segment): segment is string => typeof segment === "string");
  if (segments.length === 0 || segments.length !== segmentsValue.length) return null;
  const size = ownValue(entry, "size_bytes");
  const version = ownValue(entry, "version");
  return {
    path: segments.join("/"),
    segments,
    content,
    sizeBytes: typeof size === "number" && Number.isFinite(size) ? size : utf8Length(content),
    version: typeof version === "number" ? version : null,
    createdAt: stringOrNull(ownValue(entry, "created_at")),
    updatedAt: stringOrNull(ownValue(entry, "updated_at")),
    encoding: stringOrNull(ownValue(entry, "encoding")),
  };
}

function stringOrNull(value: JsonValue | undefined): string | null {
  return typeof value === "string" ? value : null;
}

function countField(value: JsonValue | undefined): number {
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
