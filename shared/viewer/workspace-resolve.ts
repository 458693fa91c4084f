/**
 * Which files a snapshot line shows as its workspace (MISSION.md, "Finding a snapshot's
 * archive"): the archive named by its latest `FilesystemSnapshotRef` (found by file name
 * next to the session file), else `<stem>.fs.zip` beside the session file, else the line's
 * own `VirtualFileSystem` slice. One computation for the server (archives in the served
 * directory) and the web app's local API (archives dropped with the session file): they
 * differ only in how an archive is looked up and opened.
 */
import type { SessionSnapshot } from "../session/snapshot-line.js";
import { extractVirtualFiles } from "../session/workspace-items.js";
import type { FileSource } from "./file-source.js";
import { virtualFileSource } from "./file-source.js";
import type { ArchiveManifestRead } from "./filesystem-meta.js";
import { filesystemMetaView } from "./filesystem-meta.js";
import type { FilesystemMetaView } from "./types.js";
import { archiveCandidates } from "./workspace-archives.js";

/** A snapshot's workspace, or why it has none. */
export interface ResolvedWorkspace {
  readonly source: FileSource | null;
  /** The archive's manifest summary (read on first call), or null when the workspace is not an archive. */
  readonly manifest: (() => Promise<ArchiveManifestRead>) | null;
  /** The archive's file name, when the workspace comes from an archive. */
  readonly archive: string | null;
  /** Why an archive that should be there could not be opened, or null. */
  readonly error: string | null;
}

/** An opened archive: its files and its manifest summary (read on first call). */
export interface OpenedWorkspaceArchive {
  readonly source: FileSource;
  readonly manifest: () => Promise<ArchiveManifestRead>;
}

/** Where archives beside a session file are looked for. */
export interface WorkspaceArchives {
  /** How a referenced archive that is not there is reported: "is not next to the session file". */
  readonly missing: string;
  /** What `name` (a file name in the session file's directory) is there: regular files only, a symlink could lead out. */
  status(name: string): Promise<"missing" | "not-regular" | "file">;
  /** Opens the archive `name` (its status was "file"); a rejection is reported as the workspace's error. */
  open(name: string): Promise<OpenedWorkspaceArchive>;
}

const vfsSources = new WeakMap<SessionSnapshot, FileSource | null>();

/** The line's `VirtualFileSystem` slice as a file source (built once per snapshot), or null. */
function virtualSource(snapshot: SessionSnapshot): FileSource | null {
  if (vfsSources.has(snapshot)) return vfsSources.get(snapshot) ?? null;
  const files = extractVirtualFiles(snapshot);
  const source = files === null ? null : virtualFileSource(files);
  vfsSources.set(snapshot, source);
  return source;
}

/**
 * Resolves the workspace of `snapshot` (null when the line has neither a
 * `FilesystemSnapshotRef` nor a `VirtualFileSystem` slice, so need not be parsed), a line of
 * the session file named `sessionFileName`.
 */
export async function resolveWorkspace(sessionFileName: string, snapshot: SessionSnapshot | null, archives: WorkspaceArchives): Promise<ResolvedWorkspace> {
  const { referenced, names } = archiveCandidates(sessionFileName, snapshot);
  let error: string | null = null;
  for (const name of names) {
    const status = await archives.status(name);
    if (status === "missing") {
      if (name === referenced) error = `Archive ${name} (named by FilesystemSnapshotRef) ${archives.missing}`;
      continue;
    }
    if (status === "not-regular") {
      error = `Archive ${name} is not a regular file`;
      continue;
    }
    try {
      const { source, manifest } = await archives.open(name);
      return { source, manifest, archive: name, error: null };
    } catch (cause) {
      error = `Archive ${name} cannot be opened: ${cause instanceof Error ? cause.message : String(cause)}`;
    }
  }
  const vfs = snapshot === null ? null : virtualSource(snapshot);
  return { source: vfs, manifest: null, archive: null, error: vfs === null ? error : null };
}

/** What a debug bundle offers as a workspace (`DebugBundle` has it). */
export interface BundleWorkspaceSource {
  readonly name: string;
  workspace(): FileSource | null;
  workspaceManifest(): Promise<ArchiveManifestRead>;
}

/**
 * A debug bundle's workspace: its `filesystem/` capture, which WINK takes when the run ends,
 * so it belongs to the bundle's last session line (after, else before); the other line has
 * none. The manifest summary is the bundle's (format version, capture notes as warnings).
 */
export function bundleWorkspace(bundle: BundleWorkspaceSource, lastLine: boolean): ResolvedWorkspace {
  const source = lastLine ? bundle.workspace() : null;
  if (source === null) return { source: null, manifest: null, archive: null, error: null };
  return { source, manifest: () => bundle.workspaceManifest(), archive: bundle.name, error: null };
}

/** `/api/filesystem/meta` of a resolved workspace. */
export function workspaceMetaView(workspace: ResolvedWorkspace): Promise<FilesystemMetaView> {
  return filesystemMetaView({ source: workspace.source, archive: workspace.archive, manifest: workspace.source === null ? null : (workspace.manifest?.() ?? null), error: workspace.error });
}
