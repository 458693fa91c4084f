/**
 * The digests an `index.parquet` at the target's root gives for free (docs/eval.md, "The
 * viewer reads it back"): a CI job writes the file once (`wink-debug index TARGET -o
 * TARGET/index.parquet`), and every viewer of the target takes the digests of the runs it
 * covers from it instead of reading those runs.
 *
 * The file is not trusted: it is read only from the root (a regular file, no symlink, as every
 * file of a local target; the root object of a remote store), only up to a size the memory
 * budget allows, and ignored with a note on any problem (the runs are then read as without
 * it). Its paths are never opened: a row is taken only for a run the listing found, of the
 * kind the listing says, whose file has the row's modification time (to the millisecond, as
 * the digest writes it) and size. Everything else is left to be read as usual.
 */
import path from "node:path";
import { SourceError } from "../../shared/errors.js";
import type { RunDigestView } from "../../shared/viewer/index.js";
import { isoTime } from "./iso-time.js";
import { readRunIndex } from "./parquet-index-read.js";
import { RemoteFiles } from "./remote-files.js";
import { LocalFiles } from "./served-files.js";
import type { SessionFileRecord } from "./snapshot-directory.js";
import type { ViewerState } from "./viewer-state.js";

/** The index's name at the target's root. */
export const INDEX_FILE = "index.parquet";

/** A run's digest as the index gave it, for the version of its file it was checked against. */
export interface SeedEntry {
  /** The run's path in the listing (relative to the target). */
  readonly run: string;
  /** The listed file's modification time, size and store version the row matched: the digest holds while they do. */
  readonly mtimeMs: number;
  readonly size: number | null;
  readonly version: string | null;
  readonly digest: RunDigestView;
}

export interface IndexSeedOptions {
  /** The largest file read (bytes); a bigger one is ignored with a note. */
  readonly maxBytes: number;
  /** Told what became of the file (used, ignored and why), one line each; not told when there is none. */
  readonly onNote?: (line: string) => void;
}

/**
 * The part of the memory budget an index file may take: decoded, it holds ~50 times its size
 * (a 5.7 MiB file of 50,000 runs grew the heap by up to 293 MiB, its digests included:
 * docs/benchmarks.md), so an eighth of the budget is already a big eval.
 */
export const INDEX_MEMORY_SHARE = 8;

function sizeText(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.floor(bytes)} bytes` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The file's bytes, or null when there is none; throws why it is not read. */
async function readIndexFile(state: ViewerState, maxBytes: number): Promise<ArrayBuffer | null> {
  const { store } = state.directory;
  const tooBig = (size: number) => new Error(`it is ${sizeText(size)}, more than the ${sizeText(maxBytes)} read at this --memory (an eighth of it)`);
  if (store instanceof LocalFiles) {
    let opened;
    try {
      opened = await store.openFile(path.join(store.root, INDEX_FILE));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      if (opened.stats.size > maxBytes) throw tooBig(opened.stats.size);
      const bytes = new Uint8Array(opened.stats.size);
      for (let at = 0; at < bytes.length; ) {
        const { bytesRead } = await opened.handle.read(bytes, at, bytes.length - at, at);
        if (bytesRead === 0) throw new Error("it was cut short while read");
        at += bytesRead;
      }
      return bytes.buffer;
    } finally {
      await opened.handle.close();
    }
  }
  if (store instanceof RemoteFiles) {
    let reader;
    try {
      reader = await store.source.open(INDEX_FILE);
    } catch (error) {
      if (error instanceof SourceError && error.code === "E_SOURCE_NOT_FOUND") return null;
      throw error;
    }
    if (reader.size > maxBytes) throw tooBig(reader.size);
    const bytes = await reader.read(0, reader.size);
    return bytes.slice().buffer;
  }
  return null;
}

function sameKind(record: SessionFileRecord, digest: RunDigestView): boolean {
  return (record.kind === "bundle") === (digest.kind === "bundle");
}

/**
 * The digests `state`'s `index.parquet` holds for runs of the listing whose file is the one
 * the row was written from; none when there is no such file or it is not read (`onNote` says
 * why). Never throws.
 */
export async function readIndexSeed(state: ViewerState, options: IndexSeedOptions): Promise<SeedEntry[]> {
  const note = options.onNote ?? (() => undefined);
  let indexed;
  try {
    const bytes = await readIndexFile(state, options.maxBytes);
    if (bytes === null) return [];
    indexed = await readRunIndex(bytes);
  } catch (error) {
    note(`${INDEX_FILE}: ignored, the runs are read instead: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
  const seed: SeedEntry[] = [];
  let notListed = 0;
  let changed = 0;
  for (const { digest, size } of indexed) {
    // The row's path is only a key into the listing: a run the listing did not find is no run.
    const record = state.directory.get(digest.run);
    if (record === undefined || !sameKind(record, digest)) {
      notListed += 1;
      continue;
    }
    if (digest.modified_at !== isoTime(record.mtimeMs) || (size !== null && size !== record.size)) {
      changed += 1;
      continue;
    }
    seed.push({ run: record.path, mtimeMs: record.mtimeMs, size: record.size, version: record.version, digest });
  }
  const runs = state.directory.files().length;
  note(
    `${INDEX_FILE}: ${seed.length} of ${runs} runs taken from it` +
      (runs > seed.length ? `, ${runs - seed.length} read (new or changed since it was written${changed > 0 ? `: ${changed} changed` : ""})` : "") +
      (notListed > 0 ? `; ${notListed} of its rows name no run of the target, ignored` : ""),
  );
  return seed;
}
