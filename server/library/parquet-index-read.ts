/**
 * A run index's Parquet file (parquet-index.ts writes it) read back as the digests it was
 * written from: the inverse of `runIndexRows`, so that a viewer can take a run's digest from
 * the file instead of reading the run (docs/eval.md, "The viewer reads it back").
 *
 * The file comes from anywhere (a CI job, a bucket anyone may write to): everything in it is
 * checked, and a file that is not exactly a run index of this version — another format or
 * version, a missing column or one of another type, a row that breaks the layout — is refused
 * whole with why (`RunIndexFileError`), never half read. The paths it names are data: the
 * caller decides which of them are runs (index-seed.ts).
 */
import type { FileMetaData, SchemaTree } from "hyparquet";
import { RUN_INDEX_FORMAT, RUN_INDEX_VERSION } from "../../shared/viewer/index.js";
import type { EvalDigest, RunDigestView, RunFailureDigestView } from "../../shared/viewer/index.js";
import type { ColumnType } from "./parquet-index.js";
import { RUN_INDEX_COLUMNS } from "./parquet-index.js";

/** Why a file is not read: its message says it, for the log line. */
export class RunIndexFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunIndexFileError";
  }
}

/** A digest read back, with the file size its row holds (null when the row holds none). */
export interface IndexedDigest {
  readonly digest: EvalDigest;
  readonly size: number | null;
}

export interface ReadRunIndexOptions {
  /** Rows read at most (default {@link MAX_INDEX_ROWS}): past it the file is refused before any row is decoded. */
  readonly maxRows?: number;
}

/** Rows of a file read at most: 4 rows a run for 250,000 runs. */
export const MAX_INDEX_ROWS = 1_000_000;

/** The physical types a column of each type may have (a file DuckDB wrote included). */
const PHYSICAL: Record<Exclude<ColumnType, "string_list">, string> = { string: "BYTE_ARRAY", int32: "INT32", int64: "INT64", double: "DOUBLE", timestamp: "INT64" };

function metadataValue(metadata: FileMetaData, key: string): string | undefined {
  return metadata.key_value_metadata?.find((entry) => entry.key === key)?.value;
}

/** Refuses a column that is missing or whose type would be read as something else. */
function checkColumn(tree: SchemaTree, name: string, type: ColumnType): void {
  const column = tree.children.find((child) => child.element.name === name);
  if (column === undefined) throw new RunIndexFileError(`it has no column ${name}`);
  const { element } = column;
  if (type === "string_list") {
    const leaf = column.children[0]?.children[0]?.element;
    if (column.children.length !== 1 || column.children[0]?.children.length !== 1 || leaf?.type !== "BYTE_ARRAY") throw new RunIndexFileError(`its column ${name} is not a list of strings`);
    return;
  }
  if (column.children.length > 0 || element.type !== PHYSICAL[type]) throw new RunIndexFileError(`its column ${name} is ${element.type ?? "a group"}, not ${PHYSICAL[type]}`);
  if (type === "timestamp" && element.logical_type?.type !== "TIMESTAMP" && element.converted_type !== "TIMESTAMP_MICROS" && element.converted_type !== "TIMESTAMP_MILLIS") throw new RunIndexFileError(`its column ${name} is not a timestamp`);
}

/** One row: its value in a column. */
type Row = (column: string) => unknown;

function bad(index: number, what: string): RunIndexFileError {
  return new RunIndexFileError(`row ${index + 1}: ${what}`);
}

function text(row: Row, name: string, index: number): string {
  const value = row(name);
  if (typeof value !== "string") throw bad(index, `${name} is not a string`);
  return value;
}

function textOrNull(row: Row, name: string, index: number): string | null {
  const value = row(name);
  if (value === null || value === undefined) return null;
  if (typeof value !== "string") throw bad(index, `${name} is not a string`);
  return value;
}

function count(row: Row, name: string, index: number): number {
  const value = row(name);
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw bad(index, `${name} is not a count`);
  return value;
}

function integerOrNull(row: Row, name: string, index: number): number | null {
  const value = row(name);
  if (value === null || value === undefined) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw bad(index, `${name} is not an integer`);
  return value;
}

/** The file time as the digest wrote it: `isoTime` of its milliseconds (modified_at is always the file's time). */
function fileTime(row: Row, index: number): string {
  const value = row("modified_at");
  if (typeof value !== "bigint") throw bad(index, "modified_at is not a time");
  const date = new Date(Number(value / 1000n));
  if (Number.isNaN(date.getTime())) throw bad(index, "modified_at is out of range");
  return date.toISOString();
}

function tagsOf(row: Row, index: number): string[] {
  const value = row("tags");
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.some((tag) => typeof tag !== "string")) throw bad(index, "tags is not a list of strings");
  return value as string[];
}

function sizeOf(row: Row, index: number): number | null {
  const value = row("size_bytes");
  if (value === null || value === undefined) return null;
  if (typeof value !== "bigint" || value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw bad(index, "size_bytes is not a size");
  return Number(value);
}

function runKind(row: Row, index: number): RunDigestView["kind"] {
  const value = row("run_kind");
  if (value !== "session_file" && value !== "bundle") throw bad(index, "run_kind is neither session_file nor bundle");
  return value;
}

/** A `run` or `not_session` row as its digest (failures come from their own rows). */
function runDigestOf(row: Row, index: number): EvalDigest {
  const run = text(row, "run", index);
  const kind = runKind(row, index);
  const modifiedAt = fileTime(row, index);
  if (row("row_kind") === "not_session") {
    return { run, kind, outcome: "not_session", reason: text(row, "reason", index), modified_at: modifiedAt, started_at: null, ended_at: null, tool_calls: 0, failed_calls: 0, errors: 0, failures: [] };
  }
  const outcome = row("outcome");
  if (outcome !== "ok" && outcome !== "failed" && outcome !== "not_loaded") throw bad(index, "outcome is not ok, failed or not_loaded");
  // What the digest said of its place, only when it said it (absent, null and empty read the same).
  const place: { request_id?: string; sample_id?: string; tags?: string[]; target?: string; attempt?: number } = {};
  const requestId = textOrNull(row, "request_id", index);
  if (requestId !== null) place.request_id = requestId;
  const sampleId = textOrNull(row, "sample_id", index);
  if (sampleId !== null) place.sample_id = sampleId;
  const tags = tagsOf(row, index);
  if (tags.length > 0) place.tags = tags;
  const target = textOrNull(row, "run_target", index);
  if (target !== null) place.target = target;
  const attempt = integerOrNull(row, "run_attempt", index);
  if (attempt !== null) place.attempt = attempt;
  return {
    run,
    kind,
    outcome,
    reason: textOrNull(row, "reason", index),
    modified_at: modifiedAt,
    started_at: textOrNull(row, "started_at_text", index),
    ended_at: textOrNull(row, "ended_at_text", index),
    tool_calls: count(row, "tool_calls", index),
    failed_calls: count(row, "stats_failed_calls", index),
    errors: count(row, "stats_errors", index),
    failures: [],
    ...place,
  };
}

function failureOf(row: Row, index: number): RunFailureDigestView {
  const kind = row("failure_kind");
  if (kind !== "call" && kind !== "run_error") throw bad(index, "failure_kind is neither call nor run_error");
  const name = textOrNull(row, "argument_name", index);
  const value = textOrNull(row, "argument_value", index);
  if ((name === null) !== (value === null)) throw bad(index, "argument_name and argument_value are not both set");
  return {
    kind,
    tool: textOrNull(row, "tool", index),
    error_type: kind === "run_error" ? textOrNull(row, "error_type", index) : null,
    argument: name === null || value === null ? null : { name, value },
    message: text(row, "message", index),
    session_id: textOrNull(row, "session_id", index),
    turn: integerOrNull(row, "turn", index),
    call_id: textOrNull(row, "call_id", index),
    created_at: textOrNull(row, "failed_at_text", index),
  };
}

/** Times kept as microseconds (bigint), whatever the unit of the file's column. */
const RAW_TIMES = {
  timestampFromMilliseconds: (millis: bigint) => millis * 1000n,
  timestampFromMicroseconds: (micros: bigint) => micros,
  timestampFromNanoseconds: (nanos: bigint) => nanos / 1000n,
};

/**
 * The digests of a run index file (its whole content), in the order of its run rows, each
 * with its failures in the order of their rows. Throws `RunIndexFileError` (or whatever the
 * Parquet decoder throws on a damaged file) when the file is not one to read.
 */
export async function readRunIndex(bytes: ArrayBuffer, options: ReadRunIndexOptions = {}): Promise<IndexedDigest[]> {
  // Loaded on use: a target without an index never pays for it.
  const { parquetMetadata, parquetRead, parquetSchema } = await import("hyparquet");
  const metadata = parquetMetadata(bytes, { parsers: RAW_TIMES });
  const format = metadataValue(metadata, "wink-debug.format");
  const version = metadataValue(metadata, "wink-debug.version");
  if (format !== RUN_INDEX_FORMAT) throw new RunIndexFileError(`it is not a ${RUN_INDEX_FORMAT} (its wink-debug.format is ${format === undefined ? "missing" : JSON.stringify(format.slice(0, 100))})`);
  if (version !== String(RUN_INDEX_VERSION)) throw new RunIndexFileError(`it is version ${JSON.stringify((version ?? "none").slice(0, 100))} of the run index; this viewer reads version ${RUN_INDEX_VERSION} (write it again with this wink-debug index)`);
  const tree = parquetSchema(metadata);
  for (const { name, type } of RUN_INDEX_COLUMNS) checkColumn(tree, name, type);
  const rows = Number(metadata.num_rows);
  const maxRows = options.maxRows ?? MAX_INDEX_ROWS;
  if (!Number.isSafeInteger(rows) || rows < 0 || rows > maxRows) throw new RunIndexFileError(`it has ${String(metadata.num_rows)} rows, more than the ${maxRows} read`);

  const runs = new Map<string, { digest: EvalDigest; size: number | null; failures: RunFailureDigestView[] }>();
  const failures: { run: string; failure: RunFailureDigestView; index: number }[] = [];
  const columns = RUN_INDEX_COLUMNS.map(({ name }) => name);
  // A row group at a time, each let go once its digests are taken: the decoder reads a whole
  // group's columns for any slice of it, so a smaller slice would decode the group again.
  const groups = metadata.row_groups.map((group) => Number(group.num_rows));
  if (groups.reduce((sum, count) => sum + count, 0) !== rows) throw new RunIndexFileError("its row groups do not add up to its rows");
  let end = 0;
  for (const count of groups) {
    const start = end;
    end = start + count;
    if (count === 0) continue;
    // Columns, not row objects: a row group's rows as objects cost three times the decoding.
    const data = new Map<string, ArrayLike<unknown>>();
    let uneven: string | null = null;
    await parquetRead({
      file: bytes,
      metadata,
      columns,
      rowStart: start,
      rowEnd: end,
      parsers: RAW_TIMES,
      onChunk: (chunk) => {
        // Told, not thrown: the decoder calls this from within its own promises.
        if (chunk.rowStart !== start || chunk.rowEnd !== end || chunk.columnData.length !== count) uneven ??= `its column ${chunk.columnName} holds ${chunk.columnData.length} of the ${count} rows of a row group`;
        data.set(chunk.columnName, chunk.columnData as ArrayLike<unknown>);
      },
    });
    if (uneven !== null) throw new RunIndexFileError(uneven);
    const missing = columns.find((name) => !data.has(name));
    if (missing !== undefined) throw new RunIndexFileError(`rows ${start + 1}–${end}: no ${missing} decoded`);
    for (let at = 0; at < count; at++) {
      const index = start + at;
      const row: Row = (column) => data.get(column)?.[at];
      const kind = row("row_kind");
      if (kind === "failure") {
        failures.push({ run: text(row, "run", index), failure: failureOf(row, index), index });
        continue;
      }
      if (kind !== "run" && kind !== "not_session") throw bad(index, `row_kind ${JSON.stringify(String(kind).slice(0, 40))} is not run, failure or not_session`);
      const digest = runDigestOf(row, index);
      if (runs.has(digest.run)) throw bad(index, "a second row of its run");
      runs.set(digest.run, { digest, size: sizeOf(row, index), failures: [] });
    }
  }
  for (const { run, failure, index } of failures) {
    const owner = runs.get(run);
    if (owner === undefined || owner.digest.outcome === "not_session") throw bad(index, "a failure of no run of the file");
    owner.failures.push(failure);
  }
  return [...runs.values()].map(({ digest, size, failures: own }) => ({ digest: { ...digest, failures: own }, size }));
}
