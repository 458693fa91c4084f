/**
 * The whole `Filesystem` protocol, implemented once above a `FilesystemDriver`.
 *
 * Everything a caller can observe is decided here — path rules, limits, error codes for the
 * common cases, line pagination, UTF-8 handling, glob and grep semantics, streaming, archive
 * export/import — so the backends cannot drift apart. Drivers stay small and only move bytes
 * (and keep the host confined); they still check their own preconditions, because state can
 * change between our check and their operation.
 */
import {
  hasErrorCode,
  DirectoryNotEmptyError,
  FileExistsError,
  FileNotFoundError,
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  PermissionDeniedError,
} from "../../errors.js";
import type { DriverStat, FilesystemDriver, WalkEntry } from "../driver.js";
import { globMatcher } from "../glob.js";
import { ReadAhead } from "../read-ahead.js";
import { compileGrepPattern, GrepMatcher, type GrepFile } from "../grep-engine.js";
import { resolveLimits, type FilesystemLimits } from "../limits.js";
import { comparePaths, displayPath, joinPath, parentPath, relativeTo, resolveWorkspacePath } from "../paths.js";
import type {
  ArchiveSummary,
  ByteReader,
  ByteWriter,
  DeleteOptions,
  EntryKind,
  ExportArchiveOptions,
  FileEntry,
  FileStat,
  Filesystem,
  GlobMatch,
  GlobOptions,
  GrepMatch,
  GrepOptions,
  ImportArchiveOptions,
  MkdirOptions,
  ReadBytesOptions,
  ReadBytesResult,
  ReadOptions,
  ReadResult,
  TextReader,
  WriteMode,
  WriteOptions,
  WriteResult,
} from "../protocol.js";
import { BufferedByteWriter, RangeByteReader, Utf8TextReader } from "../streams.js";
import { checkUtf8Encoding, codePointCount, decodeUtf8OrThrow, encodeUtf8, sliceLines } from "../text.js";

export interface FilesystemOptions {
  readonly readOnly?: boolean;
  /** Virtual prefix accepted in front of paths, e.g. "/workspace". */
  readonly mountPoint?: string | null;
  readonly limits?: Partial<FilesystemLimits>;
  /** Allow creating paths with a ".git" segment (refused by default, as git itself does). */
  readonly allowGitMetadataWrites?: boolean;
}

const WRITE_MODES: readonly WriteMode[] = ["create", "overwrite", "append"];
/** Grep hands files to the matcher in batches of about this many bytes. */
const GREP_BATCH_BYTES = 2 * 1024 * 1024;
/** Files grep reads at the same time. */
const GREP_READ_CONCURRENCY = 32;
/** Chunk size when streaming a file into an archive. */
const EXPORT_CHUNK_BYTES = 1024 * 1024;
/** Small files an export reads ahead of the archive writer (see ReadAhead). */
const EXPORT_READ_AHEAD = { maxFileBytes: 256 * 1024, budgetBytes: 8 * 1024 * 1024, maxPending: 32 };

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function toStat(path: string, stat: DriverStat): FileStat {
  const result: FileStat = {
    path,
    isFile: stat.kind === "file",
    isDirectory: stat.kind === "directory",
    kind: stat.kind,
    sizeBytes: stat.kind === "file" ? stat.size : 0,
    createdAt: stat.birthtimeMs === null ? null : new Date(stat.birthtimeMs),
    modifiedAt: stat.mtimeMs === null ? null : new Date(stat.mtimeMs),
    mode: stat.mode,
  };
  return described(result, `FileStat(${path}, ${stat.kind}, ${stat.size} bytes)`);
}

/** Results print with their path (`String(result)`), without an enumerable extra key. */
function described<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, "toString", { value: () => text, enumerable: false });
  return value;
}

function describeKind(kind: EntryKind): string {
  return kind === "symlink" ? "a symbolic link" : kind === "other" ? "not a regular file" : kind;
}

/** A `Filesystem` over a driver. Backends subclass it (`InMemoryFilesystem`, `HostFilesystem`). */
export class DriverFilesystem implements Filesystem {
  readonly limits: FilesystemLimits;
  readonly readOnly: boolean;
  readonly mountPoint: string | null;
  private readonly allowGitMetadataWrites: boolean;

  constructor(
    protected readonly driver: FilesystemDriver,
    options: FilesystemOptions = {},
  ) {
    this.limits = resolveLimits(options.limits);
    this.readOnly = options.readOnly ?? false;
    this.mountPoint = options.mountPoint ?? null;
    this.allowGitMetadataWrites = options.allowGitMetadataWrites ?? false;
  }

  get root(): string {
    return this.driver.root;
  }

  // ---------------------------------------------------------------- paths and checks

  /** Normalised, confined relative path for reading (EINVAL / EACCES otherwise). */
  protected resolve(path: unknown): string {
    return resolveWorkspacePath(path, { mountPoint: this.mountPoint });
  }

  /** Like `resolve`, plus the limits and rules for paths that are about to be created. */
  protected resolveForCreate(path: unknown): string {
    return resolveWorkspacePath(path, {
      mountPoint: this.mountPoint,
      forCreate: true,
      limits: this.limits,
      allowGitMetadata: this.allowGitMetadataWrites,
    });
  }

  protected assertWritable(path?: string): void {
    if (this.readOnly) throw new PermissionDeniedError(path, `Filesystem is read-only${path === undefined ? "" : `: cannot modify ${displayPath(path)}`}`, { reason: "read-only" });
  }

  /** The error for a path that does not exist: ENOTDIR when a file stands on its way (as POSIX says), else ENOENT. */
  private async missing(path: string, message?: string): Promise<Error> {
    try {
      await this.ensureNoFileAbove(parentPath(path));
    } catch (error) {
      return error as Error;
    }
    return new FileNotFoundError(path, message);
  }

  /** Stat that must find a regular file (ENOENT, EISDIR, EACCES for links and special files). */
  private async requireFile(path: string): Promise<DriverStat> {
    const stat = await this.driver.stat(path);
    if (stat === null) throw await this.missing(path);
    if (stat.kind === "directory") throw new IsADirectoryError(path);
    if (stat.kind !== "file") {
      // The driver knows why a link cannot be read (ELOOP for a loop, EACCES otherwise): let it say so.
      if (stat.kind === "symlink") await this.driver.readFile(path);
      throw new PermissionDeniedError(path, `Refusing to read ${displayPath(path)}: ${describeKind(stat.kind)}`, { reason: stat.kind });
    }
    return stat;
  }

  private async requireDirectory(path: string): Promise<void> {
    const stat = await this.driver.stat(path);
    if (stat === null) throw await this.missing(path);
    if (stat.kind === "file") throw new NotADirectoryError(path);
    if (stat.kind !== "directory") throw new PermissionDeniedError(path, `Refusing to list ${displayPath(path)}: ${describeKind(stat.kind)}`, { reason: stat.kind });
  }

  /** Checks shared by write, writeBytes and openWrite; returns the resolved path. */
  private async prepareWrite(path: string, mode: WriteMode, createParents: boolean): Promise<string> {
    if (!WRITE_MODES.includes(mode)) throw new InvalidArgumentError(`Invalid write mode ${JSON.stringify(mode)}: expected create, overwrite or append`, { mode });
    const resolved = this.resolveForCreate(path);
    if (resolved === "") throw new InvalidArgumentError("Cannot write to root: give a file path", { path });
    if (path.endsWith("/")) throw new InvalidArgumentError(`Cannot write a file to ${displayPath(path)}: a trailing "/" names a directory`, { path });
    this.assertWritable(resolved);
    const stat = await this.driver.stat(resolved);
    if (stat !== null) {
      if (stat.kind === "directory") throw new IsADirectoryError(resolved);
      if (stat.kind !== "file") throw new PermissionDeniedError(resolved, `Refusing to write through ${displayPath(resolved)}: ${describeKind(stat.kind)}`, { reason: stat.kind });
      if (mode === "create") throw new FileExistsError(resolved);
    }
    const parent = parentPath(resolved);
    if (parent !== "") {
      const parentStat = await this.driver.stat(parent);
      if (parentStat === null) {
        await this.ensureNoFileAbove(parent);
        if (!createParents) throw new FileNotFoundError(parent, `Parent directory does not exist: ${displayPath(parent)} (pass createParents: true)`);
      } else if (parentStat.kind === "file") {
        throw new NotADirectoryError(parent);
      } else if (parentStat.kind !== "directory") {
        throw new PermissionDeniedError(parent, `Refusing to write below ${displayPath(parent)}: ${describeKind(parentStat.kind)}`, { reason: parentStat.kind });
      }
    }
    return resolved;
  }

  /** When parents will be created, a file or link on the way is an error, not something to replace. */
  private async ensureNoFileAbove(path: string): Promise<void> {
    let current = path;
    while (current !== "") {
      const stat = await this.driver.stat(current);
      if (stat !== null) {
        if (stat.kind === "directory") return;
        if (stat.kind === "file") throw new NotADirectoryError(current);
        throw new PermissionDeniedError(current, `Refusing to create directories below ${displayPath(current)}: ${describeKind(stat.kind)}`, { reason: stat.kind });
      }
      current = parentPath(current);
    }
  }

  private async writeResolved(resolved: string, data: Uint8Array, mode: WriteMode, createParents: boolean, fileMode?: number): Promise<WriteResult> {
    await this.driver.writeFile(resolved, data, { mode, createParents, ...(fileMode === undefined ? {} : { fileMode }) });
    return described({ path: resolved, bytesWritten: data.length, mode }, `WriteResult(${resolved}, ${data.length} bytes, ${mode})`);
  }

  // ---------------------------------------------------------------- reading

  async read(path: string, options: ReadOptions = {}): Promise<ReadResult> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? this.limits.defaultReadLimit;
    checkUtf8Encoding(options.encoding);
    if (!isNonNegativeInteger(offset)) throw new InvalidArgumentError(`offset must be non-negative, got ${String(offset)}`, { offset });
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < -1) {
      throw new InvalidArgumentError(`limit must be non-negative (or -1 for the whole file), got ${String(limit)}`, { limit });
    }
    const resolved = this.resolve(path);
    if (resolved === "") throw new IsADirectoryError(resolved, "Is a directory: the root");
    await this.requireFile(resolved);
    const text = decodeUtf8OrThrow(await this.driver.readFile(resolved), resolved);
    const window = sliceLines(text, offset, limit);
    return described(
      { content: window.content, path: resolved, totalLines: window.totalLines, offset: window.offset, limit: window.count, truncated: window.truncated },
      `ReadResult(${resolved}, lines ${window.offset}..${window.offset + window.count} of ${window.totalLines})`,
    );
  }

  async readBytes(path: string, options: ReadBytesOptions = {}): Promise<ReadBytesResult> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? null;
    if (!isNonNegativeInteger(offset)) throw new InvalidArgumentError(`offset must be non-negative, got ${String(offset)}`, { offset });
    if (limit !== null && !isNonNegativeInteger(limit)) throw new InvalidArgumentError(`limit must be non-negative, got ${String(limit)}`, { limit });
    const resolved = this.resolve(path);
    if (resolved === "") throw new IsADirectoryError(resolved, "Is a directory: the root");
    const stat = await this.requireFile(resolved);
    const start = Math.min(offset, stat.size);
    const length = limit === null ? stat.size - start : Math.min(limit, stat.size - start);
    const content = length > 0 ? await this.driver.readFile(resolved, { offset: start, length }) : new Uint8Array(0);
    return { content, path: resolved, sizeBytes: stat.size, offset, limit: content.length, truncated: start + content.length < stat.size };
  }

  /** False for anything the caller cannot reach: malformed paths, escapes, paths through symlinks. */
  async exists(path: string): Promise<boolean> {
    try {
      return (await this.driver.stat(this.resolve(path))) !== null;
    } catch (error) {
      if (hasErrorCode(error, "EACCES") || hasErrorCode(error, "ELOOP") || hasErrorCode(error, "EINVAL")) return false;
      throw error;
    }
  }

  async stat(path: string): Promise<FileStat> {
    const resolved = this.resolve(path);
    const stat = await this.driver.stat(resolved);
    if (stat === null) throw await this.missing(resolved);
    return toStat(resolved, stat);
  }

  async list(path = "."): Promise<FileEntry[]> {
    const resolved = this.resolve(path);
    await this.requireDirectory(resolved);
    const entries = await this.driver.list(resolved);
    return entries
      .map((entry) => {
        const entryPath = joinPath(resolved, entry.name);
        const result: FileEntry = { name: entry.name, path: entryPath, isFile: entry.kind === "file", isDirectory: entry.kind === "directory", kind: entry.kind };
        return described(result, `FileEntry(${entryPath}, ${entry.kind})`);
      })
      .sort((a, b) => comparePaths(a.name, b.name));
  }

  /** Files below `base` (a directory; missing → none), sorted by path, restricted to `prefix` when given. */
  private async filesBelow(base: string): Promise<WalkEntry[]> {
    const stat = await this.driver.stat(base);
    if (stat === null || stat.kind !== "directory") return [];
    const files: WalkEntry[] = [];
    for await (const entry of this.driver.walk(base)) if (entry.kind === "file") files.push(entry);
    return files.sort((a, b) => comparePaths(a.path, b.path));
  }

  async glob(pattern: string, options: GlobOptions = {}): Promise<GlobMatch[]> {
    const matcher = globMatcher(pattern, options.syntax === undefined ? {} : { syntax: options.syntax });
    const base = this.resolve(options.path ?? ".");
    // Walk only below the directory the pattern's literal start names ("src/*.ts" → "src").
    if (matcher.literalDirectory === null) return [];
    let walkBase = base;
    try {
      walkBase = resolveWorkspacePath(joinPath(base, matcher.literalDirectory));
    } catch {
      // A name our path rules refuse may still exist on disk: walk the whole base for it.
    }
    const matches: GlobMatch[] = [];
    for (const file of await this.filesBelow(walkBase)) {
      if (matcher.test(relativeTo(file.path, base))) {
        matches.push(described({ path: file.path, isFile: true }, `GlobMatch(${file.path})`));
      }
    }
    return matches;
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepMatch[]> {
    const compiled = compileGrepPattern(pattern, { ignoreCase: options.ignoreCase ?? false, maxLength: this.limits.maxPatternLength });
    const maxMatches = options.maxMatches ?? this.limits.maxGrepMatches;
    if (!isNonNegativeInteger(maxMatches)) throw new InvalidArgumentError(`maxMatches must be a non-negative integer, got ${String(maxMatches)}`, { maxMatches });
    const fileFilter = options.glob ? globMatcher(options.glob, options.globSyntax === undefined ? {} : { syntax: options.globSyntax }) : null;
    const base = this.resolve(options.path ?? ".");
    if (maxMatches === 0) return [];
    const budget = options.timeoutMs ?? this.limits.grepTimeoutMs;
    if (!(budget > 0)) throw new InvalidArgumentError(`timeoutMs must be positive, got ${String(budget)}`, { timeoutMs: budget });
    const matcher = new GrepMatcher(compiled, budget, options.signal);
    const matches: GrepMatch[] = [];
    try {
      const candidates = this.driver.grepCandidates
        ? await this.driver.grepCandidates(base, {
            pattern: compiled.source,
            ignoreCase: compiled.flags.includes("i"),
            timeoutMs: budget,
            ...(options.signal ? { signal: options.signal } : {}),
          })
        : null;
      const files = (await this.filesBelow(base)).filter(
        (file) =>
          (candidates === null || candidates.has(file.path)) &&
          (fileFilter === null || fileFilter.test(relativeTo(file.path, base))) &&
          file.size <= this.limits.maxGrepFileBytes,
      );
      let batch: GrepFile[] = [];
      let batchBytes = 0;
      // Reading the next files overlaps with matching the previous batch in the worker;
      // batches are matched one after another, so results stay in path order.
      let pending: Promise<GrepMatch[]> | null = null;
      const settle = async (): Promise<void> => {
        if (pending !== null) matches.push(...(await pending));
        pending = null;
      };
      for (let start = 0; start < files.length && matches.length < maxMatches; start += GREP_READ_CONCURRENCY) {
        matcher.checkBudget();
        options.signal?.throwIfAborted();
        const chunk = files.slice(start, start + GREP_READ_CONCURRENCY);
        const contents = await Promise.all(chunk.map((file) => this.driver.readFile(file.path).catch(() => null)));
        chunk.forEach((file, i) => {
          const bytes = contents[i];
          // A file that vanished or became unreadable since the walk is skipped.
          if (bytes === null || bytes === undefined) return;
          batch.push({ path: file.path, bytes });
          batchBytes += bytes.length;
        });
        if (batchBytes >= GREP_BATCH_BYTES) {
          await settle();
          if (matches.length >= maxMatches) break;
          pending = matcher.match(batch, maxMatches - matches.length);
          batch = [];
          batchBytes = 0;
        }
      }
      await settle();
      if (matches.length < maxMatches) matches.push(...(await matcher.match(batch, maxMatches - matches.length)));
    } finally {
      matcher.close();
    }
    return matches.slice(0, maxMatches).map((match) => described(match, `GrepMatch(${match.path}:${match.lineNumber}: ${match.lineContent})`));
  }

  // ---------------------------------------------------------------- writing

  async write(path: string, content: string, options: WriteOptions = {}): Promise<WriteResult> {
    if (typeof content !== "string") throw new InvalidArgumentError("Content must be a string (use writeBytes for binary data)", { path });
    if (content.length > this.limits.maxWriteChars && codePointCount(content) > this.limits.maxWriteChars) {
      throw new InvalidArgumentError(`Content exceeds maximum length of ${this.limits.maxWriteChars} characters`, { path, limit: this.limits.maxWriteChars });
    }
    const mode = options.mode ?? "overwrite";
    const createParents = options.createParents ?? true;
    const resolved = await this.prepareWrite(path, mode, createParents);
    return this.writeResolved(resolved, encodeUtf8(content), mode, createParents, options.fileMode);
  }

  async writeBytes(path: string, content: Uint8Array, options: WriteOptions = {}): Promise<WriteResult> {
    if (!(content instanceof Uint8Array)) throw new InvalidArgumentError("Content must be a Uint8Array", { path });
    if (content.length > this.limits.maxWriteBytes) {
      throw new InvalidArgumentError(`Content exceeds maximum of ${this.limits.maxWriteBytes} bytes`, { path, limit: this.limits.maxWriteBytes });
    }
    const mode = options.mode ?? "overwrite";
    const createParents = options.createParents ?? true;
    const resolved = await this.prepareWrite(path, mode, createParents);
    return this.writeResolved(resolved, content, mode, createParents, options.fileMode);
  }

  async delete(path: string, options: DeleteOptions = {}): Promise<void> {
    const resolved = this.resolve(path);
    if (resolved === "") throw new PermissionDeniedError(path, "Cannot delete root", { reason: "root" });
    this.assertWritable(resolved);
    const stat = await this.driver.stat(resolved);
    if (stat === null) throw await this.missing(resolved);
    const recursive = options.recursive ?? false;
    if (stat.kind === "directory" && !recursive && (await this.driver.list(resolved)).length > 0) {
      throw new DirectoryNotEmptyError(resolved, `Directory not empty: ${displayPath(resolved)} (pass recursive: true)`);
    }
    await this.driver.remove(resolved, { recursive });
  }

  async mkdir(path: string, options: MkdirOptions = {}): Promise<void> {
    const parents = options.parents ?? true;
    const existOk = options.existOk ?? true;
    const resolved = this.resolveForCreate(path);
    if (resolved === "") return;
    this.assertWritable(resolved);
    const stat = await this.driver.stat(resolved);
    if (stat !== null) {
      if (stat.kind === "directory" && existOk) return;
      throw new FileExistsError(resolved);
    }
    const parent = parentPath(resolved);
    if (parent !== "") {
      const parentStat = await this.driver.stat(parent);
      if (parentStat === null) {
        await this.ensureNoFileAbove(parent);
        if (!parents) throw new FileNotFoundError(parent, `Parent directory does not exist: ${displayPath(parent)} (pass parents: true)`);
      } else if (parentStat.kind !== "directory") throw new NotADirectoryError(parent);
    }
    await this.driver.mkdir(resolved, { parents, existOk });
  }

  // ---------------------------------------------------------------- streaming

  async openRead(path: string): Promise<ByteReader> {
    const resolved = this.resolve(path);
    if (resolved === "") throw new IsADirectoryError(resolved, "Is a directory: the root");
    const stat = await this.requireFile(resolved);
    return new RangeByteReader(resolved, stat.size, (offset, length) => this.driver.readFile(resolved, { offset, length }));
  }

  async openWrite(path: string, options: WriteOptions = {}): Promise<ByteWriter> {
    const mode = options.mode ?? "overwrite";
    const createParents = options.createParents ?? true;
    const resolved = await this.prepareWrite(path, mode, createParents);
    return new BufferedByteWriter(resolved, mode, this.limits.maxWriteBytes, async (data) => {
      // Re-check at commit time: the target may have appeared while the writer was open.
      if (mode === "create" && (await this.driver.stat(resolved)) !== null) throw new FileExistsError(resolved);
      return this.writeResolved(resolved, data, mode, createParents, options.fileMode);
    });
  }

  async openText(path: string, options: { encoding?: string } = {}): Promise<TextReader> {
    checkUtf8Encoding(options.encoding);
    return new Utf8TextReader(await this.openRead(path));
  }

  // ---------------------------------------------------------------- archives

  async exportArchive(archivePath: string, options: ExportArchiveOptions = {}): Promise<ArchiveSummary> {
    const { writeArchive } = await import("../../archive/index.js");
    const base = this.resolve(options.path ?? ".");
    await this.requireDirectory(base);
    const skipped: { path: string; reason: string }[] = [];
    const nodes: WalkEntry[] = [];
    for await (const entry of this.driver.walk(base)) {
      if (entry.kind === "file" || entry.kind === "directory") nodes.push(entry);
      else skipped.push({ path: entry.path, reason: entry.kind === "symlink" ? "symbolic link" : "not a regular file" });
    }
    nodes.sort((a, b) => comparePaths(a.path, b.path));
    const driver = this.driver;
    const readAhead = new ReadAhead(nodes, (node) => driver.readFile(node.path, { offset: 0, length: node.size }), EXPORT_READ_AHEAD);
    async function* source() {
      for (const [index, node] of nodes.entries()) {
        yield {
          path: relativeTo(node.path, base),
          kind: node.kind as "file" | "directory",
          size: node.size,
          mode: node.mode,
          mtimeMs: node.mtimeMs,
          async *chunks(): AsyncIterable<Uint8Array> {
            if (readAhead.isSmall(index)) {
              yield await readAhead.take(index);
              return;
            }
            for (let offset = 0; offset < node.size; offset += EXPORT_CHUNK_BYTES) {
              yield await driver.readFile(node.path, { offset, length: Math.min(EXPORT_CHUNK_BYTES, node.size - offset) });
            }
          },
        };
      }
    }
    const summary = await writeArchive(archivePath, source(), {
      ...(options.manifestExtra === undefined ? {} : { manifestExtra: options.manifestExtra }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    return { ...summary, skipped: [...summary.skipped, ...skipped] };
  }

  async importArchive(archivePath: string, options: ImportArchiveOptions = {}): Promise<ArchiveSummary> {
    this.assertWritable();
    const { extractArchive } = await import("../../archive/index.js");
    let summary: ArchiveSummary | null = null;
    await this.driver.replaceTree(async (tx) => {
      summary = await extractArchive(archivePath, tx, {
        allowGitMetadata: options.allowGitMetadata ?? false,
        caseInsensitive: options.caseInsensitive ?? false,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      });
    });
    if (summary === null) throw new InvalidArgumentError(`Archive import produced no result: ${archivePath}`, { archivePath });
    return summary;
  }

  /** Short description for logs and `String(fs)`. */
  toString(): string {
    return `${this.constructor.name}(${this.driver.name}: ${this.root}${this.readOnly ? ", read-only" : ""})`;
  }
}

