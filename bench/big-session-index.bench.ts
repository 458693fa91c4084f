/**
 * Issue 29, item 5: a 1 GiB session file of ~1.5 million lines beside a small one. The built
 * CLI serves the folder (default `--memory`, 96 MiB) and indexes it in the background; while
 * it does, and while the big file is then opened (`/api/meta`, `/api/files?file=`,
 * `/api/timeline`, `/api/entries` of it, then `/api/run` of it), `/api/meta` of the small file is asked for every 20 ms. Reported:
 * peak RSS (VmHWM from /proc) at the end of the background indexing and after the opening,
 * RSS after each, and the small file's `/api/meta` latency (p50 / max) meanwhile. Peers: the
 * time `wc -l` and a read of the whole file through node's fs take on the same file.
 *
 * The files are generated under /tmp (BIG_INDEX_DIR) and deleted at the end (KEEP=1 keeps
 * them). WINK_CLI names the CLI to run (default: this tree's dist/server/cli.cjs). SKIP_OPENING=1
 * leaves out the opening (step 2), so the peak RSS after `/api/run` is the run's own, not the
 * high-water mark `/api/files` and `/api/entries` left; SKIP_RUN=1 leaves out `/api/run` (step 3).
 * Each opening request is reported with the peak RSS after it and the slowest `/api/meta` of the
 * small file while it ran.
 *
 * Run: node --import tsx bench/big-session-index.bench.ts   (after npm run build)
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { listeningPort } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI = process.env.WINK_CLI ?? path.join(ROOT, "dist", "server", "cli.cjs");
const DIR = process.env.BIG_INDEX_DIR ?? "/tmp/wink-bench-big-session-index";
const LINES = Number(process.env.LINES ?? 1_500_000);
const MIB = 1024 * 1024;
const SKIP_OPENING = process.env.SKIP_OPENING === "1";
/** SKIP_RUN=1 leaves out step 3 (`/api/run`), for a measure of the opening alone. */
const SKIP_RUN = process.env.SKIP_RUN === "1";

/** ~716 bytes a line (1 GiB over 1.5 M lines, the issue's file): 1,000 sessions, one 500-character note each. */
function line(i: number): string {
  const time = `2026-11-22T${String(Math.floor(i / 3600) % 24).padStart(2, "0")}:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.${String(i % 1_000_000).padStart(6, "0")}+00:00`;
  return `{"children_ids": [], "created_at": "${time}", "parent_id": null, "slices": [{"item_type": "app:Note", "items": [{"__type__": "app:Note", "n": ${i}, "text": "${"x".repeat(500)}"}], "slice_type": "app:Note"}], "tags": {"run": "bench-${i % 7}", "session_id": "s-${i % 1000}"}, "version": "1"}\n`;
}

async function generate(file: string): Promise<void> {
  if (existsSync(file)) return;
  const out = createWriteStream(file);
  let batch = "";
  for (let i = 0; i < LINES; i++) {
    batch += line(i);
    if (batch.length >= MIB) {
      if (!out.write(batch)) await once(out, "drain");
      batch = "";
    }
  }
  out.end(batch);
  await once(out, "finish");
}

async function rss(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return response.json();
}

/** Asks for `url` every 20 ms until stopped; the latencies (ms). */
function probe(url: string): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let stopped = false;
  let resets = 0;
  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      // A kept-alive socket the server closed while its loop was held resets: asked again (the wait counts).
      const response = await fetch(url).catch(async (error: unknown) => {
        resets++;
        if (resets > 20) throw error;
        return fetch(url);
      });
      await response.text();
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      latencies.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return latencies;
    },
  };
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `${sorted.length} answers, p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms`;
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  await mkdir(DIR, { recursive: true });
  const big = path.join(DIR, "big.jsonl");
  console.log(`generating ${LINES} lines into ${big} (first run only)…`);
  await generate(big);
  // The big file is the older one: the server opens the small one first, and indexes the big one in the background.
  await utimes(big, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  // Written a little later: in the same clock tick both had one ctime, and the tie (broken by
  // path) made big.jsonl the newest file, indexed before the server listened (90-150 s).
  await new Promise((resolve) => setTimeout(resolve, 50));
  await writeFile(path.join(DIR, "small.jsonl"), line(0));
  const bytes = (await stat(big)).size;

  const wc = await timed(async () => spawnSync("wc", ["-l", big], { encoding: "utf8" }).stdout.trim());
  const fsRead = await timed(async () => {
    let read = 0;
    for await (const chunk of createReadStream(big, { highWaterMark: MIB })) read += (chunk as Buffer).length;
    return read;
  });
  console.log(`file: ${(bytes / MIB).toFixed(0)} MiB, ${LINES} lines; load ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  console.log(`peers: wc -l ${wc.ms.toFixed(0)} ms (${(bytes / MIB / (wc.ms / 1000)).toFixed(0)} MiB/s); node fs read ${fsRead.ms.toFixed(0)} ms (${(bytes / MIB / (fsRead.ms / 1000)).toFixed(0)} MiB/s)`);

  const child = spawn(process.execPath, [CLI, DIR, "--port", "0", "--no-open"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const pid = child.pid ?? 0;
  try {
    const started = performance.now();
    const port = await listeningPort(child);
    const base = `http://127.0.0.1:${port}`;
    const small = `${base}/api/meta?file=small.jsonl`;
    await getJson(small);

    // 1. Background indexing of the big file (the small one is open).
    let quick = probe(small);
    for (;;) {
      const runs = (await getJson(`${base}/api/runs?limit=1`)) as { indexing: boolean };
      if (!runs.indexing) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const indexedMs = performance.now() - started;
    const afterIndexing = await rss(pid);
    const duringIndexing = await quick.stop();

    // 2. The big file opened, as the viewer opens a run.
    quick = probe(small);
    const answers: string[] = [];
    const opened = await timed(async () => {
      // `/api/run` is step 3, on its own: building the run is its own stall.
      for (const route of SKIP_OPENING ? [] : ["/api/meta?", "/api/files?sessions_limit=50&", "/api/timeline?", "/api/entries?", "/api/entries?offset=750000&limit=1000&"]) {
        const own = probe(small);
        const answer = await timed(async () => {
          const response = await fetch(`${base}${route}file=big.jsonl`);
          if (response.status !== 200) return `${response.status} ${(await response.text()).slice(0, 120)}`;
          // Counted as it comes, not decoded whole: a 290 MiB text() held this process (and the
          // probe's clock) ~2 s at its end, which read as a stall of the server.
          let bytes = 0;
          for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).byteLength;
          return `200 (${(bytes / MIB).toFixed(1)} MiB)`;
        });
        // The high-water mark after each request: which of them holds the memory.
        const after = await rss(pid);
        const meanwhile = await own.stop();
        answers.push(`${route.split("?")[0]} ${answer.value} in ${(answer.ms / 1000).toFixed(1)} s (peak RSS ${(after.peak / MIB).toFixed(0)} MiB; small /api/meta max ${Math.max(0, ...meanwhile).toFixed(0)} ms)`);
      }
    });
    const afterOpening = await rss(pid);
    const duringOpening = await quick.stop();

    // 3. Its run (`/api/run`, the overview): built over every line, then bounded (run-bounds.ts).
    quick = probe(small);
    const run = await timed(async () => {
      if (SKIP_RUN) return "skipped (SKIP_RUN=1)";
      const response = await fetch(`${base}/api/run?file=big.jsonl`);
      const body = await response.text();
      return `${response.status}${response.status === 200 ? ` (${(body.length / MIB).toFixed(1)} MiB)` : ` ${body.slice(0, 120)}`}`;
    });
    const duringRun = await quick.stop();
    const afterRun = await rss(pid);

    const mb = (value: number): string => `${(value / MIB).toFixed(0)} MiB`;
    console.log(`background indexing: ${(indexedMs / 1000).toFixed(1)} s from start (${(bytes / MIB / (indexedMs / 1000)).toFixed(0)} MiB/s, ${(indexedMs / wc.ms).toFixed(1)}× wc -l); peak RSS ${mb(afterIndexing.peak)}, RSS after ${mb(afterIndexing.rss)}`);
    console.log(`  /api/meta of the small file meanwhile: ${summary(duringIndexing)}`);
    console.log(`big file opened (meta, files, timeline, entries): ${(opened.ms / 1000).toFixed(1)} s; peak RSS ${mb(afterOpening.peak)}, RSS after ${mb(afterOpening.rss)}`);
    console.log(`  /api/meta of the small file meanwhile: ${summary(duringOpening)}`);
    console.log(`  answers: ${answers.join("; ")}`);
    console.log(`/api/run of the big file: ${run.value} in ${(run.ms / 1000).toFixed(1)} s; peak RSS ${mb(afterRun.peak)}, RSS after ${mb(afterRun.rss)}`);
    console.log(`  /api/meta of the small file meanwhile: ${summary(duringRun)}`);
    console.log(`load at the end: ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  } finally {
    child.kill("SIGTERM");
    if (process.env.KEEP !== "1") await rm(DIR, { recursive: true, force: true });
  }
}

await main();
