// Every run of the real WINK fixtures read as a digest (through the run model the viewer opens
// on), and the failure groups they form.
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startNginx } from "../../shared/remote/test-servers/nginx.test-support.js";
import { FIXTURES_DIR } from "../../fixtures/paths.js";
import { REAL_MESSAGES } from "../../shared/viewer/failure-messages.test-support.js";
import { failureReport, groupFailures, runDigest } from "../../shared/viewer/index.js";
import type { RunDigestView } from "../../shared/viewer/index.js";
import { packageRoot } from "../package-root.js";
import { cleanUp, tempDir } from "../server.test-support.js";
import { RemoteFiles } from "./remote-files.js";
import { readRunDigests } from "./run-digests.js";
import { runOf } from "./runs.js";
import { closeServedState, openServedState } from "./served-state.js";

afterAll(cleanUp);

/** The digests of every run under `target` (recursively), by path. */
async function digestsOf(target: string, concurrency?: number): Promise<RunDigestView[]> {
  const served = await openServedState({ path: target, recursive: true, pickCurrent: false });
  try {
    return await readRunDigests(served.state, served.state.directory.files(), concurrency === undefined ? {} : { concurrency });
  } finally {
    await closeServedState(served);
  }
}

const EXAMPLE = path.join(packageRoot(), "examples", "snapshots");

describe("run digests", () => {
  it("reads the failures of every fixture run, the same ones the run model lists, and templates each as the signature tests say", async () => {
    const digests = [...(await digestsOf(path.join(FIXTURES_DIR, "wink"))), ...(await digestsOf(path.join(FIXTURES_DIR, "wink-bundles"))), ...(await digestsOf(EXAMPLE))];
    const calls = digests.flatMap((digest) => digest.failures.filter((failure) => failure.kind === "call").map((failure) => [failure.tool, failure.message]));
    expect(calls.sort()).toEqual(REAL_MESSAGES.map(([, tool, message]) => [tool, message]).sort());
    const errors = digests.flatMap((digest) => digest.failures.filter((failure) => failure.kind === "run_error").map((failure) => [digest.run, failure.error_type]));
    expect(errors).toEqual([["02-failed-run/e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip", "PromptEvaluationError"]]);
  });

  it("groups the fixtures' failures: the same error at other paths together, other errors apart", async () => {
    const report = failureReport(await digestsOf(path.join(FIXTURES_DIR, "wink-bundles")));
    // 01, 02, 03, 05, 06 ×3, 08; index.json holds no session line: no run, listed apart.
    expect({ runs: report.runs, failed: report.failed_runs, notLoaded: report.not_loaded_runs }).toEqual({ runs: 8, failed: 3, notLoaded: 0 });
    expect(report.not_sessions).toEqual(["index.json"]);
    expect(report.groups.map((group) => [group.signature, group.runs, group.occurrences])).toEqual([
      // 02 on calc-service/src/calc/parsers.py, 03 on two payments-service files.
      ["read_file: File not found: <path>", 2, 3],
      // 02 on calc-service/src/calc/parser.py, 03 on payments-service/docs/adr/0001-decision.md.
      ["write_file: File <str> must be read before overwriting.", 2, 2],
      ["codex:command: exit code <n>: <n> failed, <n> passed in <n>s", 1, 1],
      ["delete_file: Unknown tool: delete_file", 1, 1],
      ["run error PromptEvaluationError: Turn failed: contextWindowExceeded — Your input exceeds the context window of this model. Please adjust your input and try again.", 1, 1],
      ["run_tests: Validation error: target: expected str", 1, 1],
      ["search: Validation error: Invalid regex pattern: unterminated character set at position <n>", 1, 1],
      ["write_file: Error: refusing to write outside the workspace: <path>", 1, 1],
    ]);
    const [notFound] = report.groups;
    expect(notFound?.run_share).toBe(0.25);
    expect(notFound?.arguments.map((argument) => argument.value)).toEqual(["calc-service/src/calc/parsers.py", "payments-service/CHANGELOG.md", "payments-service/src/payments/fx_compat.py"]);
    expect(notFound?.tools).toEqual([{ name: "read_file", occurrences: 3 }]);
    // The earliest occurrence: 02 ran a second before 03.
    expect(notFound?.example.run).toBe("02-failed-run/e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip");
    expect(notFound?.first_seen).toBe(notFound?.example.created_at);
    expect(notFound?.last_seen?.startsWith("2026-11-26T05:45:")).toBe(true);
  });

  it("gives the same digests whatever the number of readers, in the order of the records", async () => {
    const target = path.join(FIXTURES_DIR, "wink-bundles");
    const one = await digestsOf(target, 1);
    expect(await digestsOf(target, 8)).toEqual(one);
    expect(one.map((digest) => digest.run)).toEqual([...one.map((digest) => digest.run)].sort());
    expect(groupFailures(one)).toEqual(groupFailures([...one].reverse()));
  });

  it("reads each byte of a run once: a session file's index and latest line from one read, a small bundle's members from one read of its zip", async () => {
    // Bytes read by this process (`rchar`: every read(2), page cache or not); the test files run in processes of their own.
    const readSoFar = async () => Number(/rchar: (\d+)/.exec(await readFile("/proc/self/io", "utf8"))?.[1]);
    const dir = await tempDir("wink-digest-reads-");
    const sources = [
      path.join(FIXTURES_DIR, "wink", "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"),
      path.join(FIXTURES_DIR, "wink", "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl"),
      path.join(FIXTURES_DIR, "wink-bundles", "02-failed-run", "e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip"),
      path.join(FIXTURES_DIR, "wink-bundles", "06-iterations", "249eb5e5-e06b-4ce8-8905-c6259d49b7e5_20261126_054552.zip"),
      path.join(FIXTURES_DIR, "wink-bundles", "05-odd-values", "6a9e6e4c-2099-4568-8560-e6a644beced8_20261126_054551.zip"),
    ];
    let size = 0;
    for (let copy = 0; copy < 4; copy++) {
      await mkdir(path.join(dir, `sample-${copy}`));
      for (const source of sources) {
        await copyFile(source, path.join(dir, `sample-${copy}`, path.basename(source)));
        size += (await readFile(source)).length;
      }
    }
    const served = await openServedState({ path: dir, recursive: true, pickCurrent: false });
    try {
      const records = served.state.directory.files();
      expect(records).toHaveLength(20);
      const before = await readSoFar();
      const digests = await readRunDigests(served.state, records);
      const read = (await readSoFar()) - before;
      expect(digests.filter((digest) => digest.outcome === "failed").length).toBeGreaterThan(0);
      expect(digests.every((digest) => digest.outcome !== "not_loaded")).toBe(true);
      // Once, and a little more (a read of /proc itself, a zip's first bytes sniffed at listing);
      // scanning a session file and then reading its latest line again read it twice, and a
      // bundle's members were read again after the central directory's read took all of it.
      expect(read).toBeLessThanOrEqual(size * 1.05);
    } finally {
      await closeServedState(served);
    }
  });

  it("reads each byte of a remote session file once: its index and latest line from one request (real nginx)", async () => {
    const dir = await tempDir("wink-digest-remote-reads-");
    const sources = [path.join(FIXTURES_DIR, "wink", "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"), path.join(FIXTURES_DIR, "wink", "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl")];
    let size = 0;
    for (let copy = 0; copy < 5; copy++) {
      await mkdir(path.join(dir, `sample-${copy}`));
      for (const source of sources) {
        await copyFile(source, path.join(dir, `sample-${copy}`, path.basename(source)));
        size += (await readFile(source)).length;
      }
    }
    const nginx = await startNginx(dir);
    try {
      const served = await openServedState({ path: nginx.url, recursive: true, pickCurrent: false });
      try {
        const files = served.state.directory.store;
        if (!(files instanceof RemoteFiles)) throw new Error("an http:// target is served by RemoteFiles");
        const records = served.state.directory.files();
        expect(records).toHaveLength(10);
        const before = files.source.stats.bytesReceived;
        const digests = await readRunDigests(served.state, records);
        const received = files.source.stats.bytesReceived - before;
        expect(digests.filter((digest) => digest.outcome === "failed").length).toBeGreaterThan(0);
        expect(digests.every((digest) => digest.outcome !== "not_loaded")).toBe(true);
        // Streamed for the index, then the latest line read again by range: a one-line object twice.
        expect(received).toBeGreaterThanOrEqual(size);
        expect(received).toBeLessThanOrEqual(size * 1.01);
        // The same digests as the local folder's.
        const local = await digestsOf(dir);
        const strip = (list: RunDigestView[]) => list.map((digest) => ({ run: digest.run, outcome: digest.outcome, failures: digest.failures.map((failure) => failure.message) }));
        expect(strip(digests)).toEqual(strip(local));
      } finally {
        await closeServedState(served);
      }
    } finally {
      await nginx.stop();
    }
  });

  it("counts a run that cannot be read as not loaded, with why, and goes on", async () => {
    const dir = await tempDir("wink-digests-");
    await mkdir(path.join(dir, "a"));
    await copyFile(path.join(FIXTURES_DIR, "wink", "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"), path.join(dir, "a", "run.jsonl"));
    await writeFile(path.join(dir, "a", "empty.jsonl"), "");
    // Starts like a debug bundle, so it is listed as one; then its central directory is missing.
    const bundle = path.join(FIXTURES_DIR, "wink-bundles", "06-iterations", "249eb5e5-e06b-4ce8-8905-c6259d49b7e5_20261126_054552.zip");
    const bytes = await readFile(bundle);
    await writeFile(path.join(dir, "a", "cut_20261126_054552.zip"), bytes.subarray(0, Math.floor(bytes.length / 2)));
    const served = await openServedState({ path: dir, recursive: true, pickCurrent: false });
    try {
      const records = served.state.directory.files();
      const digests = await readRunDigests(served.state, records);
      const byRun = new Map(digests.map((digest) => [digest.run, digest]));
      expect([...byRun.keys()].sort()).toEqual(["a/cut_20261126_054552.zip", "a/empty.jsonl", "a/run.jsonl"]);
      expect(byRun.get("a/run.jsonl")?.outcome).toBe("failed");
      expect(byRun.get("a/empty.jsonl")).toMatchObject({ outcome: "not_loaded", reason: "The source holds no loadable snapshot line", failures: [] });
      expect(byRun.get("a/cut_20261126_054552.zip")).toMatchObject({ kind: "bundle", outcome: "not_loaded" });
      expect(byRun.get("a/cut_20261126_054552.zip")?.reason).toMatch(/\S/);
      // What was read is let go: the runs are not kept once digested.
      expect(records.every((record) => record.index === null)).toBe(true);
      // The digest of a run is the run model's: its failures are the run's, in its order.
      const run = await runOf(served.state, records.find((record) => record.path === "a/run.jsonl") as (typeof records)[number]);
      expect(runDigest(run)).toEqual(byRun.get("a/run.jsonl"));
    } finally {
      await closeServedState(served);
    }
  });
});
