// `wink-debug index` as a user runs it: the real CLI (a child process) writes the Parquet
// index of a generated eval (session files, real WINK bundles, runs that do not load, hostile
// names), and DuckDB reads the file and counts what `wink-debug failures --json` reports.
import { DuckDBInstance } from "@duckdb/node-api";
import type { DuckDBConnection } from "@duckdb/node-api";
import { execFile } from "node:child_process";
import { chmod, cp, mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import type { FailureReportView } from "../shared/viewer/index.js";
import { startCli, stopClis } from "./cli.test-support.js";
import type { GeneratedCall } from "./failures.test-support.js";
import { writeErroredBundle, writeSessionRun } from "./failures.test-support.js";
import { IndexError, indexMain } from "./index-command.js";
import { RUN_INDEX_COLUMNS } from "./library/parquet-index.js";
import { cleanUp, tempDir } from "./server.test-support.js";

const execFileAsync = promisify(execFile);

/** Tests that start the CLI several times: each start transpiles the sources (seconds on a loaded 2-core machine). */
const SEVERAL_STARTS_MS = 120_000;

const SMALL_SUCCESS = path.join(WINK_BUNDLE_FIXTURES, "01-small-success", "c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip");
const FAILED_RUN = path.join(WINK_BUNDLE_FIXTURES, "02-failed-run", "e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip");
const LONG_RUN = path.join(WINK_BUNDLE_FIXTURES, "03-long-run", "9e611eeb-eb09-4f9f-9c90-94208ca40ccf_20261126_054535.zip");
const ITERATIONS = path.join(WINK_BUNDLE_FIXTURES, "06-iterations");
/** A session file named with an escape sequence and a newline: a name is data. */
const HOSTILE_NAME = "evil\u001b[31m\nname.jsonl";

const missing = (file: string, callId: string): GeneratedCall => ({
  tool: "read_file",
  params: { path: file },
  message: `No such file or directory: ${file}. Use ls or glob to find existing paths.`,
  success: false,
  callId,
});
const command = (exit: number, ms: number, callId: string): GeneratedCall => ({ tool: "shell", params: { command: "pytest -q" }, message: `Command failed with exit code ${exit} after ${ms} ms`, success: false, callId });
const ok = (callId: string): GeneratedCall => ({ tool: "list_dir", params: { path: "." }, message: "3 entries", success: true, callId });

/** A copy of a real bundle with one more member, named `member` (as a hostile archive would name it). */
async function writeBundleWithMember(source: string, target: string, member: string): Promise<void> {
  const script = [
    "import sys, zipfile",
    "source, target, member = sys.argv[1:4]",
    "with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, 'w') as out:",
    "    for info in z.infolist(): out.writestr(info, z.read(info))",
    "    out.writestr(member, b'wink-canary')",
  ].join("\n");
  await mkdir(path.dirname(target), { recursive: true });
  await execFileAsync("python3", ["-c", script, source, target, member]);
}

let target: string;

/**
 * An EvalLoop layout ({target}/{request_id}/…) of 15 runs and a truth.json: session files with
 * failed calls, real bundles (one failed, one long, three iterations, two given an error.json),
 * a broken session file, two bundles with a `..` and an absolute member, and a session file
 * with control characters in its name.
 */
async function writeEval(root: string): Promise<void> {
  const day = (date: string) => new Date(`${date}T10:00:00Z`);
  await writeSessionRun(path.join(root, "calc", "req-01", "run-01.jsonl"), "a0000000-0000-4000-8000-000000000001", day("2026-11-20"), [ok("call_a1"), missing("src/pay/a1.py", "call_4f9c2d1e8b7a")]);
  await writeSessionRun(path.join(root, "calc", "req-01", "run-02.jsonl"), "a0000000-0000-4000-8000-000000000002", day("2026-11-21"), [missing("lib/x.ts", "call_77aa01bb02cc"), command(2, 1834, "call_0002")]);
  await writeSessionRun(path.join(root, "calc", "req-02", "run-03.jsonl"), "a0000000-0000-4000-8000-000000000003", day("2026-11-22"), [ok("call_b1"), ok("call_b2")]);
  await writeSessionRun(path.join(root, "pay", "req-03", "run-04.jsonl"), "a0000000-0000-4000-8000-000000000004", day("2026-11-23"), [command(1, 95, "cmd_0004"), missing("README.md", "toolu_01AbCdEf23")]);
  await writeErroredBundle(SMALL_SUCCESS, path.join(root, "pay", "req-04", "b1000000-0000-4000-8000-000000000006_20261120_101500.zip"), "DeadlineExceededError", "Deadline exceeded after 30 s");
  await writeErroredBundle(SMALL_SUCCESS, path.join(root, "pay", "req-05", "b1000000-0000-4000-8000-000000000007_20261125_093000.zip"), "DeadlineExceededError", "Deadline exceeded after 12 s");
  await cp(FAILED_RUN, path.join(root, "calc", "req-06", path.basename(FAILED_RUN)));
  await cp(LONG_RUN, path.join(root, "calc", "req-07", path.basename(LONG_RUN)));
  await cp(ITERATIONS, path.join(root, "calc", "req-08"), { recursive: true });
  await mkdir(path.join(root, "calc", "req-09"), { recursive: true });
  await writeFile(path.join(root, "calc", "req-09", "broken.jsonl"), "{not json\n");
  await writeBundleWithMember(SMALL_SUCCESS, path.join(root, "hostile", "req-10", "d1000000-0000-4000-8000-00000000000d_20261121_101500.zip"), "debug_bundle/../../wink-canary-index.txt");
  await writeBundleWithMember(SMALL_SUCCESS, path.join(root, "hostile", "req-11", "e1000000-0000-4000-8000-00000000000e_20261121_101500.zip"), "/tmp/wink-canary-index-abs.txt");
  await writeSessionRun(path.join(root, "hostile", "req-12", HOSTILE_NAME), "a0000000-0000-4000-8000-000000000012", day("2026-11-24"), [missing("src/evil.py", "call_e1e1e1e1e1e1")]);
  await writeFile(path.join(root, "truth.json"), JSON.stringify({ samples: 12 }));
}

/** Every file under `dir` with its size and modification time: what "nothing written beside the runs" compares. */
async function listing(dir: string): Promise<string[]> {
  const names = (await readdir(dir, { recursive: true })).sort();
  return Promise.all(names.map(async (name) => `${name} ${(await stat(path.join(dir, name))).size} ${(await stat(path.join(dir, name))).mtimeMs}`));
}

let duck: DuckDBInstance;
let db: DuckDBConnection;

/** Rows of `sql` as JSON values (DuckDB's BIGINTs as strings: cast counts to INTEGER). */
async function query(sql: string): Promise<Record<string, unknown>[]> {
  return (await db.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

const quoted = (file: string) => `'${file.replaceAll("'", "''")}'`;

beforeAll(async () => {
  target = await tempDir("wink-index-");
  await writeEval(target);
  duck = await DuckDBInstance.create(":memory:");
  db = await duck.connect();
});

afterAll(async () => {
  stopClis();
  db.closeSync();
  duck.closeSync();
  await cleanUp();
});

async function run(args: string[], options: { withoutDacOverride?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, options);
  const code = await cli.exit;
  return { code, stdout: cli.output(), stderr: cli.errors() };
}

describe("wink-debug index", () => {
  it("writes one row per run and per failure that DuckDB counts as wink-debug failures --json does", async () => {
    const out = await tempDir("wink-index-out-");
    const file = path.join(out, "index.parquet");
    const before = await listing(target);
    // Side by side, so one would find the runs the other keeps in the run index: --no-cache reads them all (server/run-index.test.ts has the cache).
    const [indexed, failures] = await Promise.all([run(["index", target, "-r", "-o", file, "--no-cache"]), run(["failures", target, "-r", "--json"])]);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(failures.code, failures.stderr).toBe(0);
    const report = JSON.parse(failures.stdout) as FailureReportView;
    // Progress on stderr, one line of result on stdout.
    expect(indexed.stderr).toContain("Reading 16 runs of");
    expect(indexed.stderr).toMatch(/Read 16 runs in [\d.]+ s \(3 did not load\)/);
    expect(indexed.stdout).toBe(`Wrote 15 runs and ${report.groups.reduce((sum, group) => sum + group.occurrences, 0)} failures to ${file}\n`);
    // Written whole beside nothing: the output folder holds the file alone, the runs' folder is as it was.
    expect(await readdir(out)).toEqual(["index.parquet"]);
    expect(await listing(target)).toEqual(before);

    await db.run(`CREATE OR REPLACE VIEW idx AS SELECT * FROM read_parquet(${quoted(file)})`);
    const [counts] = await query(`SELECT
        count(*) FILTER (row_kind = 'run')::INTEGER AS runs,
        count(*) FILTER (row_kind = 'run' AND outcome = 'failed')::INTEGER AS failed_runs,
        count(*) FILTER (row_kind = 'run' AND outcome = 'not_loaded')::INTEGER AS not_loaded_runs
      FROM idx`);
    expect(counts).toEqual({ runs: report.runs, failed_runs: report.failed_runs, not_loaded_runs: report.not_loaded_runs });
    expect(report).toMatchObject({ runs: 15, not_loaded_runs: 3 });

    // Every group: its occurrences, runs, share and first and last seen.
    const groups = await query(`SELECT signature, count(*)::INTEGER AS occurrences, count(DISTINCT run)::INTEGER AS runs,
        epoch_ms(min(failed_at))::DOUBLE AS first_ms, epoch_ms(max(failed_at))::DOUBLE AS last_ms
      FROM idx WHERE row_kind = 'failure' GROUP BY signature`);
    const bySignature = new Map(groups.map((group) => [group.signature as string, group]));
    expect([...bySignature.keys()].sort()).toEqual(report.groups.map((group) => group.signature).sort());
    expect(report.groups.length).toBeGreaterThanOrEqual(8);
    for (const group of report.groups) {
      const row = bySignature.get(group.signature);
      expect({ occurrences: row?.occurrences, runs: row?.runs, share: Math.round(((row?.runs as number) / report.runs) * 10_000) / 10_000 }, group.signature).toEqual({
        occurrences: group.occurrences,
        runs: group.runs,
        share: group.run_share,
      });
      expect([row?.first_ms, row?.last_ms]).toEqual([group.first_seen === null ? null : Math.floor(Date.parse(group.first_seen)), group.last_seen === null ? null : Math.floor(Date.parse(group.last_seen))]);
    }
    // Runs that did not load, with the reason failures gives; .json files that are not sessions apart.
    const notLoaded = await query(`SELECT run, reason FROM idx WHERE row_kind = 'run' AND outcome = 'not_loaded' ORDER BY run`);
    expect(notLoaded).toEqual(report.not_loaded.map(({ run, reason }) => ({ run, reason })));
    expect(notLoaded.map((row) => row.reason)).toEqual([expect.stringMatching(/^Line 1: /), 'Entry name has a ".." segment: debug_bundle/../../wink-canary-index.txt', "Absolute entry name: /tmp/wink-canary-index-abs.txt"]);
    expect(await query(`SELECT run FROM idx WHERE row_kind = 'not_session'`)).toEqual(report.not_sessions.map((run) => ({ run })));
    // The hostile name is kept as it is, byte for byte (a name is data).
    expect(await query(`SELECT outcome, failed_calls FROM idx WHERE row_kind = 'run' AND run = ${quoted(`hostile/req-12/${HOSTILE_NAME}`)}`)).toEqual([{ outcome: "failed", failed_calls: 1 }]);
  }, SEVERAL_STARTS_MS);

  it("fills a run's place, times, counts and error, and a failure's columns", async () => {
    const file = path.join(await tempDir("wink-index-cols-"), "runs.parquet");
    const indexed = await run(["index", target, "--recursive", "--output", file]);
    expect(indexed.code, indexed.stderr).toBe(0);
    await db.run(`CREATE OR REPLACE VIEW cols AS SELECT * FROM read_parquet(${quoted(file)})`);
    // The documented columns, in the file's order and with their types.
    const described = await query(`DESCRIBE SELECT * FROM cols`);
    expect(described.map((column) => column.column_name)).toEqual(RUN_INDEX_COLUMNS.map((column) => column.name));
    const docs = await readFile(path.join(import.meta.dirname, "..", "docs", "eval.md"), "utf8");
    const documented = [...docs.slice(docs.indexOf("## The Parquet index")).matchAll(/^\| `([a-z_]+)` \| (?:[A-Z]|`)/gm)].map((match) => match[1]);
    expect(documented).toEqual(RUN_INDEX_COLUMNS.map((column) => column.name));
    expect(Object.fromEntries(described.map((column) => [column.column_name, column.column_type]))).toMatchObject({
      started_at: "TIMESTAMP WITH TIME ZONE",
      failed_at: "TIMESTAMP WITH TIME ZONE",
      duration_ms: "DOUBLE",
      tool_calls: "INTEGER",
      turn: "INTEGER",
      tags: "VARCHAR[]",
    });

    // A real bundle that failed: its times to the microsecond, its counts, its error on its run row.
    const failedRun = `calc/req-06/${path.basename(FAILED_RUN)}`;
    expect(
      await query(`SELECT run_kind, outcome, strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%f') AS started, duration_ms > 0 AS lasted,
          tool_calls, failed_calls, error_type, target, sample, attempt, tags
        FROM cols WHERE row_kind = 'run' AND run = ${quoted(failedRun)}`),
    ).toEqual([
      { run_kind: "bundle", outcome: "failed", started: "2026-11-26T05:45:34.976984", lasted: true, tool_calls: 8, failed_calls: 6, error_type: "PromptEvaluationError", target: "calc", sample: "req-06", attempt: null, tags: [] },
    ]);
    // Its run error is a failure row too, with the run's place repeated.
    expect(await query(`SELECT failure_kind, tool, error_type, target, sample, starts_with(signature, 'run error PromptEvaluationError: ') AS signed FROM cols WHERE row_kind = 'failure' AND run = ${quoted(failedRun)} AND failure_kind = 'run_error'`)).toEqual([
      { failure_kind: "run_error", tool: null, error_type: "PromptEvaluationError", target: "calc", sample: "req-06", signed: true },
    ]);
    // A failed call of a session file: tool, key argument, message, signature, session, turn, time, call id.
    expect(
      await query(`SELECT failure_kind, tool, argument_name, argument_value, message, signature, session_id, turn, strftime(failed_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S') AS at, call_id, attempt
        FROM cols WHERE row_kind = 'failure' AND run = 'calc/req-01/run-01.jsonl'`),
    ).toEqual([
      {
        failure_kind: "call",
        tool: "read_file",
        argument_name: "path",
        argument_value: "src/pay/a1.py",
        message: "No such file or directory: src/pay/a1.py. Use ls or glob to find existing paths.",
        signature: "read_file: No such file or directory: <path>. Use ls or glob to find existing paths.",
        session_id: "a0000000-0000-4000-8000-000000000001",
        turn: 1,
        at: "2026-11-20T10:00:04",
        call_id: "call_4f9c2d1e8b7a",
        // Two runs of one sample: the first in time is attempt 1, as in the eval view.
        attempt: 1,
      },
    ]);
    // Run figures live on run rows only, so a sum over the file counts each run once.
    const [sums] = await query(`SELECT count(*) FILTER (row_kind <> 'run' AND (tool_calls IS NOT NULL OR duration_ms IS NOT NULL))::INTEGER AS stray, sum(failed_calls)::INTEGER AS calls, count(*) FILTER (failure_kind = 'call')::INTEGER AS call_rows FROM cols`);
    expect(sums?.stray).toBe(0);
    expect(sums?.calls).toBe(sums?.call_rows);
  }, SEVERAL_STARTS_MS);

  it("refuses bad input with one line naming it and exit code 2, and leaves an existing file whole when it cannot write", async () => {
    const dir = await tempDir("wink-index-bad-");
    const [missingTarget, noOutput, missingFolder, folderOutput, remote] = await Promise.all([
      run(["index", path.join(dir, "nope"), "-r", "-o", path.join(dir, "i.parquet")]),
      run(["index", target, "-r"]),
      run(["index", target, "-r", "-o", path.join(dir, "absent", "i.parquet")]),
      run(["index", target, "-r", "-o", dir]),
      run(["index", target, "-r", "--endpoint-url", "http://127.0.0.1:9", "-o", path.join(dir, "i.parquet")]),
    ]);
    for (const result of [missingTarget, noOutput, missingFolder, folderOutput, remote]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^wink-debug: error: /);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).toBe("");
    }
    expect(missingTarget.stderr).toContain(`No such file or directory: ${path.join(dir, "nope")}`);
    expect(noOutput.stderr).toContain("-o FILE.parquet is required");
    expect(missingFolder.stderr).toContain(`cannot write the index ${path.join(dir, "absent", "i.parquet")}: its folder ${path.join(dir, "absent")} does not exist`);
    expect(folderOutput.stderr).toContain(`cannot write the index ${dir}: it is a folder`);
    // Remote targets are read (server/remote-commands.test.ts); an S3 option for a local one is refused, as the viewer refuses it.
    expect(remote.stderr).toContain(`--endpoint-url is for s3:// targets, not ${target}`);

    // A folder it may not write to (as a user without root's override): the old index stays as it was, no temporary file is left.
    const locked = path.join(dir, "locked");
    await mkdir(locked);
    await writeFile(path.join(locked, "i.parquet"), "the old index");
    await chmod(locked, 0o555);
    const refused = await run(["index", target, "-r", "-o", path.join(locked, "i.parquet")], { withoutDacOverride: true });
    await chmod(locked, 0o755);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^wink-debug: error: cannot write the index ${path.join(locked, "i.parquet").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: EACCES`, "m"));
    expect(await readdir(locked)).toEqual(["i.parquet"]);
    expect(await readFile(path.join(locked, "i.parquet"), "utf8")).toBe("the old index");
  }, SEVERAL_STARTS_MS);

  it("parses its command line, and replaces an existing index", async () => {
    const out: string[] = [];
    const io = { out: (text: string) => out.push(text), err: () => undefined, interactive: false };
    expect(await indexMain(["--help"], io)).toBe(0);
    expect(out.join("")).toContain("Usage: wink-debug index DIR|FILE|URL [-r] -o FILE.parquet");
    await expect(indexMain([], io)).rejects.toThrow(/expected one DIR, FILE or URL, got 0/);
    await expect(indexMain([target, "--bogus"], io)).rejects.toThrow(IndexError);
    const file = path.join(await tempDir("wink-index-again-"), "one.parquet");
    await writeFile(file, "stale");
    expect(await indexMain([path.join(target, "calc", "req-01", "run-02.jsonl"), "-o", file], io)).toBe(0);
    await db.run(`CREATE OR REPLACE VIEW one AS SELECT * FROM read_parquet(${quoted(file)})`);
    expect(await query(`SELECT row_kind, run, tool FROM one`)).toEqual([
      { row_kind: "run", run: "run-02.jsonl", tool: null },
      { row_kind: "failure", run: "run-02.jsonl", tool: "read_file" },
      { row_kind: "failure", run: "run-02.jsonl", tool: "shell" },
    ]);
  });
});
