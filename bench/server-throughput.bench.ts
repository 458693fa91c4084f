/**
 * File route throughput: autocannon against `/api/filesystem/file?path=…` of the compiled
 * CLI on loopback (50 connections, 10 s), cycling through every file of a 10,000-file /
 * 100 MB archive (so most requests miss the 32 MiB content cache and inflate their entry),
 * next to `unzip -p` extracting one file per process, the command-line way to get a file.
 * Targets: ≥ 10,000 requests/s, p99 < 20 ms, no errors.
 *
 * Run: node --import tsx bench/server-throughput.bench.ts   (after npm run build)
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
// autocannon ships no type declarations.
// @ts-expect-error -- untyped CommonJS module
import autocannonUntyped from "autocannon";
import { WORK, archivePath, ensureArchive, median, sessionLine } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI = path.join(ROOT, "dist", "server", "cli.js");
const FILES = 10_000;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
const autocannon = autocannonUntyped as (options: Record<string, unknown>) => Promise<AutocannonResult>;

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("dist/server/cli.js is missing: run npm run build first");
  const dir = path.join(WORK, "tree");
  const archive = await ensureArchive(path.join(dir, "run.fs.zip"), FILES, 10_000);
  if (!existsSync(path.join(dir, "run.jsonl"))) await writeFile(path.join(dir, "run.jsonl"), `${sessionLine("run", [])}\n`);

  const unzipRuns = Array.from({ length: 20 }, (_, i) => {
    const started = performance.now();
    execFileSync("unzip", ["-p", archive, `files/${archivePath(i * 487, FILES)}`], { stdio: ["ignore", "ignore", "ignore"] });
    return performance.now() - started;
  });
  const unzipMs = median(unzipRuns);

  const child = spawn(process.execPath, [CLI, dir, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /127\.0\.0\.1:(\d+)\//.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`CLI exited with ${code}: ${output}`)));
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await fetch(`${base}/api/filesystem/tree`); // open the archive once, as a viewer does when it shows the tree
    console.log(`unzip -p, one file per process: ${unzipMs.toFixed(1)} ms each = ${Math.round(1000 / unzipMs)} files/s`);
    // Every file once in turn (each request inflates its entry), then a viewer's working set.
    for (const distinct of [FILES, 200]) {
      let next = 0;
      const paths = Array.from({ length: distinct }, (_, i) => `/api/filesystem/file?path=${encodeURIComponent(archivePath((i * 7919) % FILES, FILES))}`);
      const result = await autocannon({
        url: base,
        connections: 50,
        duration: 10,
        requests: [{ method: "GET", setupRequest: (request: Record<string, unknown>) => ({ ...request, path: paths[next++ % paths.length] ?? "/" }) }],
      });
      const errors = result.errors + result.timeouts + result.non2xx;
      console.log(`file route, 50 connections, 10 s, cycling over ${distinct} distinct 10 kB files:`);
      console.log(`  ${Math.round(result.requests.average)} requests/s (${result.requests.total} total), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}; ${(result.requests.average / (1000 / unzipMs)).toFixed(0)}× unzip -p`);
    }
    console.log("  (targets: ≥ 10,000 requests/s, p99 < 20 ms, 0 errors)");
  } finally {
    child.kill("SIGTERM");
  }
}

await main();
