// The eval with an `index.parquet` at the target's root (issue 30 item 6): a real server on
// loopback answers /api/failures from the file for the runs it covers — as it would without
// it — reads the runs newer or changed since, and ignores a file it must not trust.
import { rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { parquetWriteFile } from "hyparquet-writer";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_INDEX_FORMAT, runIndexRows } from "../../shared/viewer/index.js";
import type { RunDigestView } from "../../shared/viewer/index.js";
import type { AppOptions } from "../app.js";
import type { EvalWithRuns } from "../failures.test-support.js";
import { MIXED_EVAL_FAILED_RUN, evalDay, evalWithRuns, failedCommand, garbleRun as garble, writeMixedEval as writeEval, writeSessionRun } from "../failures.test-support.js";
import { indexMain } from "../index-command.js";
import { INDEX_FILE } from "../library/index-seed.js";
import { runIndexColumns, runIndexSchema, writeRunIndex } from "../library/parquet-index.js";
import { cleanUp, tempDir, testApp } from "../server.test-support.js";
import { startNginx } from "../../shared/remote/test-servers/nginx.test-support.js";

afterEach(cleanUp);

const FAILED_RUN = MIXED_EVAL_FAILED_RUN;
const command = failedCommand;
const day = evalDay;

/** A real server on loopback for `dir`, and what it noted. */
async function serve(dir: string, options: Partial<AppOptions> = {}): Promise<{ failures: () => Promise<EvalWithRuns>; runs: () => Promise<{ runs: { source: { path: string } }[] }>; notes: string[] }> {
  const notes: string[] = [];
  const built = await testApp({ path: dir, recursive: true, onNote: (line) => notes.push(line), ...options });
  await built.app.listen({ host: "127.0.0.1", port: 0 });
  const address = built.app.server.address();
  if (address === null || typeof address === "string") throw new Error("not listening");
  const json = async <T>(route: string): Promise<T> => {
    const answer = await fetch(`http://127.0.0.1:${address.port}${route}`);
    expect(answer.status, route).toBe(200);
    return (await answer.json()) as T;
  };
  // The answer comes at once with what the run index holds: asked again until it holds every run.
  const complete = async (): Promise<EvalWithRuns> => {
    for (;;) {
      const summary = await evalWithRuns(`http://127.0.0.1:${address.port}/`);
      if (summary.index.complete) return summary;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { failures: complete, runs: () => json("/api/runs?limit=100"), notes };
}

const silent = { out: () => undefined, err: () => undefined, interactive: false };

/** `wink-debug index` writing `index.parquet` at the target's root. */
async function writeIndex(dir: string): Promise<void> {
  expect(await indexMain([dir, "-r", "-o", path.join(dir, INDEX_FILE)], silent)).toBe(0);
}

describe("/api/failures with an index.parquet at the target's root", () => {
  it("answers as without it, reads no run it covers, reads the runs newer or changed since", async () => {
    const dir = await tempDir("wink-eval-index-");
    const runs = await writeEval(dir);
    const without = await (await serve(dir)).failures();
    expect(without.outcomes).toMatchObject({ runs: 6, error: 1 });
    expect(without.groups.length).toBeGreaterThan(3);

    await writeIndex(dir);
    const withIndex = await serve(dir);
    expect(await withIndex.failures()).toEqual(without);
    expect(withIndex.notes).toEqual([`${INDEX_FILE}: 7 of 7 runs taken from it`]);
    // The file is no run: neither listed nor counted.
    expect((await withIndex.runs()).runs.map((run) => run.source.path).sort()).toEqual([...runs].sort());

    // Every covered run made unreadable (same size, same time) but one, for the server to open on: the answer still comes from the index.
    for (const run of runs.filter((name) => name !== `pay/req-05/${path.basename(FAILED_RUN)}`)) await garble(dir, run);
    const garbled = await serve(dir);
    expect(await garbled.failures()).toEqual(without);
    expect(garbled.notes).toEqual([`${INDEX_FILE}: 7 of 7 runs taken from it`]);

    // A run newer than the index is read; a covered run changed since (another size) is read again; a deleted one leaves.
    await writeSessionRun(path.join(dir, "calc", "req-03", "run-04.jsonl"), "a0000000-0000-4000-8000-000000000004", day("2026-11-27"), [command(7, "call_0007")]);
    await writeFile(path.join(dir, "calc", "req-01", "run-01.jsonl"), "{still not json\n");
    await rm(path.join(dir, "calc", "req-02", "run-03.jsonl"));
    const later = await serve(dir);
    const answer = await later.failures();
    expect(later.notes).toEqual([`${INDEX_FILE}: 5 of 7 runs taken from it, 2 read (new or changed since it was written: 1 changed); 1 of its rows name no run of the target, ignored`]);
    expect(answer.outcomes).toEqual({ runs: 6, ok: without.outcomes.ok - 1, failed: without.outcomes.failed, error: 2 });
    const byRun = new Map(answer.runs.map((run) => [run.run, run]));
    expect(byRun.get("calc/req-03/run-04.jsonl")).toMatchObject({ outcome: "failed", failures: 1 });
    expect(byRun.get("calc/req-01/run-01.jsonl")).toMatchObject({ outcome: "error" });
    expect(byRun.has("calc/req-02/run-03.jsonl")).toBe(false);
    // The garbled runs the index still covers keep their answer from it.
    const kept = without.runs.filter((run) => run.run !== "calc/req-01/run-01.jsonl" && run.run !== "calc/req-02/run-03.jsonl");
    expect(kept).toHaveLength(4);
    for (const run of kept) expect(byRun.get(run.run)).toMatchObject({ outcome: run.outcome, failures: run.failures, tool_calls: run.tool_calls, started_at: run.started_at });
  });

  it("ignores, with a note, an index that is corrupt, too big for --memory, or of another version, and a row naming no run of the target", async () => {
    const dir = await tempDir("wink-eval-index-bad-");
    const runs = await writeEval(dir);
    const without = await (await serve(dir)).failures();
    const index = path.join(dir, INDEX_FILE);

    await writeFile(index, "PAR1 not a parquet file at all PAR1");
    const corrupt = await serve(dir);
    expect(await corrupt.failures()).toEqual(without);
    expect(corrupt.notes).toHaveLength(1);
    expect(corrupt.notes[0]).toMatch(/^index\.parquet: ignored, the runs are read instead: /);

    await writeIndex(dir);
    const size = (await stat(index)).size;
    // An eighth of --memory is read at most: at 8 × size − 8 bytes, the file is one byte too big.
    const small = await serve(dir, { memoryBytes: 8 * size - 8 });
    expect(await small.failures()).toEqual(without);
    expect(small.notes[0]).toMatch(/^index\.parquet: ignored, the runs are read instead: it is (\d+) bytes, more than the (\d+) bytes read at this --memory \(an eighth of it\)$/);

    // Rows naming a path outside the target and a run it does not hold, with failures: ignored, and never opened.
    const digests: RunDigestView[] = [
      { run: "../etc/passwd", kind: "session_file", outcome: "failed", reason: null, modified_at: "2026-11-20T10:00:00.000Z", started_at: null, ended_at: null, tool_calls: 1, failed_calls: 1, errors: 0, failures: [{ kind: "call", tool: "read_file", error_type: null, argument: null, message: "planted", session_id: null, turn: null, call_id: null, created_at: null }] },
      { run: "calc/req-09/not-here.jsonl", kind: "session_file", outcome: "failed", reason: null, modified_at: "2026-11-20T10:00:00.000Z", started_at: null, ended_at: null, tool_calls: 1, failed_calls: 1, errors: 0, failures: [{ kind: "call", tool: "read_file", error_type: null, argument: null, message: "planted", session_id: null, turn: null, call_id: null, created_at: null }] },
      // A listed run, but the row says it is a bundle: not the file the listing found.
      { run: "calc/req-01/run-02.jsonl", kind: "bundle", outcome: "ok", reason: null, modified_at: "2026-11-21T10:01:00.000Z", started_at: null, ended_at: null, tool_calls: 0, failed_calls: 0, errors: 0, failures: [] },
    ];
    await writeRunIndex(index, runIndexRows("eval", digests), { createdBy: "test", root: "eval" });
    const hostile = await serve(dir);
    expect(await hostile.failures()).toEqual(without);
    expect(hostile.notes).toEqual([`${INDEX_FILE}: 0 of ${runs.length} runs taken from it, ${runs.length} read (new or changed since it was written); 3 of its rows name no run of the target, ignored`]);
    expect(JSON.stringify(await hostile.failures())).not.toContain("planted");

    // A file of another version of the index (written before the columns the viewer needs): refused, and said so.
    const rows = runIndexRows("eval", digests);
    parquetWriteFile({ filename: index, schema: runIndexSchema(), columnData: runIndexColumns(rows), kvMetadata: [{ key: "wink-debug.format", value: RUN_INDEX_FORMAT }, { key: "wink-debug.version", value: "1" }] });
    const older = await serve(dir);
    expect(await older.failures()).toEqual(without);
    expect(older.notes).toEqual([`${INDEX_FILE}: ignored, the runs are read instead: it is version "1" of the run index; this viewer reads version 2 (write it again with this wink-debug index)`]);

  });

  it("takes the digests from the index.parquet object at the root of an HTTP folder (nginx) too, written by wink-debug index over HTTP", async () => {
    const dir = await tempDir("wink-eval-index-http-");
    const runs = await writeEval(dir);
    const nginx = await startNginx(dir);
    try {
      const without = await (await serve(nginx.url)).failures();
      expect(without.outcomes.runs).toBe(6);
      // Four of the runs' files have milliseconds (the session files whole minutes), nginx lists
      // whole seconds: an index written from the folder itself misses those four there; one
      // written from the store's listing matches all.
      await writeIndex(dir);
      const fromFolder = await serve(nginx.url);
      expect(await fromFolder.failures()).toEqual(without);
      expect(fromFolder.notes).toEqual([`${INDEX_FILE}: 3 of 7 runs taken from it, 4 read (new or changed since it was written: 4 changed)`]);
      expect(await indexMain([nginx.url, "-r", "-o", path.join(dir, INDEX_FILE)], silent)).toBe(0);
      for (const run of runs.filter((name) => name !== `pay/req-05/${path.basename(FAILED_RUN)}`)) await garble(dir, run);
      const remote = await serve(nginx.url);
      expect(await remote.failures()).toEqual(without);
      expect(remote.notes).toEqual([`${INDEX_FILE}: 7 of 7 runs taken from it`]);
    } finally {
      await nginx.stop();
    }
  });
});
