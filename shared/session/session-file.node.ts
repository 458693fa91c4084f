/**
 * Reading session files from disk without holding more than one line in memory.
 *
 * Lines longer than `maxLineBytes` are reported as too long while they stream past (their
 * bytes are never buffered), so a 512 MiB line costs a read, not a 512 MiB string, and the
 * next line still loads. `scanSessionFile` builds an index (line offsets + envelope
 * summaries) so a server can answer metadata at once and parse a line only when asked.
 */
import { isUtf8 } from "node:buffer";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { SessionLoadError, WinkError } from "../errors.js";
import { openNamedFile, type OpenedRegularFile } from "../filesystem/open-regular.node.js";
import { errnoCode } from "../filesystem/errno.js";
import type { EnvelopeScanOptions, EnvelopeSummary } from "./envelope-scan.js";
import { scanEnvelopeWindow, summarizeSnapshot } from "./envelope-scan.js";
import { DEFAULT_MAX_LINE_BYTES, lineBody, lineFromBytes, tooLongLine } from "./line-text.js";
import type { LineLocation, PhysicalLine, SessionIndexEntry } from "./session-scan.node.js";
import { SessionIndexBuilder, snapshotFromLineBytes, type SessionIndexBuilderOptions } from "./session-scan.node.js";
import type { SessionLines } from "./session-lines.js";
import { LineSplitter } from "./physical-lines.node.js";
import { LongLineWindow } from "./long-line-window.node.js";
import { EventLoopSlices } from "./event-loop-slices.js";
import type { JsonLinesContents, SessionFileContents, SessionReadOptions } from "./session-text.js";
import { JsonLinesCollector, snapshotsOf } from "./session-text.js";
import type { SessionLineError, SessionSnapshot, SnapshotLineResult } from "./snapshot-line.js";

const CHUNK_BYTES = 1024 * 1024;

export type { LineLocation, PhysicalLine, SessionIndexEntry } from "./session-scan.node.js";

export interface SessionFileIndex {
  readonly path: string;
  readonly sizeBytes: number;
  readonly mtimeMs: number;
  /** Device and inode of the file the index was read from (a replaced file is another file). */
  readonly dev: number;
  readonly ino: number;
  /** Physical lines, blank ones included. */
  readonly lineCount: number;
  readonly entries: SessionIndexEntry[];
  /** The first line errors (`DEFAULT_KEPT_LINE_ERRORS` unless `keptErrors` says otherwise), in line order. */
  readonly errors: SessionLineError[];
  /** Every line error of the file, `errors` and the ones not kept. */
  readonly errorCount: number;
}

/**
 * A session file's index as a server keeps it: its lines by column (`SessionLines`, ~37
 * bytes a line), entry objects built when asked for.
 */
export interface CompactSessionIndex extends Omit<SessionFileIndex, "entries"> {
  readonly lines: SessionLines;
}

/**
 * How a session file is opened. The default opens the named file (a final symlink is
 * followed: the caller named it) without blocking on a FIFO and refuses anything but a
 * regular file. A server reading a directory others write to passes `openRegularFile` with
 * its root: no symlink, the inode its lstat saw, under the root.
 */
export type SessionFileOpener = (path: string) => Promise<OpenedRegularFile>;

export interface SessionOpenOptions {
  openFile?: SessionFileOpener;
  /**
   * Reads a small file whole on the calling thread, checked as `openFile` opens it (see
   * `readSmallRegularFileSync`): null when it is larger than `maxBytes`. `readSessionWhole`
   * uses it for files up to {@link SYNC_WHOLE_READ_BYTES}.
   */
  readSmallFile?: (path: string, maxBytes: number, extra: number, buffer: Buffer) => { bytes: Buffer; stats: Stats } | null;
}

/** Files up to this size are read whole on the calling thread when a `readSmallFile` is given (a page-cached MiB is read in well under a millisecond). */
export const SYNC_WHOLE_READ_BYTES = 1024 * 1024;

export type SessionScanOptions = SessionReadOptions &
  Omit<SessionIndexBuilderOptions, "maxLineBytes"> &
  SessionOpenOptions & {
    /**
     * Bytes read at once (default 1 MiB): the size of the read chunk and of the window a
     * longer line is scanned through. Small ones make every line a long line (tests).
     */
    chunkBytes?: number;
  };

/** A long line summarised where it lies in the file (`long-line-window.node.ts`), its bytes never held whole. */
interface SummarisedLine extends LineLocation {
  readonly summary: EnvelopeSummary;
}

/**
 * Streams the physical lines of a file (1-based numbers; the last line may lack `\n`).
 * Throws {@link SessionLoadError} when the file cannot be opened or read.
 */
export async function* readPhysicalLines(path: string, options: { maxLineBytes?: number } & SessionOpenOptions = {}): AsyncGenerator<PhysicalLine> {
  const { handle } = await openSessionFile(path, options.openFile);
  try {
    for await (const line of linesOf(handle, path, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)) if ("bytes" in line) yield line;
  } finally {
    await handle.close();
  }
}

/** Reads a JSONL file at the JSON layer: every non-blank line must be a JSON object. */
export async function readJsonLinesFile(path: string, options: SessionReadOptions & SessionOpenOptions = {}): Promise<JsonLinesContents> {
  const collector = new JsonLinesCollector(options);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let lineCount = 0;
  for await (const line of readPhysicalLines(path, { maxLineBytes, ...(options.openFile === undefined ? {} : { openFile: options.openFile }) })) {
    lineCount = line.lineNumber;
    collector.add(line.bytes === null ? tooLongLine(line.lineNumber, line.byteLength, maxLineBytes) : lineFromBytes(line.bytes, line.lineNumber));
  }
  return collector.contents(lineCount);
}

/**
 * Reads a whole session file, one snapshot per line, streaming. Bad lines are reported with
 * their line number and never hide the good ones.
 */
export async function readSessionFile(path: string, options: SessionReadOptions & SessionOpenOptions = {}): Promise<SessionFileContents> {
  return snapshotsOf(await readJsonLinesFile(path, options));
}

/**
 * Indexes a session file: each line's offset and envelope summary (session id, tags,
 * slices with item counts), read without parsing items. Parse a line later with
 * {@link readSnapshotAt}.
 */
export async function scanSessionFile(path: string, options: SessionScanOptions = {}): Promise<SessionFileIndex> {
  const { lines, ...index } = await scanSessionLines(path, options);
  return { ...index, entries: lines.toArray() };
}

/** {@link scanSessionFile} keeping the lines compactly (what the server holds for every file). */
export async function scanSessionLines(path: string, options: SessionScanOptions = {}): Promise<CompactSessionIndex> {
  const { handle, stats } = await openSessionFile(path, options.openFile);
  try {
    const builder = new SessionIndexBuilder(options);
    // The builder keeps nothing of a line's bytes (only its summary): long lines are scanned
    // where they lie, or (when that cannot tell) share one buffer.
    const scan = options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth };
    // A server indexes while it answers others: the work is cut into slices of ~20 ms.
    const slices = new EventLoopSlices();
    for await (const line of linesOf(handle, path, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, scan, options.chunkBytes)) {
      if ("bytes" in line) builder.add(line);
      else builder.addSummary(line, line.summary);
      if (slices.due()) await slices.pause();
    }
    const { lineCount, errors, errorCount } = builder;
    return { path, sizeBytes: stats.size, mtimeMs: stats.mtimeMs, dev: stats.dev, ino: stats.ino, lineCount, lines: builder.lines.seal(), errors, errorCount };
  } finally {
    await handle.close();
  }
}

/** A session file read whole: its index (as {@link scanSessionLines} builds it) and the bytes it was built from. */
export interface WholeSessionFile {
  readonly index: CompactSessionIndex;
  /** The file's bytes: a line of the index is `bytes.subarray(byteOffset, byteOffset + byteLength)`; none when every line of the index is in `parsed`. */
  readonly bytes: Buffer;
  /**
   * Lines parsed in full while the file was indexed, by line number: what
   * `snapshotFromLineBytes` of their bytes gives (a one-line file's line, see below).
   */
  readonly parsed: ReadonlyMap<number, SessionSnapshot>;
}

/**
 * {@link scanSessionLines} in one read of the whole file, keeping its bytes, for a reader that
 * parses lines of it next (a run's digest parses each session's latest line): scanning and
 * then reading those lines again read them twice, and for a one-line file (most of an eval's)
 * read every byte twice. Null when the file is larger than `maxBytes`, or grows while it is
 * read (scan it then). Every line is summarised from its bytes, as the scan does with lines
 * shorter than its chunk.
 */
export async function readSessionWhole(path: string, maxBytes: number, options: SessionOpenOptions = {}): Promise<WholeSessionFile | null> {
  let small: { bytes: Buffer; stats: Stats } | null;
  try {
    // One byte more than the size, as below. Into one reused buffer: a fresh one a file made
    // ~280 MB of ArrayBuffers over a 10,000-run eval, garbage the collector let pile up
    // (the cold index's peak RSS ~290 MiB instead of ~240).
    syncBuffer ??= Buffer.allocUnsafe(SYNC_WHOLE_READ_BYTES + 1);
    small = options.readSmallFile?.(path, Math.min(maxBytes, SYNC_WHOLE_READ_BYTES), 1, syncBuffer) ?? null;
  } catch (error) {
    throw ioError(path, error);
  }
  if (small !== null) return small.bytes.length > small.stats.size ? null : indexWhole(path, small.stats, small.bytes, true);
  const { handle, stats } = await openSessionFile(path, options.openFile);
  try {
    if (stats.size > maxBytes) return null;
    // One byte more than the size: a file that grew since its fstat is left to the scan.
    const bytes = Buffer.allocUnsafe(stats.size + 1);
    const { bytesRead } = await readFully(handle, path, bytes, 0);
    if (bytesRead > stats.size) return null;
    return await indexWhole(path, stats, bytes.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** The reused buffer of the reads on the calling thread (see {@link readSessionWhole}). */
let syncBuffer: Buffer | null = null;

/** An empty `bytes` (every line of the index parsed already). */
const NO_BYTES = Buffer.alloc(0);

/** What a session file's index says of its lines, built from all of its bytes in memory (a local file read whole, or a store's object). */
export type SessionLinesIndex = Pick<CompactSessionIndex, "lineCount" | "lines" | "errors" | "errorCount">;

/** A file's lines indexed from its whole bytes, with what `WholeSessionFile` gives its reader. */
export interface IndexedSessionBytes {
  readonly lines: SessionLinesIndex;
  readonly bytes: Buffer;
  readonly parsed: ReadonlyMap<number, SessionSnapshot>;
}

/** The index of a file read whole (`whole`: its bytes), and its one line parsed when it has one (see {@link indexSessionBytes}). */
async function indexWhole(path: string, stats: Stats, whole: Buffer, reused = false): Promise<WholeSessionFile> {
  const { lines, bytes, parsed } = await indexSessionBytes(whole, reused);
  return { index: { path, sizeBytes: stats.size, mtimeMs: stats.mtimeMs, dev: stats.dev, ino: stats.ino, ...lines }, bytes, parsed };
}

/**
 * The index of a session file's lines from its whole bytes, as the scan builds it (a local
 * file read whole, or a store's object read in one request), and its one line parsed when it
 * has one. `reused`: `whole` is the reused buffer: indexed without a pause (nothing else may
 * read into it meanwhile), and copied for the caller unless every line of the index is parsed.
 */
export async function indexSessionBytes(whole: Buffer, reused = false): Promise<IndexedSessionBytes> {
  const builder = new SessionIndexBuilder();
  const lines = new LineSplitter(DEFAULT_MAX_LINE_BYTES);
  const slices = new EventLoopSlices();
  const parsed = new Map<number, SessionSnapshot>();
  // The lines are views of `whole` (kept by the caller), never copies. The first one waits:
  // a file of one line (nearly every run of an eval) has it parsed once, not scanned too.
  let first: PhysicalLine | null = null;
  let more = false;
  const add = (line: PhysicalLine) => {
    if (first === null && !more) first = line;
    else {
      if (first !== null) builder.add(first);
      first = null;
      more = true;
      builder.add(line);
    }
  };
  const split = lines.split(whole, true);
  for (let step = split.next(); step.done !== true; step = split.next()) {
    add(step.value);
    if (!reused && slices.due()) await slices.pause();
  }
  for (const line of lines.end()) add(line);
  if (first !== null) addParsed(builder, whole, first, parsed);
  const { lineCount, errors, errorCount } = builder;
  const sealed = builder.lines.seal();
  const bytes = !reused ? whole : sealed.length === parsed.size ? NO_BYTES : Buffer.from(whole);
  return { lines: { lineCount, lines: sealed, errors, errorCount }, bytes, parsed };
}

/**
 * Indexes `line` from its full parse, kept in `parsed`: the summary `scanEnvelope` gives a line
 * that loads is the parsed snapshot's (`summarizeSnapshot`, the scan's own answer to a line it
 * cannot read), and its reader parses the line next anyway. A line that is not a snapshot the
 * parser takes is indexed as the scan indexes it (a line the scan reads but the parser refuses
 * is in the index, and refused when it is read, as before).
 */
function addParsed(builder: SessionIndexBuilder, whole: Buffer, line: PhysicalLine, parsed: Map<number, SessionSnapshot>): void {
  const body = line.bytes === null ? null : lineBody(line.bytes, line.lineNumber);
  const result = body === null || !isUtf8(body) ? null : snapshotFromLineBytes(whole.subarray(line.byteOffset, line.byteOffset + line.byteLength), line.lineNumber);
  if (result === null || !result.ok) {
    builder.add(line);
    return;
  }
  builder.addSummary(line, summarizeSnapshot(result.snapshot));
  parsed.set(line.lineNumber, result.snapshot);
}

export interface ReadSnapshotAtOptions extends SessionReadOptions, SessionOpenOptions {
  /** The index the location came from: a different size or mtime means the file changed. */
  index?: Pick<SessionFileIndex, "sizeBytes" | "mtimeMs">;
  /** The file the location came from: another device or inode (the file was replaced) gives a `stale` line. */
  identity?: Pick<SessionFileIndex, "dev" | "ino">;
}

/**
 * Reads and parses the one line at `location` (from {@link scanSessionFile}). A file that
 * changed since it was indexed gives a `stale` error line rather than a snapshot of some
 * other line: always when the line's bytes no longer end where they did, and for any
 * change of size or mtime when `options.index` is given, and for a replaced file (another
 * inode) when `options.identity` is.
 */
export async function readSnapshotAt(path: string, location: LineLocation, options: ReadSnapshotAtOptions = {}): Promise<SnapshotLineResult> {
  const bytes = await readLineBytes(path, location, options);
  return bytes === null ? staleLine(location) : snapshotFromLineBytes(bytes, location.lineNumber, options);
}

/**
 * The bytes of the line at `location`, checked to still be that line (see `readSnapshotAt`),
 * or null when the file changed. For work on the line elsewhere (a worker parses big ones).
 */
export async function readLineBytes(path: string, location: LineLocation, options: Omit<ReadSnapshotAtOptions, keyof SessionReadOptions> = {}): Promise<Buffer | null> {
  const { handle, stats } = await openSessionFile(path, options.openFile);
  try {
    if (options.index !== undefined && (stats.size !== options.index.sizeBytes || stats.mtimeMs !== options.index.mtimeMs)) return null;
    if (options.identity !== undefined && (stats.dev !== options.identity.dev || stats.ino !== options.identity.ino)) return null;
    const bytes = Buffer.allocUnsafe(location.byteLength);
    const { bytesRead } = await readFully(handle, path, bytes, location.byteOffset);
    const next = Buffer.alloc(1);
    const after = await readFully(handle, path, next, location.byteOffset + location.byteLength);
    const endsLine = after.bytesRead === 0 || next[0] === 0x0a;
    if (bytesRead !== location.byteLength || !endsLine || bytes.includes(0x0a)) return null;
    return bytes;
  } finally {
    await handle.close();
  }
}

function staleLine(location: LineLocation): SnapshotLineResult {
  return { ok: false, error: { lineNumber: location.lineNumber, kind: "stale", reason: "The file changed since it was indexed; scan it again" } };
}

/**
 * `scanLongLines` (for a consumer that keeps nothing of a line's bytes): a line longer than
 * a chunk is summarised where it lies, through one reused window (`LongLineWindow`), and
 * yielded as its summary; when that cannot tell, it is read whole into a buffer that is used
 * again for the next long line that fits in it (a yielded line's bytes are then only valid
 * until the consumer asks for the next one). Fresh memory is what long lines cost most.
 */
async function* linesOf(handle: FileHandle, path: string, maxLineBytes: number, scanLongLines?: EnvelopeScanOptions, chunkBytes = CHUNK_BYTES): AsyncGenerator<PhysicalLine | SummarisedLine> {
  // The file's size says how long a line can be: one that runs past a chunk is read straight
  // into a buffer of that size (only its pages are touched), not gathered chunk by chunk and
  // copied once more at its end — fresh memory is what a long line costs most.
  const sizeHint = await fileSize(handle, path);
  const lines = new LineSplitter(maxLineBytes);
  let position = 0;
  let chunk = Buffer.allocUnsafe(chunkBytes);
  /** Bytes read already (after a long line) that come before `position`. */
  let pending: Buffer | null = null;
  /** The last long line's buffer, when `scanLongLines`. */
  let spare: Buffer | null = null;
  /** The window long lines are scanned through, when `scanLongLines`. */
  let window: Buffer | null = null;
  for (;;) {
    let view: Buffer;
    if (pending !== null) {
      view = pending;
      pending = null;
    } else {
      const { bytesRead } = await readFully(handle, path, chunk, position);
      if (bytesRead === 0) break;
      view = chunk.subarray(0, bytesRead);
      position += bytesRead;
    }
    // The sync generator stepped by hand: `yield*` would wrap it in an async iterator, a
    // few promises more per line.
    const split = lines.split(view, true, true);
    let step = split.next();
    for (; step.done !== true; step = split.next()) yield step.value;
    const tail = step.value;
    const head = tail === -1 ? null : view.subarray(tail);
    if (head !== null && scanLongLines !== undefined) {
      window ??= Buffer.allocUnsafe(chunkBytes);
      if (window.length < head.length) window = Buffer.allocUnsafe(head.length);
      const scanned: LongLineWindow = new LongLineWindow({ fd: handle.fd, buffer: window, head, position, sizeHint, lineNumber: lines.lineNumber, maxLineBytes });
      const summary = scanned.failed ? null : scanEnvelopeWindow(scanned, scanLongLines);
      window = scanned.buffer;
      if (summary !== null && scanned.usable) {
        yield { ...lines.skip(scanned.lineBytes), summary };
        position = scanned.position;
        // What was read past the line's end comes next; the window is the next long line's.
        const rest = scanned.rest;
        if (rest !== null) pending = rest.length <= chunk.length ? chunk.subarray(0, rest.copy(chunk)) : Buffer.from(rest);
        continue;
      }
    }
    if (head !== null) {
      // A line that starts here and goes on past this chunk.
      const capacity = Math.min(maxLineBytes + 1, Math.max(sizeHint - lines.lineStart, view.length - tail + chunkBytes));
      const reusable = spare !== null && spare.length >= capacity && !lines.holds(spare.buffer) ? spare : null;
      const long = await readLongLine(handle, path, head, position, capacity, reusable);
      position = long.position;
      // A line over the cap stays held by the splitter: its buffer is not reused.
      spare = scanLongLines !== undefined && long.line !== null ? long.buffer : null;
      if (long.line !== null) {
        yield lines.line(long.line);
        if (long.rest !== null) pending = long.rest;
      } else {
        // Over the cap (the rest of it streams past), or the file grew past its size (the
        // rest is gathered chunk by chunk).
        lines.begin(long.filled);
      }
    }
    // Yielded lines are copies, so the chunk can be reused unless the unfinished line still
    // points into it. Skipping an over-long line therefore runs in one chunk of memory.
    if (lines.holds(chunk.buffer)) chunk = Buffer.allocUnsafe(chunkBytes);
  }
  for (const line of lines.end()) yield line;
}

/** Reads at most this much at once into a long line's buffer. */
const LONG_READ_BYTES = 4 * 1024 * 1024;

interface LongLine {
  /** The whole line (without `\n`), or null when `capacity` filled up first. */
  readonly line: Buffer | null;
  /** Bytes read past the line's `\n`, or null. */
  readonly rest: Buffer | null;
  /** When `line` is null: the bytes read (`capacity` of them). */
  readonly filled: Buffer;
  /** File offset after what was read. */
  readonly position: number;
  /** The buffer all of the above are views of. */
  readonly buffer: Buffer;
}

/**
 * Reads a line that begins with `head` and continues at `position`, into one buffer of
 * `capacity` bytes (`spare`, when given: at least that long; `head` may lie in it — `set`
 * copies overlapping bytes as if through a copy).
 */
async function readLongLine(handle: FileHandle, path: string, head: Uint8Array, position: number, capacity: number, spare: Buffer | null = null): Promise<LongLine> {
  const buffer = spare ?? Buffer.allocUnsafe(capacity);
  buffer.set(head);
  let filled = head.length;
  let at = position;
  while (filled < capacity) {
    const { bytesRead } = await readFully(handle, path, buffer.subarray(filled, Math.min(capacity, filled + LONG_READ_BYTES)), at);
    if (bytesRead === 0) return { line: buffer.subarray(0, filled), rest: null, filled: buffer.subarray(0, filled), position: at, buffer };
    const newline = buffer.subarray(filled, filled + bytesRead).indexOf(0x0a);
    at += bytesRead;
    if (newline !== -1) {
      const end = filled + newline;
      const rest = end + 1 < filled + bytesRead ? buffer.subarray(end + 1, filled + bytesRead) : null;
      return { line: buffer.subarray(0, end), rest, filled: buffer.subarray(0, filled + bytesRead), position: at, buffer };
    }
    filled += bytesRead;
  }
  return { line: null, rest: null, filled: buffer.subarray(0, filled), position: at, buffer };
}

async function fileSize(handle: FileHandle, path: string): Promise<number> {
  try {
    return (await handle.stat()).size;
  } catch (error) {
    throw ioError(path, error);
  }
}


async function openSessionFile(path: string, openFile: SessionFileOpener = openNamedFile): Promise<OpenedRegularFile> {
  try {
    return await openFile(path);
  } catch (error) {
    throw ioError(path, error);
  }
}

async function readFully(handle: FileHandle, path: string, buffer: Uint8Array, position: number): Promise<{ bytesRead: number }> {
  let filled = 0;
  try {
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
  } catch (error) {
    throw ioError(path, error);
  }
  return { bytesRead: filled };
}

function ioError(path: string, cause: unknown): SessionLoadError {
  const code = errnoCode(cause);
  const detail =
    code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : cause instanceof WinkError ? cause.message : String((cause as Error)?.message ?? cause);
  return new SessionLoadError(`Cannot read session file ${path}: ${detail}`, { path, ...(code === undefined ? {} : { errno: code }) }, { cause });
}
