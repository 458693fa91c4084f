/**
 * Which files a snapshot line shows as its workspace (MISSION.md, "Finding a snapshot's
 * archive"): the archive named by its latest `FilesystemSnapshotRef` (found by file name
 * next to the session file), else `<stem>.fs.zip` beside the session file, else the line's
 * own `VirtualFileSystem` slice.
 */
import path from "node:path";
import type { SessionSnapshot } from "../../shared/session/index.js";
import { extractVirtualFiles } from "../../shared/session/index.js";
import type { EnvelopeSummary } from "../../shared/session/index.js";
import type { FileSource, FilesystemMetaView } from "../../shared/viewer/index.js";
import { archiveCandidates, filesystemMetaView, virtualFileSource } from "../../shared/viewer/index.js";
import type { DebugBundle } from "../../shared/debug-bundle/index.js";
import type { ArchiveCache, ManifestSummary } from "./archive-cache.js";
import type { ServedFiles } from "./served-files.js";

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

const hasSlice = (summary: EnvelopeSummary, name: string): boolean => summary.slices.some((slice) => slice.displayName === name || slice.itemDisplayName === name);

/**
 * Resolves the workspace of one line of the session file at `sessionFile` (relative to the
 * served root). `load` parses the line in full; it is only called when the line has a
 * `FilesystemSnapshotRef` or `VirtualFileSystem` slice.
 */
export async function resolveWorkspace(store: ServedFiles, sessionFile: string, summary: EnvelopeSummary, load: () => Promise<SessionSnapshot>, archives: ArchiveCache): Promise<ResolvedWorkspace> {
  const directory = path.posix.dirname(sessionFile);
  const snapshot = hasSlice(summary, "FilesystemSnapshotRef") || hasSlice(summary, "VirtualFileSystem") ? await load() : null;
  const { referenced, names: candidates } = archiveCandidates(path.posix.basename(sessionFile), snapshot);

  let error: string | null = null;
  for (const name of candidates) {
    const relative = directory === "." ? name : `${directory}/${name}`;
    const status = await store.archiveStatus(relative);
    if (status === "missing") {
      if (name === referenced) error = `Archive ${name} (named by FilesystemSnapshotRef) is not next to the session file`;
      continue;
    }
    // Regular files only: a symlink could lead outside the served directory.
    if (status === "not-regular") {
      error = `Archive ${name} is not a regular file`;
      continue;
    }
    try {
      const { source, manifest } = await archives.source(store.idOf(relative), name);
      return { source, manifest, archive: name, error: null };
    } catch (cause) {
      error = `Archive ${name} cannot be opened: ${cause instanceof Error ? cause.message : String(cause)}`;
    }
  }
  const vfs = snapshot === null ? null : virtualSource(snapshot);
  return { source: vfs, manifest: null, archive: null, error: vfs === null ? error : null };
}

/**
 * A debug bundle's workspace: its `filesystem/` capture, which WINK takes when the run ends,
 * so it belongs to the bundle's last session line (after, else before); the other line has
 * none. The manifest summary is the bundle's (format version, capture notes as warnings).
 */
export function bundleWorkspace(bundle: DebugBundle, lastLine: boolean): ResolvedWorkspace {
  const source = lastLine ? bundle.workspace() : null;
  if (source === null) return { source: null, manifest: null, archive: null, error: null };
  return { source, manifest: () => bundle.workspaceManifest(), archive: bundle.name, error: null };
}

function virtualSource(snapshot: SessionSnapshot): FileSource | null {
  if (vfsSources.has(snapshot)) return vfsSources.get(snapshot) ?? null;
  const files = extractVirtualFiles(snapshot);
  const source = files === null ? null : virtualFileSource(files);
  vfsSources.set(snapshot, source);
  return source;
}

/** `/api/filesystem/meta` of a resolved workspace. */
export function filesystemMeta(workspace: ResolvedWorkspace): Promise<FilesystemMetaView> {
  return filesystemMetaView({ source: workspace.source, archive: workspace.archive, manifest: workspace.source === null ? null : (workspace.manifest?.() ?? null), error: workspace.error });
}
