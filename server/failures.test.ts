// `wink-debug failures` as a user runs it: the real CLI (a child process) on a generated eval
// of session files and real WINK debug bundles, with failures that vary in numbers, ids and paths.
import { copyFile, cp, mkdir, readFile, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../fixtures/paths.js";
import { FailureReport } from "../shared/viewer/schemas/failures.js";
import type { FailureReportView } from "../shared/viewer/index.js";
import { startCli, stopClis } from "./cli.test-support.js";
import { FailuresError, failuresMain } from "./failures.js";
import type { GeneratedCall } from "./failures.test-support.js";
import { garbleRun, writeErroredBundle, writeSessionRun } from "./failures.test-support.js";
import { indexMain } from "./index-command.js";
import { INDEX_FILE } from "./library/index-seed.js";
import { cleanUp, tempDir } from "./server.test-support.js";

/** Tests that start the CLI several times: each start transpiles the sources (seconds on a loaded 2-core machine). */
const SEVERAL_STARTS_MS = 120_000;

const SMALL_SUCCESS = path.join(WINK_BUNDLE_FIXTURES, "01-small-success", "c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip");
const ITERATIONS = path.join(WINK_BUNDLE_FIXTURES, "06-iterations");

const ok = (callId: string): GeneratedCall => ({ tool: "list_dir", params: { path: "." }, message: "3 entries", success: true, callId });
/** Kind A: a file that is not there, at various paths. */
const missing = (file: string, callId: string): GeneratedCall => ({
  tool: "read_file",
  params: { path: file },
  message: `No such file or directory: ${file}. Use ls or glob to find existing paths.`,
  success: false,
  callId,
});
/** Kind B: a failing command, with its numbers. */
const command = (exit: number, ms: number, failed: number, pid: number, callId: string): GeneratedCall => ({
  tool: "shell",
  params: { command: "pytest -q" },
  message: `Command failed with exit code ${exit} after ${ms} ms: ${failed} tests failed (pid ${pid})`,
  success: false,
  callId,
});
/** Kind C (a run error): a deadline, with its numbers and ids. */
const deadline = (seconds: string, callId: string, request: string) => `Deadline exceeded after ${seconds} s waiting for ${callId} (request ${request})`;

const SIGNATURES = {
  missing: "read_file: No such file or directory: <path>. Use ls or glob to find existing paths.",
  command: "shell: Command failed with exit code <n> after <n> ms: <n> tests failed (pid <n>)",
  deadline: "run error DeadlineExceededError: Deadline exceeded after <n> s waiting for <id> (request <id>)",
};

let target: string;
/** When the eval was written (a second early: file times may be rounded). */
let writtenAt: string;

/**
 * 12 runs in an EvalLoop layout ({target}/{request_id}/…): 6 failed (4 session files, 2
 * bundles), 5 passed (a session file, a real fixture session, 3 real bundles), 1 that does
 * not load; 3 kinds of failure.
 */
async function writeEval(root: string): Promise<void> {
  const day = (date: string) => new Date(`${date}T10:00:00Z`);
  await writeSessionRun(path.join(root, "req-01", "run-01.jsonl"), "a0000000-0000-4000-8000-000000000001", day("2026-11-20"), [ok("call_a1"), missing("src/pay/a1.py", "call_4f9c2d1e8b7a")]);
  await writeSessionRun(path.join(root, "req-02", "run-02.jsonl"), "a0000000-0000-4000-8000-000000000002", day("2026-11-21"), [missing("/srv/app/lib/x/y.ts", "call_77aa01bb02cc"), command(2, 1834, 3, 40121, "call_0002")]);
  await writeSessionRun(path.join(root, "req-03", "run-03.jsonl"), "a0000000-0000-4000-8000-000000000003", day("2026-11-22"), [missing("README.md", "toolu_01AbCdEf23"), ok("call_b2"), missing("docs/guide/überblick.md", "toolu_01XyZ98765")]);
  await writeSessionRun(path.join(root, "req-04", "run-04.jsonl"), "a0000000-0000-4000-8000-000000000004", day("2026-11-28"), [command(1, 95, 12, 7, "cmd_0004")]);
  await writeSessionRun(path.join(root, "req-05", "run-05.jsonl"), "a0000000-0000-4000-8000-000000000005", day("2026-11-28"), [ok("call_c3"), ok("call_c4")]);
  await writeErroredBundle(SMALL_SUCCESS, path.join(root, "req-06", "b1000000-0000-4000-8000-000000000006_20261120_101500.zip"), "DeadlineExceededError", deadline("30", "call_9f8e7d6c5b4a", "5f0c2b8e-3d41-4a9b-8c7e-1f2a3b4c5d6e"));
  await writeErroredBundle(SMALL_SUCCESS, path.join(root, "req-07", "b1000000-0000-4000-8000-000000000007_20261125_093000.zip"), "DeadlineExceededError", deadline("12.5", "call_0a1b2c3d4e5f", "9a8b7c6d-5e4f-4321-9fed-cba987654321"));
  await cp(ITERATIONS, path.join(root, "req-08"), { recursive: true });
  await mkdir(path.join(root, "req-09"), { recursive: true });
  await writeFile(path.join(root, "req-09", "broken.jsonl"), "{not json\n");
  await mkdir(path.join(root, "req-10"), { recursive: true });
  await copyFile(path.join(WINK_FIXTURES, "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl"), path.join(root, "req-10", "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl"));
}

beforeAll(async () => {
  target = await tempDir("wink-failures-");
  writtenAt = new Date(Date.now() - 1000).toISOString();
  await writeEval(target);
});

afterAll(async () => {
  stopClis();
  await cleanUp();
});

async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(["failures", ...args]);
  const code = await cli.exit;
  return { code, stdout: cli.output(), stderr: cli.errors() };
}

function report(stdout: string): FailureReportView {
  const document = JSON.parse(stdout) as unknown;
  expect([...Value.Errors(FailureReport, document)].map((error) => `${error.instancePath} ${error.message}`)).toEqual([]);
  return document as FailureReportView;
}

describe("wink-debug failures", () => {
  it("groups the failures of every run, 3 kinds into exactly 3 groups, as one JSON document", async () => {
    const { code, stdout, stderr } = await run([target, "-r", "--json"]);
    expect(code, stderr).toBe(0);
    const doc = report(stdout);
    expect({ runs: doc.runs, failed: doc.failed_runs, notLoaded: doc.not_loaded_runs }).toEqual({ runs: 12, failed: 6, notLoaded: 1 });
    expect(doc.groups.map((group) => [group.signature, group.runs, group.occurrences])).toEqual([
      [SIGNATURES.missing, 3, 4],
      // Two runs and two occurrences each: then by signature.
      [SIGNATURES.deadline, 2, 2],
      [SIGNATURES.command, 2, 2],
    ]);
    const [missing, deadlines, commands] = doc.groups;
    expect(missing).toMatchObject({ kind: "call", tool: "read_file", error_type: null, run_share: 0.25, first_seen: "2026-11-20T10:00:04+00:00", last_seen: "2026-11-22T10:00:06+00:00" });
    expect(missing?.tools).toEqual([{ name: "read_file", occurrences: 4 }]);
    expect(missing?.arguments.map((argument) => argument.value)).toEqual(["/srv/app/lib/x/y.ts", "README.md", "docs/guide/überblick.md", "src/pay/a1.py"]);
    expect(missing?.example).toEqual({
      run: "req-01/run-01.jsonl",
      message: "No such file or directory: src/pay/a1.py. Use ls or glob to find existing paths.",
      session_id: "a0000000-0000-4000-8000-000000000001",
      // A session without prompts is one turn (its line).
      turn: 1,
      call_id: "call_4f9c2d1e8b7a",
      created_at: "2026-11-20T10:00:04+00:00",
    });
    expect(deadlines).toMatchObject({ kind: "run_error", tool: null, error_type: "DeadlineExceededError", tools: [], arguments: [] });
    expect(deadlines?.example.run).toBe("req-06/b1000000-0000-4000-8000-000000000006_20261120_101500.zip");
    expect(commands?.arguments).toEqual([{ name: "command", value: "pytest -q", occurrences: 2 }]);
    expect(doc.not_loaded).toEqual([{ run: "req-09/broken.jsonl", reason: expect.stringMatching(/^Line 1: /) as unknown as string }]);
    expect(doc.baseline).toBeNull();
    expect(doc.groups.every((group) => group.new === undefined)).toBe(true);
    // Progress on stderr, the document alone on stdout.
    expect(stderr).toContain("Reading 12 runs of");
    expect(stderr).toMatch(/Read 12 runs in [\d.]+ s \(1 did not load\)/);
  }, SEVERAL_STARTS_MS);

  it("prints the groups as a table with one example each, and the runs that did not load", async () => {
    const { code, stdout } = await run([target, "--recursive"]);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toBe("12 runs: 6 failed, 5 passed, 1 did not load; 3 failure groups");
    expect(lines[2]).toMatch(/^ RUNS {2}SHARE {2}OCCURRENCES {2}SIGNATURE$/);
    expect(lines[3]).toBe(`    3    25%            4  ${SIGNATURES.missing}`);
    expect(lines[4]?.trim()).toBe("e.g. req-01/run-01.jsonl, turn 1: No such file or directory: src/pay/a1.py. Use ls or glob to find existing paths.");
    expect(lines[5]).toContain(SIGNATURES.deadline);
    expect(lines[7]).toContain(SIGNATURES.command);
    expect(lines[8]?.trim()).toBe("e.g. req-02/run-02.jsonl, turn 1: Command failed with exit code 2 after 1834 ms: 3 tests failed (pid 40121)");
    expect(stdout).toContain("\nDid not load (1):\n  req-09/broken.jsonl: Line 1: ");
    // Without -r only the target's own files are runs, and it has none.
    const flat = await run([target]);
    expect(flat.code).toBe(2);
    expect(flat.stderr).toMatch(/^wink-debug: error: No session files or debug bundles found under .*wink-failures-.* \(-r also looks in subdirectories/);
  }, SEVERAL_STARTS_MS);

  it("counts only the runs since a date: a bundle by the time in its name, a session file by its file time", async () => {
    const doc = report((await run([target, "-r", "--json", "--since", "2026-11-24"])).stdout);
    expect(doc.since).toBe("2026-11-24");
    // The bundle named 20261120 is left out; every other run is from the 25th on (the session files were written today).
    expect({ runs: doc.runs, failed: doc.failed_runs, notLoaded: doc.not_loaded_runs }).toEqual({ runs: 11, failed: 5, notLoaded: 1 });
    expect(doc.groups.map((group) => [group.signature, group.runs])).toEqual([
      [SIGNATURES.missing, 3],
      [SIGNATURES.command, 2],
      [SIGNATURES.deadline, 1],
    ]);
    // Since the eval was written: its bundles are named for November, so only the session files are left.
    const today = report((await run([target, "-r", "--json", "--since", writtenAt])).stdout);
    expect({ runs: today.runs, failed: today.failed_runs, notLoaded: today.not_loaded_runs }).toEqual({ runs: 7, failed: 4, notLoaded: 1 });
    expect(today.groups.map((group) => group.signature)).toEqual([SIGNATURES.missing, SIGNATURES.command]);
  }, SEVERAL_STARTS_MS);

  it("marks the groups a baseline does not have, and fails on them with --fail-on-new", async () => {
    const baseline = path.join(await tempDir("wink-failures-baseline-"), "baseline.json");
    const first = await run([target, "-r", "--json"]);
    await writeFile(baseline, first.stdout);
    // The same runs against their own report: nothing new, exit 0 even with --fail-on-new.
    const same = report((await run([target, "-r", "--json", "--baseline", baseline, "--fail-on-new"])).stdout);
    expect(same.baseline).toEqual({ file: baseline, new_groups: 0 });
    expect(same.groups.map((group) => group.new)).toEqual([false, false, false]);
    // A night later: one more run, failing a new way (and an old one).
    const later = await tempDir("wink-failures-later-");
    await cp(target, later, { recursive: true });
    await writeSessionRun(path.join(later, "req-11", "run-11.jsonl"), "a0000000-0000-4000-8000-000000000011", new Date("2026-11-29T10:00:00Z"), [
      { tool: "write_file", params: { path: "out/report-7.txt" }, message: "Permission denied: out/report-7.txt", success: false, callId: "call_5e5e5e5e5e5e" },
      missing("src/missing-11.py", "call_111111aaaaaa"),
    ]);
    const marked = await run([later, "-r", "--json", "--baseline", baseline]);
    expect(marked.code).toBe(0);
    const doc = report(marked.stdout);
    expect(doc.baseline).toEqual({ file: baseline, new_groups: 1 });
    expect(doc.groups.map((group) => [group.signature, group.new])).toEqual([
      [SIGNATURES.missing, false],
      [SIGNATURES.deadline, false],
      [SIGNATURES.command, false],
      ["write_file: Permission denied: <path>", true],
    ]);
    const failing = await run([later, "-r", "--baseline", baseline, "--fail-on-new"]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain(`1 new group against ${baseline}`);
    expect(failing.stdout).toMatch(/\n {4}1 {5}8% {12}1 {2}new {2}write_file: Permission denied: <path>\n/);
  }, SEVERAL_STARTS_MS);

  it("takes the runs an index.parquet at the target's root still describes from it, as the viewer does", async () => {
    const dir = await tempDir("wink-failures-parquet-");
    await cp(target, dir, { recursive: true });
    const runs = (await readdir(dir, { recursive: true })).filter((name) => /\.(jsonl|zip)$/.test(name));
    expect(runs.length).toBeGreaterThan(10);
    // Whole milliseconds (the index keeps milliseconds; a copy's times have nanoseconds, which
    // the garbling below, keeping the time to the millisecond, would change).
    const time = new Date("2026-11-26T05:46:00.125Z");
    for (const name of runs) await utimes(path.join(dir, name), time, time);
    const read = await run([dir, "-r", "--json", "--no-cache"]);
    expect(read.code, read.stderr).toBe(0);
    expect(await indexMain([dir, "-r", "-o", path.join(dir, INDEX_FILE)], { out: () => undefined, err: () => undefined, interactive: false })).toBe(0);
    // Every run made unreadable, size and time kept: only the index still gives their digests.
    for (const name of runs) await garbleRun(dir, name);
    const fromIndex = await run([dir, "-r", "--json", "--no-cache"]);
    expect(fromIndex.code, fromIndex.stderr).toBe(0);
    expect(report(fromIndex.stdout)).toEqual(report(read.stdout));
    expect(fromIndex.stderr).toContain(`${INDEX_FILE}: 12 of 12 runs taken from it`);
  }, SEVERAL_STARTS_MS);

  it("refuses bad input with one line naming it and exit code 2", async () => {
    const dir = await tempDir("wink-failures-bad-");
    const notReport = path.join(dir, "not-a-report.json");
    await writeFile(notReport, JSON.stringify({ runs: 3 }));
    const [missingTarget, badDate, missingBaseline, wrongBaseline] = await Promise.all([
      run([path.join(dir, "nope"), "-r"]),
      run([target, "-r", "--since", "yesterday"]),
      run([target, "-r", "--baseline", path.join(dir, "missing.json")]),
      run([target, "-r", "--baseline", notReport]),
    ]);
    for (const result of [missingTarget, badDate, missingBaseline, wrongBaseline]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^wink-debug: error: /);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).toBe("");
    }
    expect(missingTarget.stderr).toContain(`No such file or directory: ${path.join(dir, "nope")}`);
    expect(badDate.stderr).toContain("--since must be an ISO 8601 date or date-time, got yesterday");
    expect(missingBaseline.stderr).toContain(`cannot read the baseline ${path.join(dir, "missing.json")}`);
    expect(wrongBaseline.stderr).toContain(`the baseline ${notReport} is not a wink-debug failures --json document: it has no "groups" list`);
  }, SEVERAL_STARTS_MS);

  it("parses its command line", async () => {
    const out: string[] = [];
    const io = { out: (text: string) => out.push(text), err: () => undefined, interactive: false };
    expect(await failuresMain(["--help"], io)).toBe(0);
    expect(out.join("")).toContain("Usage: wink-debug failures DIR|FILE|URL [-r] [--json] [--since DATE] [--baseline FILE] [--fail-on-new]");
    expect(out.join("")).toContain("--endpoint-url URL");
    await expect(failuresMain([], io)).rejects.toThrow(/expected one DIR, FILE or URL, got 0/);
    await expect(failuresMain([target, "--fail-on-new"], io)).rejects.toThrow(/--fail-on-new needs --baseline FILE/);
    await expect(failuresMain([target, "--bogus"], io)).rejects.toThrow(FailuresError);
    // Remote targets are read (server/remote-commands.test.ts), with the viewer's remote options, checked as it checks them.
    await expect(failuresMain([target, "--cache-dir", target], io)).rejects.toThrow(`--cache-dir is for s3:// and http(s):// targets, not ${target}`);
    await expect(failuresMain(["https://runs.example/nightly/", "--endpoint-url", "http://127.0.0.1:9"], io)).rejects.toThrow("--endpoint-url is for s3:// targets, not https://runs.example/nightly/");
    await expect(failuresMain(["s3://bucket/runs/", "--path-style", "--no-path-style"], io)).rejects.toThrow("--path-style and --no-path-style contradict each other");
    const broken = await readFile(path.join(target, "req-09", "broken.jsonl"), "utf8");
    expect(broken).toBe("{not json\n");
  });

  it("shows control characters of a message in the table rather than sending them to the terminal", async () => {
    const dir = await tempDir("wink-failures-escape-");
    await writeSessionRun(path.join(dir, "run.jsonl"), "a0000000-0000-4000-8000-0000000000e5", new Date("2026-11-26T10:00:00Z"), [
      { tool: "shell", params: { command: "make" }, message: "\u001b[31mred\u001b[0m failure \u0007", success: false, callId: "call_e5" },
    ]);
    const out: string[] = [];
    const io = { out: (text: string) => out.push(text), err: () => undefined, interactive: false };
    expect(await failuresMain([dir], io)).toBe(0);
    const table = out.join("");
    expect(table).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(table).toContain("e.g. run.jsonl, turn 1: \\x1b[31mred\\x1b[0m failure \\x07");
    out.length = 0;
    await failuresMain([dir, "--json"], io);
    expect(report(out.join("")).groups[0]?.example.message).toBe("\u001b[31mred\u001b[0m failure \u0007");
  });

  it("reports a folder whose runs all fail to load (the viewer refuses to serve it), exit 0", async () => {
    const dir = await tempDir("wink-failures-broken-");
    await writeFile(path.join(dir, "a.jsonl"), "{not json\n");
    await writeFile(path.join(dir, "b.json"), "[]\n");
    const out: string[] = [];
    expect(await failuresMain([dir, "--json"], { out: (text) => out.push(text), err: () => undefined, interactive: false })).toBe(0);
    const doc = report(out.join(""));
    expect({ runs: doc.runs, failed: doc.failed_runs, notLoaded: doc.not_loaded_runs, groups: doc.groups.length }).toEqual({ runs: 1, failed: 0, notLoaded: 1, groups: 0 });
    expect(doc.not_loaded.map((run) => run.run)).toEqual(["a.jsonl"]);
    // A .json file with no session line (an eval's truth.json) is no run: listed apart, as the run list does.
    expect(doc.not_sessions).toEqual(["b.json"]);
  });

  it("reads one file when the target names one", async () => {
    const out: string[] = [];
    const code = await failuresMain([path.join(target, "req-02", "run-02.jsonl"), "--json"], { out: (text) => out.push(text), err: () => undefined, interactive: false });
    expect(code).toBe(0);
    const doc = report(out.join(""));
    expect(doc.runs).toBe(1);
    expect(doc.groups.map((group) => [group.signature, group.example.run])).toEqual([
      [SIGNATURES.missing, "run-02.jsonl"],
      [SIGNATURES.command, "run-02.jsonl"],
    ]);
  });
});
