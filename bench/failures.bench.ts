/**
 * `wink-debug failures DIR -r --json` (the built CLI) on a generated eval, against a plain
 * peer measured in the same run: Python's `zipfile` and `json` reading each run's error and
 * session in turn and counting its failed calls (what issue 30 names as the peer to beat).
 *
 * The eval: RUNS runs (default 1,000) of bench/generated-eval.ts (copies of the real fixtures
 * in an EvalLoop layout). Written once under bench/.work/.
 *
 * Reported: wall time and peak RSS (`/usr/bin/time`), median of ROUNDS (default 3) after one
 * warm-up each (page cache warm for both), and the counts both found (they must agree on
 * failed calls of session events; the CLI also reads bundles' transcripts).
 *
 * Run: npm run bench -- failures   (or: RUNS=1000 node --import tsx bench/failures.bench.ts after npm run build)
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { packageRoot } from "../server/package-root.js";
import { generateEval, median, PYTHON_PEER as PEER } from "./generated-eval.js";

const RUNS = Number(process.env.RUNS ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ROOT = packageRoot();
const WORK = path.join(ROOT, "bench", ".work", `failures-${RUNS}`);
const CLI = path.join(ROOT, "dist", "server", "cli.cjs");


/** Wall seconds, peak RSS (KiB) and stdout of one run under /usr/bin/time. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): { seconds: number; rssKib: number; stdout: string } {
  const stats = path.join(WORK, "..", `failures-time-${process.pid}.txt`);
  const stdout = execFileSync("/usr/bin/time", ["-f", "%e %M", "-o", stats, command, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, stdio: ["ignore", "pipe", "ignore"], env });
  const [seconds, rss] = execFileSync("cat", [stats], { encoding: "utf8" }).trim().split(/\s+/).map(Number);
  return { seconds: seconds ?? Number.NaN, rssKib: rss ?? Number.NaN, stdout };
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("dist/server/cli.cjs is missing: npm run build first");
  await generateEval(WORK, RUNS);
  const size = Number(execFileSync("du", ["-sb", WORK], { encoding: "utf8" }).split(/\s+/)[0]);
  console.log(`failures: ${RUNS} runs, ${(size / 1024 / 1024).toFixed(1)} MB, ${ROUNDS} rounds after a warm-up (load ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  // Cold: --no-cache reads every run each time. Warm: the run index kept (in a cache of its own, not ~/.cache) from the round before.
  const ours = () => timed(process.execPath, [CLI, "failures", WORK, "-r", "--json", "--no-cache"]);
  const cacheHome = path.join(WORK, "..", `failures-cache-${process.pid}`);
  const warm = () => timed(process.execPath, [CLI, "failures", WORK, "-r", "--json"], { ...process.env, XDG_CACHE_HOME: cacheHome });
  const peer = () => timed("python3", ["-c", PEER, WORK]);
  ours();
  peer();
  const a: ReturnType<typeof ours>[] = [];
  const b: ReturnType<typeof peer>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    a.push(ours());
    b.push(peer());
  }
  warm();
  const w = Array.from({ length: ROUNDS }, warm);
  rmSync(cacheHome, { recursive: true, force: true });
  const report = JSON.parse(a[0]?.stdout ?? "{}") as { runs: number; failed_runs: number; not_loaded_runs: number; groups: { occurrences: number; kind: string }[] };
  const calls = report.groups.filter((group) => group.kind === "call").reduce((sum, group) => sum + group.occurrences, 0);
  const peerCounts = JSON.parse(b[0]?.stdout ?? "{}") as { runs: number; failed_calls: number; errors: number };
  const ms = (values: number[]) => `${(median(values) * 1000).toFixed(0)} ms (min ${(Math.min(...values) * 1000).toFixed(0)})`;
  const mib = (values: number[]) => `${(median(values) / 1024).toFixed(0)} MiB`;
  console.log(`  wink-debug failures -r --json  ${ms(a.map((r) => r.seconds))}, peak RSS ${mib(a.map((r) => r.rssKib))}: ${report.runs} runs, ${report.failed_runs} failed, ${report.not_loaded_runs} did not load, ${report.groups.length} groups, ${calls} failed calls`);
  console.log(`  python3 zipfile + json         ${ms(b.map((r) => r.seconds))}, peak RSS ${mib(b.map((r) => r.rssKib))}: ${peerCounts.runs} runs, ${peerCounts.failed_calls} failed ToolInvoked, ${peerCounts.errors} error.json`);
  console.log(`  ratio (ours / peer, medians)   ${(median(a.map((r) => r.seconds)) / median(b.map((r) => r.seconds))).toFixed(2)}×`);
  console.log(`  warm (run index kept)          ${ms(w.map((r) => r.seconds))}, peak RSS ${mib(w.map((r) => r.rssKib))}`);
}

await main();
