#!/usr/bin/env node
// `npm run bench [-- NAME...]`: build, then run each benchmark under bench/ one after another
// (never in parallel: they measure ratios against peers timed in the same run, and a second
// benchmark on the same 2 cores would skew both). Figures go into docs/benchmarks.md by hand,
// with the command that produced them.
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";

const BENCHMARKS = [
  { name: "archive", file: "bench/archive.bench.ts" },
  { name: "memory-snapshots", file: "bench/memory-snapshots.bench.ts", node: ["--expose-gc"] },
  { name: "host-snapshots", file: "bench/host-snapshots.bench.ts" },
  { name: "host-grep", file: "bench/host-grep.bench.ts" },
  { name: "session-parse", file: "bench/session-parse.bench.ts", node: ["--expose-gc"] },
  { name: "bundles", file: "bench/bundles.bench.ts" },
  { name: "failures", file: "bench/failures.bench.ts" },
  { name: "eval-index", file: "bench/eval-index.bench.ts" },
  { name: "failures-index", file: "bench/failures-index.bench.ts" },
  { name: "undo", file: "bench/undo.bench.ts" },
  { name: "server", file: "bench/server.bench.ts" },
  { name: "server-throughput", file: "bench/server-throughput.bench.ts" },
  { name: "server-memory", file: "bench/server-memory.bench.ts" },
  { name: "big-line-memory", file: "bench/big-line-memory.bench.ts" },
  { name: "connection-flood", file: "bench/connection-flood.bench.ts" },
  { name: "big-session-index", file: "bench/big-session-index.bench.ts" },
  { name: "server-walk", file: "bench/server-walk.bench.ts" },
  { name: "diff-renames", file: "bench/diff-renames.bench.ts" },
  { name: "web", file: "bench/web.bench.ts" },
  { name: "web-size", file: "bench/web-size.ts" },
  { name: "podman", file: "bench/podman.bench.ts" },
  { name: "remote", file: "bench/remote.bench.ts" },
  { name: "served-mode", file: "bench/served-mode.bench.ts" },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !BENCHMARKS.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(", ")}\navailable: ${BENCHMARKS.map((b) => b.name).join(", ")}`);
  process.exit(2);
}
const selected = wanted.length === 0 ? BENCHMARKS : BENCHMARKS.filter((b) => wanted.includes(b.name));

const build = spawnSync("npm", ["run", "--silent", "build"], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

let failed = 0;
for (const bench of selected) {
  const args = [...(bench.node ?? []), "--import", "tsx", bench.file];
  console.log(`\n== ${bench.name}: node ${args.join(" ")}   (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  const run = spawnSync("node", args, { stdio: "inherit" });
  if (run.status !== 0) {
    failed++;
    console.log(`== ${bench.name}: FAILED (exit ${run.status ?? run.signal})`);
  }
}
process.exit(failed === 0 ? 0 : 1);
