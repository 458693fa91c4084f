/**
 * The viewer server's latency figures, each next to its peer measured in the same run:
 *
 * 1. First `/api/filesystem/tree` of a 10,000-file / 100 MB archive that the running server
 *    has not opened yet, against `zipinfo -1` on the same archive (target: within 3×).
 * 2. Process start → that first tree response, through the compiled CLI (target < 300 ms).
 * 3. `/api/diff` between two 10,000-file archives that differ in 50 files, cold (neither
 *    archive opened) and warm, against `diff <(zipinfo -v a) <(zipinfo -v b)`-style work
 *    done by two `zipinfo` runs (target ≤ 50 ms).
 * 4. Process start → `/api/meta` of a 25 MB session file (target < 1 s).
 *
 * Wall times are printed with the CPU time behind them (this process's for the in-process
 * figures, the child's from /proc for the others): on a shared machine the CPU time is what
 * other processes' load changes least.
 *
 * Run: node --import tsx bench/server.bench.ts   (builds dist/ first when it is missing)
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { buildApp } from "../server/app.js";
import { WORK, ensureArchive, ensureBigSession, median, sessionLine } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI = path.join(ROOT, "dist", "server", "cli.cjs");
const REPEATS = 7;

function ensureBuilt(): void {
  if (existsSync(CLI)) return;
  console.log("building dist/ (tsc -p tsconfig.build.json)…");
  try {
    execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
  } catch {
    // tsc emits even when some other module has type errors; the CLI is what we need
  }
}

function getJson(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      })
      .on("error", reject);
  });
}

/** CPU time (user + system, ms) of process `pid` (`self`), and of its waited-for children. */
function cpuTimes(pid: number | "self"): { own: number; children: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const tick = 10; // USER_HZ is 100 on Linux
  return { own: (Number(fields[11]) + Number(fields[12])) * tick, children: (Number(fields[13]) + Number(fields[14])) * tick };
}

/** Wall ms of running a command (and its CPU ms, in `cpu`). */
function timeCommand(command: string, args: string[], cpu: number[] = []): number {
  const before = cpuTimes("self").children;
  const started = performance.now();
  execFileSync(command, args, { stdio: ["ignore", "ignore", "ignore"], maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - started;
  cpu.push(cpuTimes("self").children - before);
  return ms;
}

async function inProcess<T>(dir: string, run: (base: string) => Promise<T>): Promise<T> {
  const { app } = await buildApp({ path: dir, watch: false, indexInBackground: false, logger: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  try {
    return await run(`http://127.0.0.1:${port}`);
  } finally {
    await app.close();
  }
}

/** Spawns the compiled CLI and returns ms from spawn to the end of the first `route` response, and the CLI's CPU ms until then. */
function startToFirstResponse(dir: string, route: string): Promise<{ ms: number; cpuMs: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, dir, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let asked = false;
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (match === null || asked) return;
      asked = true;
      getJson(`http://127.0.0.1:${match[1]}${route}`).then(
        (response) => {
          const ms = performance.now() - started;
          const cpuMs = cpuTimes(child.pid ?? 0).own;
          child.kill("SIGTERM");
          resolve({ ms, cpuMs, status: response.status });
        },
        (error: unknown) => {
          child.kill("SIGKILL");
          reject(error);
        },
      );
    });
    child.on("exit", (code) => {
      if (!asked) reject(new Error(`CLI exited with ${code}: ${output}`));
    });
  });
}

const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  ensureBuilt();
  console.log("preparing inputs in bench/.work/server (first run only)…");
  const treeDir = path.join(WORK, "tree");
  const archive = await ensureArchive(path.join(treeDir, "run.fs.zip"), 10_000, 10_000);
  if (!existsSync(path.join(treeDir, "run.jsonl"))) await writeFile(path.join(treeDir, "run.jsonl"), `${sessionLine("run", [])}\n`);
  const diffDir = path.join(WORK, "diff");
  const changed = new Set(Array.from({ length: 50 }, (_, i) => i * 199));
  await ensureArchive(path.join(diffDir, "base.fs.zip"), 10_000, 10_000);
  await ensureArchive(path.join(diffDir, "target.fs.zip"), 10_000, 10_000, changed);
  for (const name of ["base", "target"]) {
    if (!existsSync(path.join(diffDir, `${name}.jsonl`))) await writeFile(path.join(diffDir, `${name}.jsonl`), `${sessionLine(name, [])}\n`);
  }
  const bigDir = path.join(WORK, "big-session");
  await mkdir(bigDir, { recursive: true });
  const bigSession = await ensureBigSession(path.join(bigDir, "big.jsonl"), 25);

  // 1. First tree of a not-yet-opened archive vs zipinfo -1.
  const zipinfoCpu: number[] = [];
  const zipinfo = median(Array.from({ length: REPEATS }, () => timeCommand("zipinfo", ["-1", archive], zipinfoCpu)));
  const firstTree: number[] = [];
  const firstTreeCpu: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    firstTree.push(
      await inProcess(treeDir, async (base) => {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const response = await getJson(`${base}/api/filesystem/tree`);
        const ms = performance.now() - started;
        const used = process.cpuUsage(cpu);
        firstTreeCpu.push((used.user + used.system) / 1000);
        if (response.status !== 200 || (JSON.parse(response.body) as unknown[]).length !== 10_000) throw new Error(`bad tree response ${response.status}`);
        return ms;
      }),
    );
  }
  const tree = median(firstTree);
  console.log(`\n1. first /api/filesystem/tree, 10,000 files / 100 MB, archive not yet opened: ${fmt(tree)}   zipinfo -1: ${fmt(zipinfo)}   ratio ${(tree / zipinfo).toFixed(2)}× (target ≤ 3×)`);
  console.log(`   CPU: ${fmt(median(firstTreeCpu))} (server and HTTP client, one process)   zipinfo -1: ${fmt(median(zipinfoCpu))}`);

  // 2. Process start to first tree response.
  const starts: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < 5; i++) starts.push(await startToFirstResponse(treeDir, "/api/filesystem/tree"));
  const nodeCpu: number[] = [];
  const nodeAlone = median(Array.from({ length: 5 }, () => timeCommand(process.execPath, ["-e", "0"], nodeCpu)));
  console.log(`2. process start → first tree response (node dist/server/cli.cjs): ${fmt(median(starts.map((s) => s.ms)))}   (node -e 0 alone: ${fmt(nodeAlone)}; target < 300 ms)`);
  console.log(`   CPU of the CLI until then: ${fmt(median(starts.map((s) => s.cpuMs)))} (all its threads)   node -e 0: ${fmt(median(nodeCpu))}`);

  // 3. Diff of two 10,000-file archives differing in 50 files.
  const zipinfoBoth = median(Array.from({ length: REPEATS }, () => timeCommand("zipinfo", ["-v", path.join(diffDir, "base.fs.zip")]) + timeCommand("zipinfo", ["-v", path.join(diffDir, "target.fs.zip")])));
  const diffRoute = "/api/diff?base_file=base.jsonl&target_file=target.jsonl";
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    await inProcess(diffDir, async (base) => {
      let started = performance.now();
      const first = await getJson(`${base}${diffRoute}`);
      cold.push(performance.now() - started);
      const parsed = JSON.parse(first.body) as { files: { modified: number; added: number; deleted: number } };
      if (parsed.files.modified !== 50 || parsed.files.added + parsed.files.deleted !== 0) throw new Error(`unexpected diff: ${first.body.slice(0, 300)}`);
      started = performance.now();
      await getJson(`${base}${diffRoute}`);
      warm.push(performance.now() - started);
    });
  }
  console.log(`3. /api/diff, two 10,000-file archives differing in 50 files: cold ${fmt(median(cold))}, warm ${fmt(median(warm))}   (two zipinfo -v runs: ${fmt(zipinfoBoth)}; target ≤ 50 ms)`);

  // 4. 25 MB session file: process start to /api/meta.
  const metas: number[] = [];
  for (let i = 0; i < 5; i++) metas.push((await startToFirstResponse(bigSession, "/api/meta")).ms);
  const readOnly = median(Array.from({ length: 5 }, () => timeCommand("wc", ["-l", bigSession])));
  console.log(`4. process start → /api/meta of a 25 MB session file: ${fmt(median(metas))}   (wc -l on it: ${fmt(readOnly)}; target < 1000 ms)`);
}

await main();
