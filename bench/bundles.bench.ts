/**
 * Opening a WINK debug bundle and its logs, against `unzip -p BUNDLE member | wc -l` on the
 * same member, measured in the same run. The bundle is the real long-run fixture
 * (03-long-run: 5,363 log lines, 2.9 MB of logs/app.jsonl in a 301 KB zip).
 *
 * Reported (median of 9 runs after one warm-up; page cache warm for both sides):
 *  - open: the central directory and manifest.json, with the members read listed;
 *  - first page of logs after open (50 records: read + inflate + index the log);
 *  - a facet query (levels/loggers/events with counts) on the open bundle, and a filtered page;
 *  - the same through HTTP (`GET /api/logs?limit=50`, then `/api/logs/facets`) on a server
 *    whose archive is reopened before each sample;
 *  - what the web app's Logs and Transcript panels ask when they open, over real loopback HTTP
 *    (a listening server and fetch), the bundle reopened before each sample;
 *  - peer: `unzip -p BUNDLE debug_bundle/logs/app.jsonl | wc -l` (a process: what a user
 *    would type to get at the same lines).
 * Targets (issue 16): first page < 50 ms after open, facet query < 20 ms.
 *
 * Run: npm run bench -- bundles   (or node --import tsx bench/bundles.bench.ts)
 */
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { createHash } from "node:crypto";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { buildApp } from "../server/app.js";
import { openArchive } from "../shared/archive/reader.node.js";
import { DebugBundle } from "../shared/debug-bundle/index.js";
import type { FileIndexEntry, FileSource } from "../shared/viewer/index.js";

const RUNS = 9;
const FILE = "03-long-run/9e611eeb-eb09-4f9f-9c90-94208ca40ccf_20261126_054535.zip";
const BUNDLE = path.join(WINK_BUNDLE_FIXTURES, FILE);
const LOG_LINES = 5363;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median and fastest, "12.3 ms (min 9.8)": the fastest run shows the cost without the other helpers' load. */
function both(values: number[]): string {
  return `${median(values).toFixed(1).padStart(6)} ms (min ${Math.min(...values).toFixed(1)})`;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A bundle opened through the archive reader, recording the entries read. */
async function openBundle(): Promise<{ bundle: DebugBundle; reads: string[]; compressed: Map<string, number>; zipBytes: number; close: () => Promise<void> }> {
  const reader = await openArchive(BUNDLE, { deferManifest: true });
  const entries: FileIndexEntry[] = [];
  reader.forEachFile((entryPath, size, crc32) => entries.push({ path: entryPath, size, fingerprint: crc32 }));
  const compressed = new Map(reader.files.map((file) => [file.path, file.compressedSize]));
  const reads: string[] = [];
  const source: FileSource = {
    kind: "archive",
    label: "bench",
    list: async () => entries,
    read: async (entryPath, maxBytes) => {
      reads.push(entryPath);
      return reader.readFile(entryPath, { maxBytes });
    },
  };
  const bundle = await DebugBundle.open(source, { path: FILE, sha256 });
  return { bundle, reads, compressed, zipBytes: reader.archiveSize, close: () => reader.close() };
}

interface Sample {
  open: number;
  firstPage: number;
  facets: number;
  filtered: number;
  /** CPU time (user + system, every thread of the process) of open + first page, and of the facet query. */
  firstPageCpu: number;
  facetsCpu: number;
}

/** CPU milliseconds used by this process since `from` (`process.cpuUsage()`). */
const cpuSince = (from: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

async function sample(): Promise<Sample & { reads: string[]; compressed: Map<string, number>; zipBytes: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const opened = await openBundle();
  const t1 = performance.now();
  const readsAtOpen = [...opened.reads];
  const logs = await opened.bundle.logs();
  const page = logs?.page({ limit: 50 });
  const t2 = performance.now();
  const firstPageCpu = cpuSince(cpu0);
  const cpu2 = process.cpuUsage();
  const facets = logs?.facets();
  const t3 = performance.now();
  const facetsCpu = cpuSince(cpu2);
  const filtered = logs?.page({ levels: ["WARNING"], excludeLoggers: ["asyncio"], search: "deadline", limit: 50 });
  const t4 = performance.now();
  if (page?.total !== LOG_LINES || page.entries.length !== 50) throw new Error(`first page: ${page?.total} records`);
  if (facets?.levels.reduce((sum, level) => sum + level.count, 0) !== LOG_LINES) throw new Error("facets do not add up");
  if (filtered === undefined) throw new Error("no filtered page");
  await opened.close();
  return { open: t1 - t0, firstPage: t2 - t1, facets: t3 - t2, filtered: t4 - t3, firstPageCpu, facetsCpu, reads: readsAtOpen, compressed: opened.compressed, zipBytes: opened.zipBytes };
}

/** Wall and CPU milliseconds of `unzip -p … | wc -l` (CPU from bash's `time`: user + system of both processes). */
function unzipWc(): { wall: number; cpu: number } {
  const start = performance.now();
  const out = execFileSync("bash", ["-c", `TIMEFORMAT='%U %S'; { time (unzip -p "$1" debug_bundle/logs/app.jsonl | wc -l) ; } 2>&1`, "bash", BUNDLE], { encoding: "utf8" });
  const wall = performance.now() - start;
  const [lines = "", times = ""] = out.trim().split("\n");
  if (Number(lines.trim()) !== LOG_LINES) throw new Error(`unzip | wc -l counted ${lines.trim()}`);
  const [user = 0, system = 0] = times.trim().split(" ").map(Number);
  return { wall, cpu: (user + system) * 1000 };
}

async function httpSamples(): Promise<{ firstPage: number[]; facets: number[] }> {
  const { app, state } = await buildApp({ path: BUNDLE, watch: false, indexInBackground: false, logger: false });
  const record = state.directory.get(path.basename(BUNDLE));
  if (record === undefined || state.bundles === null) throw new Error("bundle not listed");
  const inject = async (url: string) => {
    const start = performance.now();
    const response = await app.inject({ method: "GET", url, headers: { host: "127.0.0.1" } });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    return performance.now() - start;
  };
  const pages: number[] = [];
  const facets: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    state.bundles.forget(record.absolutePath); // reopen: central directory, manifest, then the log
    const page = await inject("/api/logs?limit=50");
    const facet = await inject("/api/logs/facets");
    if (i === 0) continue; // warm-up
    pages.push(page);
    facets.push(facet);
  }
  await app.close();
  return { firstPage: pages, facets };
}

/**
 * What the web app's panels ask when they open, over real loopback HTTP (a listening
 * server, Node's fetch with keep-alive, the bundle reopened before each sample): the Logs
 * panel's four requests at once (first page of 100, the facets, the log's first record for
 * its start time, the ERROR records for error navigation), the first page alone, and the
 * Transcript panel's first page (which builds the transcript from the log).
 */
async function panelSamples(): Promise<{ logsPanel: number[]; firstPage: number[]; transcriptPanel: number[] }> {
  const { app, state } = await buildApp({ path: BUNDLE, watch: false, indexInBackground: false, logger: false });
  const record = state.directory.get(path.basename(BUNDLE));
  if (record === undefined || state.bundles === null) throw new Error("bundle not listed");
  const bundles = state.bundles;
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const base = `http://127.0.0.1:${address.port}`;
  const file = `file=${encodeURIComponent(path.basename(BUNDLE))}`;
  const fetchOk = async (url: string) => {
    const response = await fetch(`${base}${url}`);
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    await response.arrayBuffer();
  };
  const timed = async (work: () => Promise<unknown>) => {
    bundles.forget(record.absolutePath); // reopen: central directory, manifest, then the log
    const start = performance.now();
    await work();
    return performance.now() - start;
  };
  const logsPanel = () => Promise.all([`/api/logs?${file}&offset=0&limit=100`, `/api/logs/facets?${file}`, `/api/logs?${file}&offset=0&limit=1`, `/api/logs?${file}&level=ERROR,CRITICAL&limit=1000`].map(fetchOk));
  const result = { logsPanel: [] as number[], firstPage: [] as number[], transcriptPanel: [] as number[] };
  for (let i = 0; i <= RUNS; i++) {
    const panel = await timed(logsPanel);
    const page = await timed(() => fetchOk(`/api/logs?${file}&offset=0&limit=100`));
    const transcript = await timed(() => Promise.all([`/api/transcript?${file}&exclude_entry_type=tool_result&offset=0&limit=100`, `/api/transcript/facets?${file}`].map(fetchOk)));
    if (i === 0) continue; // warm-up
    result.logsPanel.push(panel);
    result.firstPage.push(page);
    result.transcriptPanel.push(transcript);
  }
  await app.close();
  return result;
}

const samples: Sample[] = [];
let first: Awaited<ReturnType<typeof sample>> | null = null;
for (let i = 0; i <= RUNS; i++) {
  const result = await sample();
  if (i === 0) {
    first = result;
    continue;
  }
  samples.push(result);
}
const peerRuns: { wall: number; cpu: number }[] = [];
unzipWc();
for (let i = 0; i < RUNS; i++) peerRuns.push(unzipWc());
const peer = peerRuns.map((run) => run.wall);
const peerCpu = peerRuns.map((run) => run.cpu);
const http = await httpSamples();
const panels = await panelSamples();

const column = (key: keyof Sample) => samples.map((s) => s[key]);
const m = (key: keyof Sample) => median(column(key));
const unzip = median(peer);
const openRead = first?.reads ?? [];
const compressedRead = openRead.reduce((sum, name) => sum + (first?.compressed.get(name) ?? 0), 0);
console.log(`debug bundle benchmark: ${FILE} (${((first?.zipBytes ?? 0) / 1024).toFixed(0)} KB zip, ${LOG_LINES} log lines); median of ${RUNS}; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}; Node ${process.version}`);
console.log(`  open (central directory + manifest)    ${both(column("open"))}   members read: ${openRead.join(", ")} (${(compressedRead / 1024).toFixed(1)} KB compressed)`);
console.log(`  first page of logs after open          ${both(column("firstPage"))}   target < 50 ms; ratio to unzip -p | wc -l ${(m("firstPage") / unzip).toFixed(2)}`);
console.log(`    CPU, open + first page               ${both(column("firstPageCpu"))}   ratio to the peer's CPU ${(m("firstPageCpu") / median(peerCpu)).toFixed(2)}`);
console.log(`  facet query                            ${both(column("facets"))}   target < 20 ms (builds the columns)`);
console.log(`    CPU, facet query                     ${both(column("facetsCpu"))}`);
console.log(`  filtered page (level, logger, search)  ${both(column("filtered"))}`);
console.log(`  HTTP GET /api/logs?limit=50, reopened  ${both(http.firstPage)}   (open + first page through the server)`);
console.log(`  HTTP GET /api/logs/facets              ${both(http.facets)}`);
console.log(`  loopback HTTP, Logs panel opens        ${both(panels.logsPanel)}   (its 4 requests at once, bundle reopened)`);
console.log(`  loopback HTTP, first page (100)        ${both(panels.firstPage)}   (bundle reopened); ratio to unzip -p | wc -l ${(median(panels.firstPage) / unzip).toFixed(2)}`);
console.log(`  loopback HTTP, Transcript panel opens  ${both(panels.transcriptPanel)}   (first page + facets; builds the transcript from the log)`);
console.log(`  peer: unzip -p … | wc -l               ${both(peer)}   (two processes; counts lines only)`);
console.log(`    CPU of the peer                      ${both(peerCpu)}   (bash time: user + system)`);
