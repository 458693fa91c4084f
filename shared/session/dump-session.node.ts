/**
 * Writing session trees to disk the way WINK's `dump_session` / `dump_session_tree` do:
 * `<root_session_id>.jsonl`, optionally with `<root_session_id>.fs.zip` beside it.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import type { ArchiveSummary } from "../filesystem/protocol.js";
import type { Session } from "./session-model.js";
import { sessionTreeLines } from "./session-model.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE } from "./workspace-items.js";

/** Anything that can export its files as an `.fs.zip` archive (every Filesystem can). */
export interface ArchiveExporter {
  exportArchive(archivePath: string): Promise<ArchiveSummary>;
}

export interface DumpSessionOptions {
  /** `created_at` of every line (default: each session's clock). */
  createdAt?: Date;
}

export interface DumpSessionTreeOptions extends DumpSessionOptions {
  /** When given, its archive is exported first and referenced from the root session. */
  filesystem?: ArchiveExporter;
}

/**
 * Writes the session tree rooted at `session` to `<session_id>.jsonl`: root first, then each
 * child subtree; sessions with only empty slices are skipped. `target` may be a directory
 * or a file path; a file name other than `<session_id>.jsonl` (e.g. `custom.json`) is
 * replaced by it in the same directory. Returns the path written, or null (nothing
 * written) when no session has any item. The file is replaced atomically.
 */
export async function dumpSession(session: Session, target: string, options: DumpSessionOptions = {}): Promise<string | null> {
  const targetPath = await resolveJsonlTarget(target, session.sessionId);
  const lines = sessionTreeLines(session, options);
  if (lines.length === 0) return null;
  await writeAtomically(targetPath, `${lines.join("\n")}\n`);
  return targetPath;
}

/**
 * Like {@link dumpSession}, into the directory `target` (or the directory of the file path
 * `target`). With `filesystem`, first exports `<session_id>.fs.zip` there and records a
 * `FilesystemSnapshotRef` item (`archive_path` = the archive's file name, `file_count`,
 * `total_bytes`) in the session, replacing any earlier one, before the snapshot is taken.
 * If the export fails, the session is left unchanged and nothing is written.
 */
export async function dumpSessionTree(session: Session, target: string, options: DumpSessionTreeOptions = {}): Promise<string | null> {
  const directory = await resolveTargetDirectory(target);
  if (options.filesystem !== undefined) {
    await mkdir(directory, { recursive: true });
    const archivePath = join(directory, `${session.sessionId}.fs.zip`);
    const summary = await options.filesystem.exportArchive(archivePath);
    session.replace(FILESYSTEM_SNAPSHOT_REF_TYPE, [
      { __type__: FILESYSTEM_SNAPSHOT_REF_TYPE, archive_path: basename(archivePath), file_count: summary.fileCount, total_bytes: summary.totalBytes },
    ]);
  }
  return dumpSession(session, join(directory, `${session.sessionId}.jsonl`), options);
}

/** WINK's `_resolve_target`: a directory gets `<id>.jsonl`; any other name is renamed to it. */
async function resolveJsonlTarget(target: string, sessionId: string): Promise<string> {
  const fileName = `${sessionId}.jsonl`;
  if (await isDirectory(target)) return join(target, fileName);
  if (extname(target) !== ".jsonl" || basename(target, ".jsonl") !== sessionId) return join(dirname(target), fileName);
  return target;
}

/**
 * An existing directory is used as is; a path with a file extension (or an existing file)
 * stands for its directory; any other path is a directory to create.
 */
async function resolveTargetDirectory(target: string): Promise<string> {
  if (await isDirectory(target)) return target;
  const exists = await stat(target).then(() => true, () => false);
  return exists || extname(target) !== "" ? dirname(target) : target;
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((stats) => stats.isDirectory(), () => false);
}

async function writeAtomically(path: string, content: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true });
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, content, { encoding: "utf8", flag: "wx" });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
