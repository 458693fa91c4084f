/**
 * Parse throughput of a 25 MB WINK session file, against native JSON.parse and Python's
 * json.loads on the same bytes, measured in the same run.
 *
 * Inputs (written to a temp directory): the lines of the real session-tree fixture
 * (db5c4ea2…, ~230 KB lines holding a VirtualFileSystem slice) repeated to 25 MB —
 *  - "fast": as WINK wrote them (nothing Python-specific: pre-scan + native JSON.parse);
 *  - "slow": the same lines with a bare NaN and a 20-digit integer in every line, which
 *    sends each line to the hand-written lossless parser;
 *  - "one-line": a single 25 MB line (one VirtualFileSystem slice), fast path.
 * Reported per input: median of 7 runs (after one warm-up run) of
 *  - parsePythonJson over every line (text already in memory), and JSON.parse (peer, fast
 *    inputs only: it refuses NaN);
 *  - parseSessionText (split + fatal UTF-8 decode + parse + envelope) on the bytes;
 *  - readSessionFile (streaming from disk) and scanSessionFile (index only, no item parse);
 *  - python3 json.loads per line (peer; timed inside python, file already in memory).
 *
 * Run: node --expose-gc --import tsx bench/session-parse.bench.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parsePythonJson } from "../shared/session/python-json-parse.js";
import { readSessionFile, scanSessionFile } from "../shared/session/session-file.node.js";
import { parseSessionText } from "../shared/session/session-text.js";
import { winkFixture } from "../fixtures/paths.js";

const TARGET_BYTES = 25 * 1024 * 1024;
const RUNS = 7;
const FIXTURE = winkFixture("db5c4ea2-559a-52c5-8313-741e72978682.jsonl");

const collectGarbage = (globalThis as { gc?: () => void }).gc;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeMs(run: () => unknown): Promise<number> {
  await run(); // warm-up: compile the code paths before timing
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    collectGarbage?.(); // each sample starts from the same heap (results are retained)
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function pythonLoadsMs(path: string): number {
  const script = [
    "import json, sys, time, statistics",
    "lines = [l for l in open(sys.argv[1], encoding='utf-8').read().split('\\n') if l.strip()]",
    "samples = []",
    `for _ in range(${RUNS}):`,
    "    t = time.perf_counter()",
    "    for l in lines: json.loads(l)",
    "    samples.append((time.perf_counter() - t) * 1000)",
    "print(statistics.median(samples))",
  ].join("\n");
  return Number(execFileSync("python3", ["-c", script, path], { encoding: "utf8" }).trim());
}

function buildInputs(fixtureLines: string[]): Record<string, string> {
  const fast: string[] = [];
  let size = 0;
  for (let i = 0; size < TARGET_BYTES; i++) {
    const line = fixtureLines[i % fixtureLines.length] ?? "";
    fast.push(line);
    size += line.length + 1;
  }
  // Same lines with Python-only tokens added to the envelope: every line takes the slow path.
  const slow = fast.map((line) => `${line.slice(0, -1)}, "bench": {"nan": NaN, "id": 18446744073709551617}}`);
  // One line: a single VirtualFileSystem item holding ~25 MB of files.
  const first = JSON.parse(fixtureLines[0] ?? "{}") as { slices: { slice_type: string; items: { files: unknown[] }[] }[] };
  const vfs = first.slices.find((slice) => slice.slice_type.endsWith(":VirtualFileSystem"));
  const files = vfs?.items[0]?.files ?? [];
  const copies = Math.ceil(TARGET_BYTES / JSON.stringify(files).length);
  if (vfs?.items[0]) vfs.items[0].files = Array.from({ length: copies }, () => files).flat();
  return { fast: `${fast.join("\n")}\n`, slow: `${slow.join("\n")}\n`, "one-line": `${JSON.stringify(first)}\n` };
}

const dir = await mkdtemp(join(tmpdir(), "wink-bench-session-"));
try {
  const fixtureLines = (await readFile(FIXTURE, "utf8")).trimEnd().split("\n");
  const inputs = buildInputs(fixtureLines);
  const mb = (bytes: number, ms: number): string => `${((bytes / 1e6) / (ms / 1000)).toFixed(0)} MB/s`;
  console.log(`session parse benchmark (median of ${RUNS}; Node ${process.version}${collectGarbage === undefined ? "; run with --expose-gc for steadier figures" : ""})`);
  for (const [name, text] of Object.entries(inputs)) {
    const path = join(dir, `${name}.jsonl`);
    await writeFile(path, text);
    const bytes = Buffer.byteLength(text);
    const lines = text.split("\n").filter((line) => line !== "");
    const data = new Uint8Array(await readFile(path));

    // Results are kept (as a reader keeps them), so both sides pay the same GC cost.
    const ours = await timeMs(() => lines.map((line) => parsePythonJson(line)));
    const native = name === "slow" ? Number.NaN : await timeMs(() => lines.map((line) => JSON.parse(line) as unknown));
    const sessionText = await timeMs(() => parseSessionText(data));
    const streamed = await timeMs(() => readSessionFile(path));
    const scanned = await timeMs(() => scanSessionFile(path));
    const python = pythonLoadsMs(path);
    const check = parseSessionText(data);
    if (check.errors.length > 0 || check.snapshots.length !== lines.length) throw new Error(`${name}: the input did not load cleanly`);

    console.log(`\n${name}: ${(bytes / 1e6).toFixed(1)} MB, ${lines.length} lines`);
    console.log(`  parsePythonJson      ${ours.toFixed(0).padStart(5)} ms  ${mb(bytes, ours).padStart(9)}`);
    if (!Number.isNaN(native)) console.log(`  JSON.parse (peer)    ${native.toFixed(0).padStart(5)} ms  ${mb(bytes, native).padStart(9)}   ratio ours/peer ${(ours / native).toFixed(2)}`);
    console.log(`  python json.loads    ${python.toFixed(0).padStart(5)} ms  ${mb(bytes, python).padStart(9)}   ratio ours/python ${(ours / python).toFixed(2)}`);
    console.log(`  parseSessionText     ${sessionText.toFixed(0).padStart(5)} ms  ${mb(bytes, sessionText).padStart(9)}   (split + decode + parse + envelope)`);
    console.log(`  readSessionFile      ${streamed.toFixed(0).padStart(5)} ms  ${mb(bytes, streamed).padStart(9)}   (streaming from disk)`);
    console.log(`  scanSessionFile      ${scanned.toFixed(0).padStart(5)} ms  ${mb(bytes, scanned).padStart(9)}   (index: envelopes + counts, ratio scan/read ${(scanned / streamed).toFixed(2)})`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
