/**
 * File route throughput: autocannon against `/api/filesystem/file?path=…` of the compiled
 * CLI on loopback (50 connections, 10 s), cycling through every file of a 10,000-file /
 * 100 MB archive (so most requests miss the 32 MiB content cache and inflate their entry),
 * next to `unzip -p` extracting one file per process, the command-line way to get a file,
 * and next to the ceiling of Node's own HTTP stack for such answers: a bare `node:http`
 * server that answers each request with a freshly serialised JSON object of the same size
 * (no routing, no archive, no checks). The server CPU per request (from /proc) is printed
 * too: it is what the machine's load does not change much.
 * Targets: ≥ 10,000 requests/s, p99 < 20 ms, no errors.
 *
 * Run: node --import tsx bench/server-throughput.bench.ts   (after npm run build)
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
// autocannon ships no type declarations.
// @ts-expect-error -- untyped CommonJS module
import autocannonUntyped from "autocannon";
import { WORK, archivePath, ensureArchive, fileText, median, sessionLine } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI = path.join(ROOT, "dist", "server", "cli.cjs");
const FILES = 10_000;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
const autocannon = autocannonUntyped as (options: Record<string, unknown>) => Promise<AutocannonResult>;

/** The peer: node:http answering every request with a fresh JSON text of a 10 kB file (as the file route's body). */
const BARE_SERVER = `
import http from "node:http";
import { readFileSync } from "node:fs";
const texts = JSON.parse(readFileSync(process.argv[1], "utf8"));
let next = 0;
const server = http.createServer((request, response) => {
  const content = texts[next++ % texts.length];
  response.setHeader("content-type", "application/json; charset=utf-8");
  response.end(JSON.stringify({ path: request.url, size_bytes: content.length, type: "text", mime_type: "text/plain", content, encoding: "utf-8", offset: 0, limit: null, total_lines: 200, truncated: false }));
});
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port + "/"));
`;

/** CPU time (user + system) a process has used so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function listeningPort(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /127\.0\.0\.1:(\d+)\//.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** autocannon with 50 connections for 10 s over `paths`, and the server's CPU per request. */
async function load(base: string, pid: number, paths: string[]): Promise<AutocannonResult & { cpuPerRequestUs: number }> {
  let next = 0;
  const before = cpuMs(pid);
  const result = await autocannon({
    url: base,
    connections: 50,
    duration: 10,
    requests: [{ method: "GET", setupRequest: (request: Record<string, unknown>) => ({ ...request, path: paths[next++ % paths.length] ?? "/" }) }],
  });
  return { ...result, cpuPerRequestUs: ((cpuMs(pid) - before) * 1000) / Math.max(1, result.requests.total) };
}

function line(result: AutocannonResult & { cpuPerRequestUs: number }): string {
  const errors = result.errors + result.timeouts + result.non2xx;
  return `${Math.round(result.requests.average)} requests/s (${result.requests.total} total), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}; server CPU ${result.cpuPerRequestUs.toFixed(0)} µs/request`;
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("dist/server/cli.cjs is missing: run npm run build first");
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
  const port = await listeningPort(child);
  const results: Record<string, AutocannonResult & { cpuPerRequestUs: number }> = {};
  try {
    const base = `http://127.0.0.1:${port}`;
    await fetch(`${base}/api/filesystem/tree`); // open the archive once, as a viewer does when it shows the tree
    console.log(`unzip -p, one file per process: ${unzipMs.toFixed(1)} ms each = ${Math.round(1000 / unzipMs)} files/s`);
    // Every file once in turn (each request inflates its entry), then a viewer's working set.
    for (const distinct of [FILES, 200]) {
      const paths = Array.from({ length: distinct }, (_, i) => `/api/filesystem/file?path=${encodeURIComponent(archivePath((i * 7919) % FILES, FILES))}`);
      const result = (results[distinct] = await load(base, child.pid ?? 0, paths));
      console.log(`file route, 50 connections, 10 s, cycling over ${distinct} distinct 10 kB files:`);
      console.log(`  ${line(result)}; ${(result.requests.average / (1000 / unzipMs)).toFixed(0)}× unzip -p`);
    }
  } finally {
    child.kill("SIGTERM");
  }

  const textsFile = path.join(WORK, "bare-server-texts.json");
  await writeFile(textsFile, JSON.stringify(Array.from({ length: 200 }, (_, i) => fileText(i, 10_000))));
  const bare = spawn(process.execPath, ["--input-type=module", "-e", BARE_SERVER, textsFile], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const barePort = await listeningPort(bare);
    const result = await load(`http://127.0.0.1:${barePort}`, bare.pid ?? 0, ["/a", "/b"]);
    const fileRoute = results[FILES] as AutocannonResult;
    console.log("bare node:http, a fresh 10 kB JSON answer per request, same load:");
    console.log(`  ${line(result)}; the file route over every file reaches ${((fileRoute.requests.average / result.requests.average) * 100).toFixed(0)}% of it`);
  } finally {
    bare.kill("SIGTERM");
  }
  console.log("  (targets: ≥ 10,000 requests/s, p99 < 20 ms, 0 errors)");
}

await main();
