// The run index read back: digests → rows → a Parquet file (our writer, and DuckDB) → digests
// again, deep-equal; and files that are not a run index of this version refused whole.
import { DuckDBInstance } from "@duckdb/node-api";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parquetWriteFile } from "hyparquet-writer";
import { afterAll, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../../fixtures/paths.js";
import { RUN_INDEX_FORMAT, RUN_INDEX_VERSION, runIndexRows } from "../../shared/viewer/index.js";
import type { EvalDigest, RunIndexRow } from "../../shared/viewer/index.js";
import { cleanUp, tempDir } from "../server.test-support.js";
import { runIndexColumns, runIndexSchema, writeRunIndex } from "./parquet-index.js";
import { RunIndexFileError, readRunIndex } from "./parquet-index-read.js";
import { readRunDigests } from "./run-digests.js";
import { closeServedState, openServedState } from "./served-state.js";

afterAll(cleanUp);

/** The digests of every run under `dir` (recursively), as the server reads them, with each file's size. */
async function digestsOf(dir: string): Promise<{ digests: EvalDigest[]; sizes: Map<string, number> }> {
  const served = await openServedState({ path: dir, recursive: true, pickCurrent: false });
  try {
    const records = served.state.directory.files();
    return { digests: await readRunDigests(served.state, records), sizes: new Map(records.map((record) => [record.path, record.size])) };
  } finally {
    await closeServedState(served);
  }
}

async function roundTrip(digests: readonly EvalDigest[], sizes: ReadonlyMap<string, number> = new Map()): Promise<{ file: string; read: Awaited<ReturnType<typeof readRunIndex>> }> {
  const file = path.join(await tempDir("wink-index-read-"), "index.parquet");
  await writeRunIndex(file, runIndexRows("eval", digests, sizes), { createdBy: "test", root: "eval" });
  return { file, read: await readRunIndex(bytesOf(await readFile(file))) };
}

function bytesOf(buffer: Buffer): ArrayBuffer {
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
}

const byRun = (a: { run: string }, b: { run: string }) => (a.run < b.run ? -1 : a.run > b.run ? 1 : 0);

/** Digests with every field filled, and the values a careless reader would get wrong. */
const GENERATED: EvalDigest[] = [
  {
    run: "calc/req-01/run-01.jsonl",
    kind: "session_file",
    outcome: "failed",
    reason: null,
    modified_at: "2026-11-20T10:00:09.123Z",
    // As WINK writes them: microseconds and an offset, which a timestamp alone would normalise.
    started_at: "2026-11-20T10:00:00.123456+00:00",
    ended_at: "2026-11-20T12:00:09.5+02:00",
    tool_calls: 12,
    // The badge's counts need not be the failures' (a failure list may be cut, events count as errors).
    failed_calls: 7,
    errors: 2,
    request_id: "",
    sample_id: "sample-7",
    target: "calc-v2",
    attempt: 3,
    tags: ["nightly", "gpu", "ünïcode ✓"],
    failures: [
      { kind: "call", tool: "read_file", error_type: null, argument: { name: "path", value: "src/a.py" }, message: "No such file: src/a.py", session_id: "s-1", turn: 2, call_id: "call_4f9c2d1e8b7a", created_at: "2026-11-20T10:00:04.000001+00:00" },
      { kind: "call", tool: "shell", error_type: null, argument: { name: "", value: "" }, message: "", session_id: null, turn: 0, call_id: null, created_at: null },
      { kind: "call", tool: null, error_type: null, argument: null, message: "event error", session_id: "s-2", turn: null, call_id: "c", created_at: "not a time" },
      { kind: "run_error", tool: null, error_type: "DeadlineExceededError", argument: null, message: "Deadline exceeded after 30 s", session_id: "s-1", turn: null, call_id: null, created_at: "2026-11-20T12:00:09.5+02:00" },
    ],
  },
  {
    run: "pay/req-02/b1_20261120_101500.zip",
    kind: "bundle",
    outcome: "failed",
    reason: null,
    modified_at: "2026-11-20T10:15:00.000Z",
    started_at: null,
    ended_at: null,
    tool_calls: 0,
    failed_calls: 0,
    errors: 1,
    request_id: "req-02",
    failures: [{ kind: "run_error", tool: null, error_type: null, argument: null, message: "it broke", session_id: null, turn: null, call_id: null, created_at: "2026-11-20T10:15:00.000Z" }],
  },
  { run: "pay/req-03/broken.jsonl", kind: "session_file", outcome: "not_loaded", reason: "line 1 is not JSON", modified_at: "2026-11-21T00:00:00.001Z", started_at: null, ended_at: null, tool_calls: 0, failed_calls: 0, errors: 0, failures: [] },
  { run: "ok.jsonl", kind: "session_file", outcome: "ok", reason: null, modified_at: "1970-01-01T00:00:00.000Z", started_at: "yesterday", ended_at: "2026-11-21T00:00:00Z", tool_calls: 3, failed_calls: 0, errors: 0, failures: [] },
  { run: "truth.json", kind: "session_file", outcome: "not_session", reason: "not a session file", modified_at: "2026-11-22T08:00:00.000Z", started_at: null, ended_at: null, tool_calls: 0, failed_calls: 0, errors: 0, failures: [] },
  { run: "evil\u001b[31m\nname.jsonl", kind: "session_file", outcome: "ok", reason: null, modified_at: "2026-11-22T08:00:00.000Z", started_at: null, ended_at: null, tool_calls: 0, failed_calls: 0, errors: 0, failures: [] },
];

describe("readRunIndex", () => {
  it("reads back the digests of every fixture run, and their sizes", async () => {
    const bundles = await digestsOf(WINK_BUNDLE_FIXTURES);
    const sessions = await digestsOf(WINK_FIXTURES);
    const digests = [...bundles.digests, ...sessions.digests.map((digest) => ({ ...digest, run: `wink/${digest.run}` }))];
    const sizes = new Map([...bundles.sizes, ...[...sessions.sizes].map(([run, size]) => [`wink/${run}`, size] as const)]);
    // Enough to mean something: loaded runs with failures and run errors, and runs that do not load.
    expect(digests.filter((digest) => digest.failures.some((failure) => failure.kind === "run_error")).length).toBeGreaterThan(0);
    expect(digests.filter((digest) => digest.failures.some((failure) => failure.argument !== null && failure.turn !== null)).length).toBeGreaterThan(0);
    expect(digests.filter((digest) => digest.outcome === "not_loaded").length).toBeGreaterThan(0);
    const { read } = await roundTrip(digests, sizes);
    expect(read.map((entry) => entry.digest).sort(byRun)).toEqual([...digests].sort(byRun));
    expect(new Map(read.map((entry) => [entry.digest.run, entry.size]))).toEqual(sizes);
  });

  it("reads back digests with every field filled, times as they were written, and no size where none was given", async () => {
    const { read } = await roundTrip(GENERATED);
    expect(read.map((entry) => entry.digest).sort(byRun)).toEqual([...GENERATED].sort(byRun));
    expect(read.every((entry) => entry.size === null)).toBe(true);
  });

  it("reads a file DuckDB wrote with the same columns and metadata", async () => {
    const { file } = await roundTrip(GENERATED, new Map([["ok.jsonl", 1234]]));
    const copy = path.join(path.dirname(file), "duck.parquet");
    const duck = await DuckDBInstance.create(":memory:");
    const db = await duck.connect();
    try {
      // Rows in another order: the reader must not depend on ours.
      await db.run(
        `COPY (SELECT * FROM read_parquet('${file}') ORDER BY row_kind DESC, run DESC) TO '${copy}' (FORMAT parquet, KV_METADATA {'wink-debug.format': '${RUN_INDEX_FORMAT}', 'wink-debug.version': '${RUN_INDEX_VERSION}'})`,
      );
    } finally {
      db.closeSync();
      duck.closeSync();
    }
    const read = await readRunIndex(bytesOf(await readFile(copy)));
    // Failures keep their order within their run (DuckDB's sort is stable for equal keys).
    expect(read.map((entry) => entry.digest).sort(byRun)).toEqual([...GENERATED].sort(byRun));
    expect(read.find((entry) => entry.digest.run === "ok.jsonl")?.size).toBe(1234);
  });

  it("refuses, with why, a file of another version or format, with a column missing or of another type, or breaking the layout", async () => {
    const dir = await tempDir("wink-index-refused-");
    const rows = runIndexRows("eval", GENERATED);
    const write = async (name: string, options: { version?: string; format?: string; rows?: RunIndexRow[]; drop?: string; retype?: string }) => {
      const file = path.join(dir, name);
      const schema = runIndexSchema();
      const columnData = runIndexColumns(options.rows ?? rows);
      const at = schema.findIndex((element) => element.name === (options.drop ?? options.retype));
      if (options.drop !== undefined) {
        schema.splice(at, 1);
        (schema[0] as { num_children: number }).num_children -= 1;
        columnData.splice(
          columnData.findIndex((column) => column.name === options.drop),
          1,
        );
      }
      if (options.retype !== undefined) {
        schema[at] = { name: options.retype, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" };
        const column = columnData.find((candidate) => candidate.name === options.retype);
        if (column !== undefined) column.data = (column.data as unknown[]).map((value) => (value === null ? null : String(value)));
      }
      parquetWriteFile({
        filename: file,
        schema,
        columnData,
        kvMetadata: [
          { key: "wink-debug.format", value: options.format ?? RUN_INDEX_FORMAT },
          { key: "wink-debug.version", value: options.version ?? String(RUN_INDEX_VERSION) },
        ],
      });
      return bytesOf(await readFile(file));
    };
    const refusal = async (bytes: ArrayBuffer) => readRunIndex(bytes).then(() => "read", (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)));

    expect(await refusal(await write("v1.parquet", { version: "1" }))).toMatch(/^RunIndexFileError: it is version "1" of the run index; this viewer reads version 2/);
    expect(await refusal(await write("other.parquet", { format: "something-else" }))).toMatch(/^RunIndexFileError: it is not a wink-debug-run-index/);
    expect(await refusal(await write("dropped.parquet", { drop: "stats_errors" }))).toBe("RunIndexFileError: it has no column stats_errors");
    expect(await refusal(await write("retyped.parquet", { retype: "tool_calls" }))).toBe("RunIndexFileError: its column tool_calls is BYTE_ARRAY, not INT32");
    const orphan = rows.filter((row) => row.row_kind !== "run" || row.run !== "pay/req-02/b1_20261120_101500.zip");
    expect(await refusal(await write("orphan.parquet", { rows: orphan }))).toMatch(/^RunIndexFileError: row \d+: a failure of no run of the file$/);
    const twice = [...rows, rows[0] as RunIndexRow];
    expect(await refusal(await write("twice.parquet", { rows: twice }))).toMatch(/^RunIndexFileError: row \d+: a second row of its run$/);
    const negative = rows.map((row) => (row.row_kind === "run" ? { ...row, tool_calls: -1 } : row));
    expect(await refusal(await write("negative.parquet", { rows: negative }))).toMatch(/^RunIndexFileError: row 1: tool_calls is not a count$/);
    // Not Parquet at all, or a Parquet file cut short: the decoder's own error, never a digest.
    const garbage = path.join(dir, "garbage.parquet");
    await writeFile(garbage, "PAR1 this is not a parquet file PAR1");
    expect(await refusal(bytesOf(await readFile(garbage)))).not.toBe("read");
    const whole = await write("whole.parquet", {});
    expect(await refusal(whole.slice(0, whole.byteLength - 100))).not.toBe("read");
    expect(await refusal(whole)).toBe("read");
    // The maximum number of rows is checked before any row is decoded.
    expect(await readRunIndex(whole, { maxRows: 3 }).catch((error: unknown) => error)).toBeInstanceOf(RunIndexFileError);
  });
});
