/**
 * The run index's rows (shared/viewer/run-index-rows.ts) written as one Parquet file with
 * hyparquet-writer (pure JS, one dependency; chosen by measurement, docs/eval.md "Why
 * hyparquet-writer"). The columns, their order and their types are `RUN_INDEX_COLUMNS`, which
 * docs/eval.md documents one by one. The file appears whole or not at all: it is written
 * beside its destination under a temporary name, then renamed.
 */
import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import type { ColumnSource, SchemaElement } from "hyparquet-writer";
import { RUN_INDEX_FORMAT, RUN_INDEX_VERSION } from "../../shared/viewer/index.js";
import type { RunIndexRow } from "../../shared/viewer/index.js";

export type ColumnType = "string" | "int32" | "int64" | "double" | "timestamp" | "string_list";

type ColumnName = keyof RunIndexRow;

/** Every column, in the file's order, with its Parquet type. */
export const RUN_INDEX_COLUMNS: readonly { readonly name: ColumnName; readonly type: ColumnType }[] = [
  { name: "row_kind", type: "string" },
  { name: "run", type: "string" },
  { name: "run_kind", type: "string" },
  { name: "outcome", type: "string" },
  { name: "reason", type: "string" },
  { name: "modified_at", type: "timestamp" },
  { name: "started_at", type: "timestamp" },
  { name: "ended_at", type: "timestamp" },
  { name: "duration_ms", type: "double" },
  { name: "tool_calls", type: "int32" },
  { name: "failed_calls", type: "int32" },
  { name: "error_type", type: "string" },
  { name: "error_message", type: "string" },
  { name: "target", type: "string" },
  { name: "sample", type: "string" },
  { name: "request_id", type: "string" },
  { name: "sample_id", type: "string" },
  { name: "attempt", type: "int32" },
  { name: "tags", type: "string_list" },
  { name: "failure_kind", type: "string" },
  { name: "signature", type: "string" },
  { name: "tool", type: "string" },
  { name: "argument_name", type: "string" },
  { name: "argument_value", type: "string" },
  { name: "message", type: "string" },
  { name: "session_id", type: "string" },
  { name: "turn", type: "int32" },
  { name: "failed_at", type: "timestamp" },
  { name: "call_id", type: "string" },
  // Version 2: what reading the digests back needs (docs/eval.md, "The viewer reads it back").
  { name: "size_bytes", type: "int64" },
  { name: "stats_failed_calls", type: "int32" },
  { name: "stats_errors", type: "int32" },
  { name: "started_at_text", type: "string" },
  { name: "ended_at_text", type: "string" },
  { name: "failed_at_text", type: "string" },
  { name: "run_target", type: "string" },
  { name: "run_attempt", type: "int32" },
];

/** A column's schema elements (a list is three: the column, its repeated group, its element). */
function schemaOf(name: string, type: ColumnType): SchemaElement[] {
  switch (type) {
    case "string":
      return [{ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" }];
    case "int32":
      return [{ name, type: "INT32", repetition_type: "OPTIONAL" }];
    case "int64":
      return [{ name, type: "INT64", repetition_type: "OPTIONAL" }];
    case "double":
      return [{ name, type: "DOUBLE", repetition_type: "OPTIONAL" }];
    case "timestamp":
      // Microseconds: WINK writes them, and a millisecond column would merge calls a few µs apart.
      return [{ name, type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" }, repetition_type: "OPTIONAL" }];
    case "string_list":
      // The standard three-level LIST, which DuckDB, Spark and Athena read as an array of strings.
      return [
        { name, converted_type: "LIST", repetition_type: "OPTIONAL", num_children: 1 },
        { name: "list", repetition_type: "REPEATED", num_children: 1 },
        { name: "element", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" },
      ];
  }
}

/** The file's schema: a root and every column's elements. */
export function runIndexSchema(): SchemaElement[] {
  return [{ name: "root", num_children: RUN_INDEX_COLUMNS.length }, ...RUN_INDEX_COLUMNS.flatMap(({ name, type }) => schemaOf(name, type))];
}

/** The rows as columns, in `RUN_INDEX_COLUMNS`' order. */
export function runIndexColumns(rows: readonly RunIndexRow[]): ColumnSource[] {
  return RUN_INDEX_COLUMNS.map(({ name }) => ({ name, data: rows.map((row) => row[name] as never) }));
}

export interface WriteRunIndexOptions {
  /** What wrote the file (Parquet's `created_by`), e.g. `wink-debug 0.1.0`. */
  readonly createdBy: string;
  /** The target's name (not its path: the file may travel), kept in the file's metadata. */
  readonly root: string;
}

/**
 * Writes `rows` to `file` atomically: a temporary file in the same folder (so the rename stays
 * on one filesystem), renamed over `file` once complete, removed if anything fails.
 */
export async function writeRunIndex(file: string, rows: readonly RunIndexRow[], options: WriteRunIndexOptions): Promise<void> {
  // Loaded on use: the server and the other subcommands never pay for it.
  const { parquetWriteFile } = await import("hyparquet-writer");
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    parquetWriteFile({
      filename: temporary,
      columnData: runIndexColumns(rows),
      schema: runIndexSchema(),
      createdBy: options.createdBy,
      kvMetadata: [
        { key: "wink-debug.format", value: RUN_INDEX_FORMAT },
        { key: "wink-debug.version", value: String(RUN_INDEX_VERSION) },
        { key: "wink-debug.root", value: options.root },
      ],
    });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
