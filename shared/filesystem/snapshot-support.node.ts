/**
 * Helpers of the snapshot contract that every strategy uses (in-memory, host, Podman and the
 * archive manager): snapshot ids as file names, archives written whole or not at all, and
 * restore failures that keep their cause's code.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { InvalidArgumentError, SnapshotCreationError, SnapshotRestoreError, WinkError } from "../errors.js";
import type { ArchiveSummary, ExportArchiveOptions, Filesystem } from "./protocol.js";

/** A snapshot id becomes a file name: keep it one harmless path segment. */
export function checkSnapshotId(snapshotId: string): void {
  if (typeof snapshotId !== "string" || snapshotId === "" || snapshotId === "." || snapshotId === ".." || snapshotId.length > 200 || /[/\\\u0000-\u001f\u007f]/.test(snapshotId)) {
    throw new InvalidArgumentError(`Invalid snapshot id ${JSON.stringify(snapshotId)}: use 1–200 characters without slashes or control characters`, { snapshotId });
  }
}

/**
 * Export to a temporary name beside `archivePath`, then rename: a reader never sees half an
 * archive. An export that had to leave entries out (symlinks, special files, names an
 * archive cannot hold) is refused: a snapshot that silently lost files would restore wrong.
 */
export async function exportArchiveAtomically(filesystem: Filesystem, archivePath: string, options: ExportArchiveOptions = {}): Promise<ArchiveSummary> {
  mkdirSync(path.dirname(archivePath), { recursive: true });
  const temp = path.join(path.dirname(archivePath), `.${path.basename(archivePath)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    const summary = await filesystem.exportArchive(temp, options);
    if (summary.skipped.length > 0) {
      const listed = summary.skipped.slice(0, 5).map((s) => `${s.path} (${s.reason})`).join(", ");
      const more = summary.skipped.length > 5 ? ` and ${summary.skipped.length - 5} more` : "";
      throw new SnapshotCreationError(`Cannot snapshot as an archive without losing entries: ${listed}${more}. Use the git, copy or reflink strategy for this workspace.`, {
        skipped: summary.skipped.slice(0, 100),
      });
    }
    renameSync(temp, archivePath);
    return { ...summary, archivePath };
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** A SnapshotRestoreError around `error`, keeping its code (e.g. E_ARCHIVE_CHECKSUM) in `data.causeCode`. */
export function restoreFailure(error: unknown, name: string, data: Record<string, unknown>): SnapshotRestoreError {
  const reason = error instanceof Error ? error.message : String(error);
  const causeCode = error instanceof WinkError ? error.code : undefined;
  return new SnapshotRestoreError(`Failed to restore snapshot ${name}: ${reason}`, { ...data, ...(causeCode === undefined ? {} : { causeCode }) }, { cause: error });
}
