/**
 * The whole-corpus walk of issue 17, through the compiled CLI, each figure next to its peer
 * measured in the same run:
 *
 * 1. Cold start: process spawn → first `/api/meta` answer on the corpus, against a bare
 *    `node:http` server's spawn → first answer (target ≤ 2×). Medians of 7, alternating.
 * 2. The walk: every file, every line (`/api/entries`, `/api/meta`), every slice whole
 *    (`/api/slices/:type`, no limit, markdown on as WINK's viewer sends it) and `/api/raw`,
 *    walked `WALKS` times (default 3) by one fresh server. Reported: each walk's time and
 *    the peak RSS (VmHWM) of the server over all walks (target ≤ 200 MiB; the original
 *    Python viewer took 20.2 s and 330 MiB on a 23 MB corpus, so ≤ 2.02 s is 10× faster).
 *    Peer: `bench/walk-peer-server.mjs`, a bare `node:http` server doing only one read,
 *    `JSON.parse` and `JSON.stringify` per request — the floor for the same answers.
 *
 * The corpus (bench/session-corpus.ts, ~25 MB in six files) is generated on first use into
 * bench/.work/server/walk-corpus. `SERVER_ARGS` adds CLI options (e.g. `--memory 128`).
 *
 * Run: node --import tsx bench/server-walk.bench.ts   (after npm run build; COLD_START_ONLY=1: only 1.)
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ensureSessionCorpus } from "./session-corpus.js";
import { WORK, directoryBytes, median } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
/** The CLI measured (`WINK_CLI=path/to/dist/server/cli.cjs` measures another build, e.g. an older commit's). */
const CLI = process.env.WINK_CLI ?? path.join(ROOT, "dist", "server", "cli.cjs");
const PEER = path.join(import.meta.dirname, "walk-peer-server.mjs");
const BARE = "const s=require('node:http').createServer((q,r)=>r.end('{}'));s.listen(0,'127.0.0.1',()=>console.log('http://127.0.0.1:'+s.address().port+'/'))";
const WALKS = Number(process.env.WALKS ?? 3);
const STARTS = 7;
const SERVER_ARGS = (process.env.SERVER_ARGS ?? "").split(" ").filter(Boolean);
/** `COLD_START_ONLY=1`: measure only the cold start (1.), not the walks. */
const COLD_START_ONLY = process.env.COLD_START_ONLY === "1";

interface Server {
  readonly child: ChildProcess;
  readonly base: string;
  readonly startedAt: number;
}

function startServer(args: string[]): Promise<Server> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(output);
      if (match !== null) resolve({ child, base: `http://127.0.0.1:${match[1]}`, startedAt });
    });
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${output}`)));
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.child.removeAllListeners("exit");
    server.child.once("exit", () => resolve());
    server.child.kill("SIGTERM");
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** GET `url`; resolves with the status and the body's byte count (and the body when `keep`). */
function get(url: string, keep: boolean): Promise<{ status: number; bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (keep) chunks.push(chunk);
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes, body: keep ? Buffer.concat(chunks).toString() : "" }));
      })
      .on("error", reject);
  });
}

async function getJson<T>(url: string): Promise<T> {
  const response = await get(url, true);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${response.body.slice(0, 200)}`);
  return JSON.parse(response.body) as T;
}

function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match === null ? 0 : Number(match[1]) * 1024;
}

function currentRss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match === null ? 0 : Number(match[1]) * 1024;
}

/** One walk; returns the number of requests and the bytes answered. */
async function walk(base: string): Promise<{ requests: number; bytes: number }> {
  let requests = 1;
  let bytes = 0;
  const files = await getJson<{ path: string }[]>(`${base}/api/snapshots`);
  for (const file of files) {
    const selector = `file=${encodeURIComponent(file.path)}`;
    const entries = await getJson<{ line_number: number }[]>(`${base}/api/entries?${selector}`);
    requests += 1;
    for (const entry of entries) {
      const line = `${selector}&line=${entry.line_number}`;
      const meta = await getJson<{ slices: { slice_type: string }[] }>(`${base}/api/meta?${line}`);
      requests += 1;
      for (const slice of meta.slices) {
        const answer = await get(`${base}/api/slices/${encodeURIComponent(slice.slice_type)}?${line}`, false);
        if (answer.status !== 200) throw new Error(`slice ${slice.slice_type} of ${line}: ${answer.status}`);
        bytes += answer.bytes;
        requests += 1;
      }
      const raw = await get(`${base}/api/raw?${line}`, false);
      if (raw.status !== 200) throw new Error(`raw of ${line}: ${raw.status}`);
      bytes += raw.bytes;
      requests += 1;
    }
  }
  return { requests, bytes };
}

async function timeToFirstAnswer(args: string[], route: string): Promise<number> {
  const server = await startServer(args);
  try {
    const answer = await get(`${server.base}${route}`, false);
    if (answer.status !== 200) throw new Error(`${route}: ${answer.status}`);
    return performance.now() - server.startedAt;
  } finally {
    await stop(server);
  }
}

async function walkServer(args: string[], label: string): Promise<{ times: number[]; peak: number; requests: number; bytes: number }> {
  const server = await startServer(args);
  const pid = server.child.pid ?? 0;
  try {
    const times: number[] = [];
    let requests = 0;
    let bytes = 0;
    for (let i = 0; i < WALKS; i++) {
      const started = performance.now();
      ({ requests, bytes } = await walk(server.base));
      times.push(performance.now() - started);
      console.log(`   ${label} walk ${i + 1}: ${times[i]?.toFixed(0)} ms, RSS now ${mib(currentRss(pid))}, peak ${mib(peakRss(pid))}`);
    }
    return { times, peak: peakRss(pid), requests, bytes };
  } finally {
    await stop(server);
  }
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const ms = (value: number): string => `${value.toFixed(0)} ms`;

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("dist/server/cli.cjs is missing: run npm run build first");
  const dir = path.join(WORK, "walk-corpus");
  console.log("preparing the corpus in bench/.work/server/walk-corpus (first run only)…");
  await ensureSessionCorpus(dir);
  const corpusBytes = await directoryBytes(dir);
  console.log(`corpus: ${(corpusBytes / 1e6).toFixed(1)} MB in 6 files${SERVER_ARGS.length > 0 ? `; server options: ${SERVER_ARGS.join(" ")}` : ""}`);

  const ours: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    ours.push(await timeToFirstAnswer([CLI, dir, "--port", "0", ...SERVER_ARGS], "/api/meta"));
    bare.push(await timeToFirstAnswer(["-e", BARE], "/"));
  }
  console.log(`1. cold start → first /api/meta: ${ms(median(ours))} (range ${ms(Math.min(...ours))}–${ms(Math.max(...ours))}); bare node:http start → first answer ${ms(median(bare))}; ratio ${(median(ours) / median(bare)).toFixed(2)}×   (target ≤ 2×)`);
  if (COLD_START_ONLY) {
    agent.destroy();
    return;
  }

  const ourWalk = await walkServer([CLI, dir, "--port", "0", ...SERVER_ARGS], "wink-debug");
  const peerWalk = await walkServer([PEER, dir], "peer");
  console.log(`2. walk of ${ourWalk.requests} requests (${(ourWalk.bytes / 1e6).toFixed(1)} MB of slices and raw lines per walk):`);
  console.log(`   wink-debug: median ${ms(median(ourWalk.times))} (${ourWalk.times.map(ms).join(", ")}); peak RSS over ${WALKS} walks ${mib(ourWalk.peak)}   (targets ≤ 2,020 ms, ≤ 200 MiB)`);
  console.log(`   peer (bare node:http, parse per request): median ${ms(median(peerWalk.times))}; peak RSS ${mib(peerWalk.peak)} (${(peerWalk.bytes / 1e6).toFixed(1)} MB per walk)`);
  console.log(`   ratio to the peer: time ${(median(ourWalk.times) / median(peerWalk.times)).toFixed(2)}×, peak RSS ${(ourWalk.peak / peerWalk.peak).toFixed(2)}×`);
  agent.destroy();
}

await main();
