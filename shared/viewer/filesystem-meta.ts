/**
 * The `/api/filesystem/meta` answer, built the same way by the server (archives opened with
 * the archive module) and by the web app's local API (archives read with jszip).
 */
import type { ArchiveManifest } from "../archive/manifest.js";
import type { FileSource } from "./file-source.js";
import type { FilesystemMetaView } from "./types.js";

/** What `/api/filesystem/meta` shows of an archive's manifest. */
export interface ArchiveManifestSummaryView {
  source: string;
  version: string;
  created_at: string;
  file_count: number;
  total_bytes: number;
  session_id: string | null;
  warnings: string[];
}

/** A parsed manifest, with the warnings reading the archive gave, as `/api/filesystem/meta` shows it. */
export function archiveManifestSummary(manifest: ArchiveManifest, warnings: readonly string[]): ArchiveManifestSummaryView {
  return {
    source: manifest.source,
    version: manifest.version,
    created_at: manifest.createdAt,
    file_count: manifest.fileCount,
    total_bytes: manifest.totalBytes,
    session_id: manifest.sessionId,
    warnings: [...warnings],
  };
}

/** An archive's manifest as read: the summary, or why the manifest was refused. */
export interface ArchiveManifestRead {
  readonly manifest: ArchiveManifestSummaryView | null;
  readonly error: string | null;
}

export interface FilesystemMetaInput {
  /** The snapshot's files, or null when it has no workspace. */
  readonly source: FileSource | null;
  /** The archive's file name, when the files come from an archive. */
  readonly archive: string | null;
  /** The archive's manifest (possibly still being read: it is awaited alongside the listing); null without an archive. */
  readonly manifest: ArchiveManifestRead | Promise<ArchiveManifestRead> | null;
  /** Without a source: why an archive that should be there could not be used. */
  readonly error: string | null;
}

/** `/api/filesystem/meta` of a snapshot's workspace. */
export async function filesystemMetaView(input: FilesystemMetaInput): Promise<FilesystemMetaView> {
  if (input.source === null) {
    return { has_archive: false, source: null, archive: null, manifest: null, file_count: 0, total_bytes: 0, error: input.error };
  }
  const [entries, read] = await Promise.all([input.source.list(), input.manifest]);
  let totalBytes = 0;
  for (const entry of entries) totalBytes += entry.size;
  return {
    has_archive: input.archive !== null,
    source: input.source.kind,
    archive: input.archive,
    manifest: read?.manifest ?? null,
    file_count: entries.length,
    total_bytes: totalBytes,
    error: read?.error ?? null,
  };
}
