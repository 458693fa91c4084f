/**
 * The `Filesystem` protocol: one interface over every workspace backend (in memory, host
 * directory, Podman container). Tool handlers, snapshots, archives and the undo store only
 * ever talk to this interface.
 *
 * Paths are relative to the filesystem root, POSIX-style. `""`, `"."` and `"/"` name the
 * root. A leading `/` is root-relative, and when `mountPoint` is set (e.g. `/workspace`)
 * a path under it names the same file as the path without it. The full path rules are in
 * `paths.ts` and docs/filesystem.md; glob semantics are in `glob.ts`.
 */

import type { ArchiveLimits } from "./archive-limits.js";
import type { GlobSyntax } from "./glob.js";

export type WriteMode = "create" | "overwrite" | "append";

/** `limit` value of `read()` that returns every line of the file. */
export const READ_ENTIRE_FILE = -1;

export type EntryKind = "file" | "directory" | "symlink" | "other";

export interface FileStat {
  /** Normalised path relative to the root ("" for the root). */
  readonly path: string;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly kind: EntryKind;
  /** Size of a file in bytes; 0 for directories. */
  readonly sizeBytes: number;
  readonly createdAt: Date | null;
  readonly modifiedAt: Date | null;
  /** Permission bits (e.g. 0o755) where the backend keeps them, else null. */
  readonly mode: number | null;
}

export interface FileEntry {
  /** Last path segment. */
  readonly name: string;
  /** Normalised path relative to the root. */
  readonly path: string;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  /** Symlinks and special files are listed (so nothing is hidden) but never followed. */
  readonly kind: EntryKind;
}

export interface GlobMatch {
  readonly path: string;
  readonly isFile: boolean;
}

export interface GrepMatch {
  readonly path: string;
  /** 1-based line number. */
  readonly lineNumber: number;
  /** The line without its line terminator. */
  readonly lineContent: string;
  /** Offsets of the first match in `lineContent`, in UTF-16 code units (JavaScript string indices). */
  readonly matchStart: number;
  readonly matchEnd: number;
}

export interface ReadResult {
  readonly content: string;
  readonly path: string;
  /** Number of lines in the whole file (a final newline does not start a new line). */
  readonly totalLines: number;
  /** 0-based index of the first returned line. */
  readonly offset: number;
  /** Number of lines returned. */
  readonly limit: number;
  /** True when lines after the returned window exist. */
  readonly truncated: boolean;
}

export interface ReadBytesResult {
  readonly content: Uint8Array;
  readonly path: string;
  /** Size of the whole file. */
  readonly sizeBytes: number;
  readonly offset: number;
  /** Number of bytes returned. */
  readonly limit: number;
  readonly truncated: boolean;
}

export interface WriteResult {
  readonly path: string;
  /** Bytes written by this call (for append: the appended bytes, not the new size). */
  readonly bytesWritten: number;
  readonly mode: WriteMode;
}

export interface ReadOptions {
  /** 0-based line to start at (default 0). */
  offset?: number;
  /** Maximum lines; default `limits.defaultReadLimit`; `READ_ENTIRE_FILE` (-1) for all. */
  limit?: number | null;
  /** Text encoding: only UTF-8 ("utf-8", the default) is supported; anything else is EINVAL. */
  encoding?: string;
}

export interface ReadBytesOptions {
  offset?: number;
  /** Maximum bytes; default: to the end of the file. */
  limit?: number | null;
}

export interface WriteOptions {
  mode?: WriteMode;
  createParents?: boolean;
  /** Permission bits for a new file where the backend keeps them (default 0o644). */
  fileMode?: number;
}

export interface DeleteOptions {
  recursive?: boolean;
}

export interface MkdirOptions {
  parents?: boolean;
  existOk?: boolean;
}

export interface GlobOptions {
  /** Base directory; patterns match paths relative to it. Default: the root. */
  path?: string;
  /** `"fnmatch"` (default: Python's `fnmatch`, as WINK; `*` crosses `/`) or `"path"` (path-aware, `**` for any depth). */
  syntax?: GlobSyntax;
}

export interface GrepOptions {
  /** Base directory to search (default: root). A missing directory gives no matches. */
  path?: string;
  /** Only search files whose path (relative to `path`) matches this glob. */
  glob?: string | null;
  /** Syntax of `glob` (default `"fnmatch"`, as WINK). */
  globSyntax?: GlobSyntax;
  /** Cap on returned matches (default `limits.maxGrepMatches`). */
  maxMatches?: number | null;
  /** Make the pattern case-insensitive. */
  ignoreCase?: boolean;
  /** Abort the search. */
  signal?: AbortSignal;
  /** Wall-clock budget for this call (default `limits.grepTimeoutMs`). */
  timeoutMs?: number;
}

/** Result of exporting or importing a `.fs.zip` archive. */
export interface ArchiveSummary {
  /** The archive file. */
  readonly archivePath: string;
  readonly fileCount: number;
  /** Sum of the files' uncompressed sizes. */
  readonly totalBytes: number;
  /** Empty directories recorded in (or restored from) the manifest. */
  readonly directoryCount: number;
  /** Entries left out on export (symlinks, special files), each with the reason. */
  readonly skipped: readonly { path: string; reason: string }[];
}

export interface ExportArchiveOptions {
  /** Only export this subtree (default: the whole filesystem). */
  path?: string;
  /** Extra keys for manifest.json (e.g. session_id). */
  manifestExtra?: Record<string, unknown>;
  /** Progress callback: files written so far. */
  onProgress?: (progress: { files: number; bytes: number }) => void;
}

export interface ImportArchiveOptions {
  /** Override archive limits (entry count, bytes, ratio…). */
  limits?: Partial<ArchiveLimits>;
  /**
   * Restore `.git` paths (default false: refused, with the same normalisations as writes, see
   * `isGitMetadataSegment`). An archive is untrusted: a planted `.git/config` with
   * `core.fsmonitor` runs its command at the next `git status` anyone runs in the workspace.
   * Set it to restore a workspace's own nested repositories from an archive you trust
   * (snapshot managers do so for the archives they wrote themselves).
   */
  allowGitMetadata?: boolean;
  /** Refuse names that differ only in letter case (for case-folding targets). */
  caseInsensitive?: boolean;
  onProgress?: (progress: { files: number; bytes: number }) => void;
}

/** Sequential reader over a file's bytes (conformance 3.12). */
export interface ByteReader extends AsyncIterable<Uint8Array> {
  readonly path: string;
  readonly size: number;
  readonly position: number;
  readonly closed: boolean;
  /** Read up to `size` bytes (default: the rest of the file). Empty at EOF. */
  read(size?: number): Promise<Uint8Array>;
  /** Move the position; whence 0 = start, 1 = current, 2 = end. Returns the new position. */
  seek(offset: number, whence?: 0 | 1 | 2): Promise<number>;
  /** Iterate the rest of the file in chunks of `size` bytes. */
  chunks(size?: number): AsyncIterable<Uint8Array>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Writer whose bytes land atomically on `close()`; `abort()` (or disposal after an error) leaves the target unchanged. */
export interface ByteWriter {
  readonly path: string;
  readonly mode: WriteMode;
  readonly bytesWritten: number;
  readonly closed: boolean;
  write(data: Uint8Array | string): Promise<number>;
  writeAll(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): Promise<number>;
  /** Commit the written bytes. Idempotent. */
  close(): Promise<WriteResult>;
  /** Discard the written bytes; the target is left as it was. Idempotent; a no-op after close. */
  abort(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** UTF-8 text reader (conformance 3.12). */
export interface TextReader extends AsyncIterable<string> {
  readonly path: string;
  readonly encoding: "utf-8";
  /** Lines returned by `readline()` so far. */
  readonly lineNumber: number;
  readonly closed: boolean;
  read(): Promise<string>;
  /** Next line including its "\n"; "" at end of file. */
  readline(): Promise<string>;
  /** Remaining lines; `strip` removes trailing whitespace and the line terminator. */
  lines(options?: { strip?: boolean }): AsyncIterable<string>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The unified filesystem protocol. */
export interface Filesystem {
  /** Root of the workspace: a host path, or "/" for virtual filesystems. */
  readonly root: string;
  readonly readOnly: boolean;
  /** Virtual prefix (e.g. "/workspace") accepted in front of paths, or null. */
  readonly mountPoint: string | null;

  read(path: string, options?: ReadOptions): Promise<ReadResult>;
  readBytes(path: string, options?: ReadBytesOptions): Promise<ReadBytesResult>;
  exists(path: string): Promise<boolean>;
  stat(path: string): Promise<FileStat>;
  list(path?: string): Promise<FileEntry[]>;
  glob(pattern: string, options?: GlobOptions): Promise<GlobMatch[]>;
  grep(pattern: string, options?: GrepOptions): Promise<GrepMatch[]>;

  write(path: string, content: string, options?: WriteOptions): Promise<WriteResult>;
  writeBytes(path: string, content: Uint8Array, options?: WriteOptions): Promise<WriteResult>;
  delete(path: string, options?: DeleteOptions): Promise<void>;
  mkdir(path: string, options?: MkdirOptions): Promise<void>;

  openRead(path: string): Promise<ByteReader>;
  openWrite(path: string, options?: WriteOptions): Promise<ByteWriter>;
  openText(path: string, options?: { encoding?: string }): Promise<TextReader>;

  /** Write the whole filesystem (or `options.path`) to a `.fs.zip` archive. */
  exportArchive(archivePath: string, options?: ExportArchiveOptions): Promise<ArchiveSummary>;
  /** Replace the whole filesystem with an archive's contents: validated first, all-or-nothing. */
  importArchive(archivePath: string, options?: ImportArchiveOptions): Promise<ArchiveSummary>;
}
