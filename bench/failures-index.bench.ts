/**
 * The eval's first answer with and without an `index.parquet` at the target's root (issue 30
 * item 6): the built CLI serves a generated eval (bench/generated-eval.ts, RUNS runs, default
 * 1,500) with `-r`, and the time is from spawning it to the end of its first complete
 * `/api/failures` answer (and that request alone, from the URL being printed). With the file,
 * the runs it covers are not read; both answers must be the same.
 *
 * Reported: `wink-debug index` writing the file (wall time, its size), then the median of
 * ROUNDS (default 3) starts each way, alternated, after one warm-up each (page cache warm).
 * Then the reader alone on a bigger file: READ_RUNS (default 50,000) generated digests of 3
 * failures each, every message, path, id and time its own (so the file compresses as an
 * eval's would), written by the index's writer and read back by `readRunIndex`.
 *
 * Run: npm run bench -- failures-index   (or: RUNS=1500 node --import tsx bench/failures-index.bench.ts after npm run build)
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import http from "node:http";
import { loadavg } from "node:os";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { writeRunIndex } from "../server/library/parquet-index.js";
import { readRunIndex } from "../server/library/parquet-index-read.js";
import { packageRoot } from "../server/package-root.js";
import { runIndexRows } from "../shared/viewer/index.js";
import type { RunDigestView } from "../shared/viewer/index.js";
import { generateEval, median } from "./generated-eval.js";

const RUNS = Number(process.env.RUNS ?? 1500);
const READ_RUNS = Number(process.env.READ_RUNS ?? 50_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ROOT = packageRoot();
const WORK = path.join(ROOT, "bench", ".work", `failures-index-${RUNS}`);
const INDEX = path.join(WORK, "index.parquet");
const AWAY = path.join(WORK, "..", `failures-index-${RUNS}.parquet`);
const CLI = path.join(ROOT, "dist", "server", "cli.cjs");

function getBody(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => (response.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`${url}: ${response.statusCode}`))));
      })
      .on("error", reject);
  });
}

/** Spawn → the end of the first /api/failures answer, and that request alone; with the CLI's stderr. */
function firstFailures(): Promise<{ ms: number; requestMs: number; body: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, WORK, "-r", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let stderr = "";
    let asked = false;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (match === null || asked) return;
      asked = true;
      const asking = performance.now();
      getBody(`http://127.0.0.1:${match[1]}/api/failures`).then(
        (body) => {
          const ended = performance.now();
          child.kill("SIGTERM");
          resolve({ ms: ended - started, requestMs: ended - asking, body, stderr });
        },
        (error: unknown) => {
          child.kill("SIGKILL");
          reject(error);
        },
      );
    });
    child.on("exit", (code) => {
      if (!asked) reject(new Error(`CLI exited with ${code}: ${output}${stderr}`));
    });
  });
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("dist/server/cli.cjs is missing: npm run build first");
  await generateEval(WORK, RUNS);
  await rm(INDEX, { force: true });
  await rm(AWAY, { force: true });
  const size = Number(execFileSync("du", ["-sb", WORK], { encoding: "utf8" }).split(/\s+/)[0]);
  console.log(`failures-index: ${RUNS} runs, ${(size / 1024 / 1024).toFixed(1)} MB, ${ROUNDS} rounds after a warm-up (load ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  const writing = performance.now();
  execFileSync(process.execPath, [CLI, "index", WORK, "-r", "-o", INDEX], { stdio: ["ignore", "ignore", "ignore"] });
  console.log(`  wink-debug index -r -o index.parquet  ${((performance.now() - writing) / 1000).toFixed(1)} s, ${(statSync(INDEX).size / 1024).toFixed(0)} KiB`);

  const without: Awaited<ReturnType<typeof firstFailures>>[] = [];
  const withIndex: Awaited<ReturnType<typeof firstFailures>>[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    await rename(INDEX, AWAY);
    const a = await firstFailures();
    await rename(AWAY, INDEX);
    const b = await firstFailures();
    // Round 0 warms the page cache and is not counted.
    if (round === 0) continue;
    without.push(a);
    withIndex.push(b);
  }
  const [a, b] = [without[0], withIndex[0]];
  if (a === undefined || b === undefined) throw new Error("no rounds");
  if (a.body !== b.body) throw new Error("the answers with and without index.parquet differ");
  const summary = JSON.parse(a.body) as { outcomes: { runs: number; failed: number; error: number }; groups: unknown[] };
  const ms = (values: number[]) => `${median(values).toFixed(0)} ms (min ${Math.min(...values).toFixed(0)})`;
  console.log(`  without index.parquet: start → first /api/failures ${ms(without.map((r) => r.ms))}; the request alone ${ms(without.map((r) => r.requestMs))}`);
  console.log(`  with index.parquet:    start → first /api/failures ${ms(withIndex.map((r) => r.ms))}; the request alone ${ms(withIndex.map((r) => r.requestMs))}`);
  console.log(`  same answer: ${summary.outcomes.runs} runs, ${summary.outcomes.failed} failed, ${summary.outcomes.error} did not load, ${summary.groups.length} groups`);
  console.log(`  ratio (without / with, start → answer) ${(median(without.map((r) => r.ms)) / median(withIndex.map((r) => r.ms))).toFixed(1)}×`);
  console.log(`  note: ${b.stderr.split("\n").find((line) => line.startsWith("index.parquet")) ?? "(none)"}`);
}

/** Digests of `count` runs whose every message, path, id and time differ. */
function variedDigests(count: number): RunDigestView[] {
  return Array.from({ length: count }, (_, i) => ({
    run: `target/req-${i}/run.jsonl`,
    kind: "session_file" as const,
    outcome: "failed" as const,
    reason: null,
    modified_at: new Date(1.7e12 + i * 1000).toISOString(),
    started_at: "2026-11-20T10:00:00.123456+00:00",
    ended_at: "2026-11-20T10:01:00.123456+00:00",
    tool_calls: 20,
    failed_calls: 3,
    errors: 0,
    failures: [0, 1, 2].map((k) => ({
      kind: "call" as const,
      tool: "read_file",
      error_type: null,
      argument: { name: "path", value: `src/m${i}/f${k}.py` },
      message: `No such file: src/m${i}/f${k}.py (${i * 7 + k})`,
      session_id: `s-${i}`,
      turn: k,
      call_id: `call_${(i * 31 + k).toString(16)}abcdef`,
      created_at: `2026-11-20T10:00:0${k}.${String(i % 1_000_000).padStart(6, "0")}+00:00`,
    })),
  }));
}

async function readerAlone(): Promise<void> {
  const file = path.join(WORK, "..", `failures-index-read-${READ_RUNS}.parquet`);
  const digests = variedDigests(READ_RUNS);
  await writeRunIndex(file, runIndexRows("target", digests, new Map(digests.map((digest) => [digest.run, 1234]))), { createdBy: "bench", root: "target" });
  const bytes = await readFile(file);
  const times: number[] = [];
  let heap = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    const read = await readRunIndex(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    if (read.length !== READ_RUNS) throw new Error(`read ${read.length} runs`);
    if (round > 0) times.push(performance.now() - started);
    heap = Math.max(heap, process.memoryUsage().heapUsed - before);
  }
  const ms = `${median(times).toFixed(0)} ms (min ${Math.min(...times).toFixed(0)})`;
  console.log(`  readRunIndex alone: ${READ_RUNS} runs, ${READ_RUNS * 4} rows, ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MiB: ${ms}, heap grown by ${(heap / 1024 / 1024).toFixed(0)} MiB at most (load ${loadavg()[0]?.toFixed(1)})`);
  await rm(file, { force: true });
}

await main();
await readerAlone();
