/**
 * Which archive files may hold a snapshot line's workspace (MISSION.md, "Finding a
 * snapshot's archive"): the one its latest `FilesystemSnapshotRef` names (by file name, next
 * to the session file), then `<stem>.fs.zip` beside the session file. Browser-safe: the web
 * app resolves dropped and bundled runs with it.
 */
import type { SessionSlice } from "../session/snapshot-line.js";
import { findFilesystemSnapshotRef } from "../session/workspace-items.js";

/** The last component of an `archive_path`, when it is a plain file name; else null. */
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

export interface ArchiveCandidates {
  /** The name the line's `FilesystemSnapshotRef` gives, or null. */
  readonly referenced: string | null;
  /** File names to try, in order, in the session file's directory. */
  readonly names: readonly string[];
}

/** The archive names to try for one line of the session file named `sessionFileName`. */
export function archiveCandidates(sessionFileName: string, snapshot: { readonly slices: readonly SessionSlice[] } | null): ArchiveCandidates {
  const referenced = snapshot === null ? null : archiveFileName(findFilesystemSnapshotRef(snapshot)?.archivePath ?? null);
  const adjacent = adjacentArchiveName(sessionFileName);
  return { referenced, names: referenced === null || referenced === adjacent ? [adjacent] : [referenced, adjacent] };
}
