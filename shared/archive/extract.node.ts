/**
 * Import: validate a whole `.fs.zip` archive, then stream it into a `TreeTransaction`.
 *
 * Everything that can be checked without inflating is checked before the first `tx` call:
 * the central directory (names, duplicates, conflicts, overlaps, methods, encryption,
 * symlinks/special files, ZIP64), the manifest schema and its file list, declared sizes
 * against the limits and the compression ratio, `.git` paths, and every local header.
 * Then each entry is inflated with its output capped at its declared size, its CRC-32 and
 * manifest SHA-256 checked, and its mode sanitised. Any error throws (naming the entry);
 * the driver's `replaceTree` then discards the transaction, so the workspace is unchanged:
 *
 *     await driver.replaceTree((tx) => extractArchive(path, tx, options));
 */
import { createHash } from "node:crypto";
import { ArchiveError, StorageIOError, WinkError } from "../errors.js";
import type { TreeTransaction } from "../filesystem/driver.js";
import type { ArchiveSummary } from "../filesystem/protocol.js";
import { displayPath } from "../filesystem/paths.js";
import type { CentralEntry } from "./central-directory.js";
import { checkEntryLimits } from "./entry-checks.js";
import { decodeEntryData } from "./entry-data.node.js";
import { findGitMetadataSegment } from "./entry-names.js";
import { sortByOffset } from "./entry-set.js";
import type { ArchiveLimits } from "../filesystem/archive-limits.js";
import type { ArchiveManifest } from "./manifest.js";
import {
  WHOLE_READ_MAX_BYTES,
  fileEntriesOf,
  internalsOf,
  locateAllData,
  openArchive,
  readLocatedRegion,
  streamLocatedEntry,
  withArchivePath,
  type ArchiveFileEntry,
  type ArchiveReader,
} from "./reader.node.js";
import { sanitizeMode } from "./zip-format.js";

export interface ExtractArchiveOptions {
  limits?: Partial<ArchiveLimits>;
  /** Called after each file with the files and bytes written so far. */
  onProgress?: (progress: { files: number; bytes: number }) => void;
  /** Accept `.git` path segments (default false: refused in any letter case, like git's `verify_path`). */
  allowGitMetadata?: boolean;
  /** The target folds case: refuse paths that differ only in letter case (default false). */
  caseInsensitive?: boolean;
}

/** Small entries read and inflated ahead of the one being written. */
const READ_AHEAD_ENTRIES = 8;
const READ_AHEAD_BYTES = 32 * 1024 * 1024;
/** One grouped read of adjacent small entries spans at most this many bytes… */
const GROUP_BYTES = 1024 * 1024;
/** …with at most this much between two entries' data (the next local header). */
const GROUP_GAP_BYTES = 4096;

interface PlannedFile {
  readonly entry: CentralEntry;
  readonly file: ArchiveFileEntry;
  readonly dataStart: number;
  readonly sha256: string | null;
}

interface Plan {
  readonly files: readonly PlannedFile[];
  readonly emptyDirectories: readonly string[];
  readonly directoryModes: ReadonlyMap<string, number>;
}

function limitError(entry: string, message: string, limit: number, actual: number): never {
  throw new ArchiveError("E_ARCHIVE_LIMIT", `${message}: ${displayPath(entry)}`, { entry, limit, actual });
}

/** An entry's own limits (the shared policy every reader applies), then the total an extraction may produce. */
function checkSizes(entry: CentralEntry, limits: ArchiveLimits, totalSoFar: number): void {
  checkEntryLimits(entry, limits.maxFileBytes, limits);
  if (totalSoFar + entry.size > limits.maxTotalBytes) {
    limitError(entry.name, `Archive holds more than the limit of ${limits.maxTotalBytes} bytes (reached at this entry)`, limits.maxTotalBytes, totalSoFar + entry.size);
  }
}

function checkGitPaths(paths: Iterable<{ path: string; entry: string }>): void {
  for (const { path, entry } of paths) {
    const segment = findGitMetadataSegment(path);
    if (segment !== null) {
      throw new ArchiveError("E_ARCHIVE_ENTRY", `Refusing git metadata path (${displayPath(segment)} segment): ${displayPath(entry)}`, { entry, reason: "git-metadata" });
    }
  }
}

/** Refuse distinct paths (or their parent directories) that a case-folding filesystem would merge. */
function checkCaseConflicts(paths: Iterable<{ path: string; entry: string }>): void {
  const seen = new Map<string, string>();
  for (const { path, entry } of paths) {
    for (let end = path.length; end > 0; end = path.lastIndexOf("/", end - 1)) {
      const prefix = path.slice(0, end);
      const folded = prefix.normalize("NFC").toLowerCase();
      const other = seen.get(folded);
      if (other === prefix) break;
      if (other !== undefined) {
        throw new ArchiveError("E_ARCHIVE_ENTRY", `Path differs only in letter case from ${displayPath(other)}: ${displayPath(entry)}`, {
          entry,
          reason: "case-conflict",
          conflictsWith: other,
        });
      }
      seen.set(folded, prefix);
    }
  }
}

function checkManifestFiles(manifest: ArchiveManifest, reader: ArchiveReader): Map<string, string> {
  const hashes = new Map<string, string>();
  (manifest.files ?? []).forEach((record, index) => {
    const file = reader.getFile(record.path);
    if (file === undefined) {
      throw new ArchiveError("E_ARCHIVE_MANIFEST", `${manifest.source} lists a file the archive does not hold: ${displayPath(record.path)}`, {
        entry: manifest.source,
        field: `files[${index}]`,
        path: record.path,
      });
    }
    if (file.size !== record.sizeBytes) {
      throw new ArchiveError("E_ARCHIVE_MANIFEST", `${manifest.source} says ${record.sizeBytes} bytes, the entry declares ${file.size}: ${displayPath(file.entryName)}`, {
        entry: file.entryName,
        field: `files[${index}].size_bytes`,
      });
    }
    if (record.sha256 !== null) hashes.set(record.path, record.sha256);
  });
  return hashes;
}

/** Every check that needs no inflation; returns what to create, in archive order. */
async function planExtraction(reader: ArchiveReader, options: ExtractArchiveOptions): Promise<Plan> {
  const fileEntries = fileEntriesOf(reader);
  const manifest = reader.manifest as ArchiveManifest;
  const limits = reader.limits;
  const described = [
    ...reader.files.map((file) => ({ path: file.path, entry: file.entryName })),
    ...reader.directories.map((path) => ({ path, entry: `${reader.variant === "files" ? "files/" : ""}${path}/` })),
  ];
  if (!options.allowGitMetadata) checkGitPaths(described);
  if (options.caseInsensitive) checkCaseConflicts(described);
  let total = 0;
  for (const entry of fileEntries) {
    checkSizes(entry, limits, total);
    total += entry.size;
  }
  const hashes = checkManifestFiles(manifest, reader);
  const starts = await locateAllData(reader, fileEntries);

  const fileOf = new Map<CentralEntry, ArchiveFileEntry>();
  fileEntries.forEach((entry, index) => fileOf.set(entry, reader.files[index] as ArchiveFileEntry));
  const files = sortByOffset(fileEntries).map((entry) => {
    const file = fileOf.get(entry) as ArchiveFileEntry;
    return { entry, file, dataStart: starts.get(entry) as number, sha256: hashes.get(file.path) ?? null };
  });

  const nonEmpty = new Set<string>();
  for (const path of [...reader.files.map((f) => f.path), ...reader.directories]) {
    for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
      const parent = path.slice(0, slash);
      if (nonEmpty.has(parent)) break;
      nonEmpty.add(parent);
    }
  }
  const directoryModes = new Map<string, number>();
  const { directoryEntries } = internalsOf(reader);
  const prefix = reader.variant === "files" ? "files/" : "";
  for (const entry of directoryEntries) {
    if (entry.mode !== null) directoryModes.set(entry.path.slice(prefix.length), entry.mode);
  }
  return { files, emptyDirectories: reader.directories.filter((path) => !nonEmpty.has(path)), directoryModes };
}

function checksumError(entry: string, message: string): never {
  throw new ArchiveError("E_ARCHIVE_CHECKSUM", `${message}: ${displayPath(entry)}`, { entry, reason: "sha256" });
}

/**
 * Reads small entries ahead of the writer. Entries that lie next to each other in the
 * archive are fetched with one read of up to `GROUP_BYTES` (a few hundred reads instead of
 * one per file) and decoded from that buffer.
 */
class ReadAhead {
  readonly #pending = new Map<number, Promise<Buffer>>();
  #next = 0;
  #bytes = 0;

  constructor(
    private readonly reader: ArchiveReader,
    private readonly files: readonly PlannedFile[],
  ) {}

  static isSmall(item: PlannedFile): boolean {
    return item.entry.size <= WHOLE_READ_MAX_BYTES && item.entry.compressedSize <= WHOLE_READ_MAX_BYTES;
  }

  /** The content of small entry `index`, starting reads of the following ones. */
  take(index: number): Promise<Buffer> {
    this.#fill(index);
    const content = this.#pending.get(index) as Promise<Buffer>;
    this.#pending.delete(index);
    this.#bytes -= (this.files[index] as PlannedFile).entry.size;
    return content;
  }

  #fill(current: number): void {
    while (this.#next < this.files.length && this.#next <= current + READ_AHEAD_ENTRIES) {
      const first = this.files[this.#next] as PlannedFile;
      if (!ReadAhead.isSmall(first)) {
        this.#next += 1;
        continue;
      }
      if (this.#next > current && this.#bytes + first.entry.size > READ_AHEAD_BYTES) return;
      // Extend the group over following small entries that sit right after this one.
      let last = this.#next;
      let end = first.dataStart + first.entry.compressedSize;
      let inflated = first.entry.size;
      for (;;) {
        const next = this.files[last + 1];
        if (next === undefined || !ReadAhead.isSmall(next) || next.dataStart - end > GROUP_GAP_BYTES) break;
        const nextEnd = next.dataStart + next.entry.compressedSize;
        if (nextEnd - first.dataStart > GROUP_BYTES || inflated + next.entry.size > GROUP_BYTES * 4) break;
        last += 1;
        end = nextEnd;
        inflated += next.entry.size;
      }
      const region = readLocatedRegion(this.reader, first.dataStart, end - first.dataStart);
      for (let index = this.#next; index <= last; index++) {
        const item = this.files[index] as PlannedFile;
        const offset = item.dataStart - first.dataStart;
        const content = region.then((bytes) => decodeEntryData(item.entry, bytes.subarray(offset, offset + item.entry.compressedSize)));
        content.catch(() => undefined); // awaited by take(); this only avoids an unhandled rejection meanwhile
        this.#pending.set(index, content);
      }
      this.#bytes += inflated;
      this.#next = last + 1;
    }
  }

  /** Wait for reads still running (before the archive is closed). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.#pending.values());
  }
}

async function writeFile(tx: TreeTransaction, reader: ArchiveReader, readAhead: ReadAhead, index: number, item: PlannedFile): Promise<number> {
  const { entry, file } = item;
  const hash = item.sha256 === null ? null : createHash("sha256");
  let sink;
  try {
    sink = await tx.createFile(file.path, file.mode === null ? undefined : sanitizeMode(file.mode, false));
  } catch (error) {
    throw wrapTargetError(error, file);
  }
  let written = 0;
  const put = async (chunk: Uint8Array): Promise<void> => {
    hash?.update(chunk);
    written += chunk.length;
    try {
      await sink.write(chunk);
    } catch (error) {
      throw wrapTargetError(error, file);
    }
  };
  if (ReadAhead.isSmall(item)) await put(await readAhead.take(index));
  else for await (const chunk of streamLocatedEntry(reader, entry, item.dataStart)) await put(chunk);
  if (hash !== null && hash.digest("hex") !== item.sha256) checksumError(entry.name, "SHA-256 differs from the manifest");
  try {
    await sink.close();
  } catch (error) {
    throw wrapTargetError(error, file);
  }
  return written;
}

function wrapTargetError(error: unknown, file: ArchiveFileEntry): unknown {
  if (error instanceof WinkError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StorageIOError(file.path, `Writing ${displayPath(file.entryName)} failed: ${message}`, { entry: file.entryName }, { cause: error });
}

/**
 * Validate the whole archive, then write its files and empty directories into `tx`.
 * Throws `ArchiveError` (with `data.entry`) or the transaction's own error; callers run it
 * inside `replaceTree` so that a failure leaves the workspace unchanged.
 */
export async function extractArchive(archivePath: string, tx: TreeTransaction, options: ExtractArchiveOptions = {}): Promise<ArchiveSummary> {
  const reader = await openArchive(archivePath, { limits: options.limits, requireManifest: true });
  let readAhead: ReadAhead | null = null;
  try {
    const plan = await planExtraction(reader, options);
    for (const path of plan.emptyDirectories) {
      const mode = plan.directoryModes.get(path);
      await tx.mkdir(path, mode === undefined ? undefined : sanitizeMode(mode, true));
    }
    readAhead = new ReadAhead(reader, plan.files);
    let bytes = 0;
    for (let index = 0; index < plan.files.length; index++) {
      const item = plan.files[index] as PlannedFile;
      bytes += await writeFile(tx, reader, readAhead, index, item);
      if (bytes > reader.limits.maxTotalBytes) limitError(item.entry.name, "Archive inflates past the total byte limit", reader.limits.maxTotalBytes, bytes);
      options.onProgress?.({ files: index + 1, bytes });
    }
    return { archivePath, fileCount: plan.files.length, totalBytes: bytes, directoryCount: plan.emptyDirectories.length, skipped: [] };
  } catch (error) {
    throw withArchivePath(error, archivePath);
  } finally {
    await readAhead?.settle();
    await reader.close();
  }
}
