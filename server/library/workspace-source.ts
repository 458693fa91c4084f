/**
 * Which files a snapshot line shows as its workspace (MISSION.md, "Finding a snapshot's
 * archive"): the archive named by its latest `FilesystemSnapshotRef` (found by file name
 * next to the session file), else `<stem>.fs.zip` beside the session file, else the line's
 * own `VirtualFileSystem` slice.
 */
import { lstat } from "node:fs/promises";
import path from "node:path";
import type { SessionSnapshot } from "../../shared/session/index.js";
import { extractVirtualFiles, findFilesystemSnapshotRef } from "../../shared/session/index.js";
import type { EnvelopeSummary } from "../../shared/session/index.js";
import type { FileSource, FilesystemMetaView } from "../../shared/viewer/index.js";
import { virtualFileSource } from "../../shared/viewer/index.js";
import type { ArchiveCache, ManifestSummary } from "./archive-cache.js";

/** A snapshot's workspace, or why it has none. */
export interface ResolvedWorkspace {
  readonly source: FileSource | null;
  /** The archive's manifest summary (read on first call), or null when the workspace is not an archive. */
  readonly manifest: (() => Promise<ManifestSummary>) | null;
  /** The archive's file name, when the workspace comes from an archive. */
  readonly archive: string | null;
  /** Why an archive that should be there could not be opened, or null. */
  readonly error: string | null;
}

const vfsSources = new WeakMap<SessionSnapshot, FileSource | null>();

/** The part of `archive_path` used to find the archive: its last component, if it is a plain name. */
export function archiveFileName(archivePath: string | null): string | null {
  if (archivePath === null) return null;
  const name = archivePath.split(/[\\/]/).pop() ?? "";
  if (name === "" || name === "." || name === ".." || /[\u0000-\u001f\u007f]/.test(name)) return null;
  return name;
}

/** `<stem>.fs.zip` for a session file name (`run.jsonl` → `run.fs.zip`). */
export function adjacentArchiveName(sessionFileName: string): string {
  return `${sessionFileName.replace(/\.jsonl?$/i, "")}.fs.zip`;
}

const hasSlice = (summary: EnvelopeSummary, name: string): boolean => summary.slices.some((slice) => slice.displayName === name || slice.itemDisplayName === name);

/**
 * Resolves the workspace of one line. `load` parses the line in full; it is only called
 * when the line has a `FilesystemSnapshotRef` or `VirtualFileSystem` slice.
 */
export async function resolveWorkspace(sessionFilePath: string, summary: EnvelopeSummary, load: () => Promise<SessionSnapshot>, archives: ArchiveCache): Promise<ResolvedWorkspace> {
  const directory = path.dirname(sessionFilePath);
  const candidates: string[] = [];
  const snapshot = hasSlice(summary, "FilesystemSnapshotRef") || hasSlice(summary, "VirtualFileSystem") ? await load() : null;
  const referenced = snapshot === null ? null : archiveFileName(findFilesystemSnapshotRef(snapshot)?.archivePath ?? null);
  if (referenced !== null) candidates.push(referenced);
  const adjacent = adjacentArchiveName(path.basename(sessionFilePath));
  if (!candidates.includes(adjacent)) candidates.push(adjacent);

  let error: string | null = null;
  for (const name of candidates) {
    const absolute = path.join(directory, name);
    const stats = await lstat(absolute).catch(() => null);
    if (stats === null) {
      if (name === referenced) error = `Archive ${name} (named by FilesystemSnapshotRef) is not next to the session file`;
      continue;
    }
    // Regular files only: a symlink could lead outside the served directory.
    if (!stats.isFile()) {
      error = `Archive ${name} is not a regular file`;
      continue;
    }
    try {
      const { source, manifest } = await archives.source(absolute, name);
      return { source, manifest, archive: name, error: null };
    } catch (cause) {
      error = `Archive ${name} cannot be opened: ${cause instanceof Error ? cause.message : String(cause)}`;
    }
  }
  const vfs = snapshot === null ? null : virtualSource(snapshot);
  return { source: vfs, manifest: null, archive: null, error: vfs === null ? error : null };
}

function virtualSource(snapshot: SessionSnapshot): FileSource | null {
  if (vfsSources.has(snapshot)) return vfsSources.get(snapshot) ?? null;
  const files = extractVirtualFiles(snapshot);
  const source = files === null ? null : virtualFileSource(files);
  vfsSources.set(snapshot, source);
  return source;
}

/** `/api/filesystem/meta` of a resolved workspace. */
export async function filesystemMeta(workspace: ResolvedWorkspace): Promise<FilesystemMetaView> {
  if (workspace.source === null) {
    return { has_archive: false, source: null, archive: null, manifest: null, file_count: 0, total_bytes: 0, error: workspace.error };
  }
  const [entries, summary] = await Promise.all([workspace.source.list(), workspace.manifest?.() ?? null]);
  let totalBytes = 0;
  for (const entry of entries) totalBytes += entry.size;
  return {
    has_archive: workspace.manifest !== null,
    source: workspace.source.kind,
    archive: workspace.archive,
    manifest: summary?.manifest ?? null,
    file_count: entries.length,
    total_bytes: totalBytes,
    error: summary?.error ?? null,
  };
}
