/**
 * Remote sources against local peers, in the same run, on real servers (nginx and Ceph
 * radosgw on loopback, started here):
 *
 * 1. first tree of an unopened 10,000-file archive: open by one suffix read, then the
 *    central directory parsed and validated by shared/archive's `readCentralDirectory`,
 *    over HTTP (nginx) and S3 (radosgw), next to `unzip -l` on the local file (aim ≤ 2×);
 * 2. bytes transferred to show one file of a 100 MB archive (end record, directory, the
 *    member's local header and data; CRC checked), aim < 1 % of the archive;
 * 3. the newest line of a 25 MB session file (250 lines), aim < 10 % of its bytes read;
 * 4. a listing of 5,000 runs: first page (1,000) and the whole listing, local folder, HTTP
 *    and S3, next to `ls -f` of the local folder; aim: first page < 300 ms.
 * 5. through the viewer server (`buildApp` on the URL, as `npx wink-debug URL` does), next to
 *    the same on the local folder: start (listing, the newest run indexed) to the first
 *    `/api/meta`, for the bundled example run and for the 25 MB session file; and the 5,000
 *    runs: start to the first page of `/api/runs` (100 runs); and, on a started server, the
 *    first `/api/filesystem/tree` of the unopened 10,000-file archive (beside its session
 *    file) next to `unzip -l` of the local file, alternately (aim ≤ 2×).
 * 6. a second process with `--cache-dir`: the first `/api/filesystem/tree` of the 10,000-file
 *    archive in a new process (bench/remote-cache-child.mjs on the built dist) whose cache
 *    folder an earlier process filled, next to a new process without one, alternately:
 *    bytes and requests the tree cost the store, time from start to the tree and of the tree.
 *
 * `WINK_BENCH_SECTIONS=6` (a comma-separated list) runs only those sections.
 * Every remote open is cold (a new Source: empty cache) on warm connections; "first" is the
 * first open in this process (TLS-less loopback, so mostly module and connection set-up).
 * Times are medians of RUNS runs, ours and the peer alternately.
 *
 * Run: npm run bench -- remote
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { type AppOptions, buildApp } from "../server/app.js";
import { packageRoot } from "../server/package-root.js";
import { writeArchive } from "../shared/archive/index.js";
import { readCentralDirectory, truncated, type ReadRange } from "../shared/archive/central-directory.js";
import { locateEntry } from "../shared/archive/entry-checks.js";
import { DEFAULT_ARCHIVE_LIMITS } from "../shared/filesystem/archive-limits.js";
import { LineIndex, Source, createHttpDriver, createLocalDriver, createS3Driver } from "../shared/remote/index.js";
import type { SourceDriver , RandomAccessReader} from "../shared/remote/index.js";
import { startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import { startRadosGateway } from "../shared/remote/test-servers/radosgw.test-support.js";
import { ensureArchive, median, sessionLine, TOOL_TYPE, fileText } from "./server-fixtures.js";

const run = promisify(execFile);
const SECTIONS = new Set((process.env.WINK_BENCH_SECTIONS ?? "1,2,3,4,5,6").split(",").map((section) => Number(section.trim())));
const RUNS = 9;
const WORK = path.resolve(import.meta.dirname, ".work", "remote");
const ZIP_10K = path.join(WORK, "store", "archives", "tree-10k.fs.zip");
const ZIP_100M = path.join(WORK, "store", "archives", "big-100m.fs.zip");
const SESSION_25M = path.join(WORK, "store", "sessions", "run-25m.jsonl");
// Each a small session file with one loadable line (the server opens the newest at start).
const LISTING = path.join(WORK, "store", "listing-runs");
const LISTING_COUNT = 5000;
/** A one-line session file with the 10,000-file archive beside it (`tree-10k.fs.zip`). */
const TREE_FOLDER = path.join(WORK, "store", "tree");

/** Deterministic incompressible bytes (so a 100 MB archive is 100 MB). */
function noise(seed: number, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < bytes; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
    out[i + 1] = (state >>> 8) & 0xff;
    out[i + 2] = (state >>> 16) & 0xff;
    out[i + 3] = (state >>> 24) & 0xff;
  }
  return out;
}

async function fixtures(): Promise<void> {
  await ensureArchive(ZIP_10K, 10_000, 120);
  if (!existsSync(ZIP_100M)) {
    const entries = Array.from({ length: 200 }, (_, index) => ({
      path: `blobs/blob-${index}.bin`,
      kind: "file" as const,
      size: 512 * 1024,
      mode: 0o644,
      mtimeMs: Date.parse("2026-11-22T00:00:00Z"),
      chunks: async function* () {
        yield noise(index + 1, 512 * 1024);
      },
    }));
    await writeArchive(ZIP_100M, entries, { compressionLevel: 1 });
  }
  if (!existsSync(SESSION_25M)) {
    await mkdir(path.dirname(SESSION_25M), { recursive: true });
    const lines: string[] = [];
    for (let n = 0; n < 250; n++) {
      const items = Array.from({ length: 10 }, (_, i) => ({
        call_id: `call_${n}_${i}`,
        created_at: "2026-11-22T01:00:00.000000+00:00",
        event_id: `event-${n}-${i}`,
        name: "read_file",
        params: { path: `src/file-${i}.ts` },
        rendered_output: fileText(n * 10 + i, 10_000),
        result: { message: "ok", success: true, value: null },
      }));
      lines.push(sessionLine(`session-${n}`, [{ type: TOOL_TYPE, items }]));
    }
    await writeFile(SESSION_25M, `${lines.join("\n")}\n`);
  }
  const example = path.join(WORK, "store", "example");
  if (!existsSync(example)) {
    await mkdir(example, { recursive: true });
    const bundled = path.join(packageRoot(), "examples", "snapshots");
    for (const name of readdirSync(bundled).filter((entry) => entry.endsWith(".jsonl") || entry.endsWith(".fs.zip"))) await writeFile(path.join(example, name), await readFile(path.join(bundled, name)));
  }
  if (!existsSync(TREE_FOLDER)) {
    await mkdir(TREE_FOLDER, { recursive: true });
    await writeFile(path.join(TREE_FOLDER, "tree-10k.jsonl"), `${sessionLine("tree-10k", [])}\n`);
    await writeFile(path.join(TREE_FOLDER, "tree-10k.fs.zip"), await readFile(ZIP_10K));
  }
  if (!existsSync(LISTING)) {
    await mkdir(LISTING, { recursive: true });
    for (let i = 0; i < LISTING_COUNT; i++) await writeFile(path.join(LISTING, `run-${String(i).padStart(5, "0")}.jsonl`), `${sessionLine(`run-${i}`, [])}\n`);
  }
}

/** A reader as the byte range shared/archive's parser reads through (the phase-2 seam). */
function rangeOf(reader: RandomAccessReader): ReadRange {
  return async (position, length) => {
    const bytes = await reader.read(position, Math.min(length, reader.size - position));
    if (bytes.byteLength < length) truncated(position + bytes.byteLength);
    return bytes;
  };
}

async function firstTree(driver: SourceDriver, key: string): Promise<{ ms: number; cpuMs: number; entries: number; requests: number; bytes: number }> {
  const source = new Source(driver);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const reader = await source.open(key, { tail: 128 * 1024 });
  const directory = await readCentralDirectory(rangeOf(reader), reader.size, DEFAULT_ARCHIVE_LIMITS);
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, entries: directory.entries.length, requests: source.stats.requests, bytes: source.stats.bytesReceived };
}

async function oneMember(driver: SourceDriver, key: string): Promise<{ ms: number; bytes: number; size: number; member: number }> {
  const source = new Source(driver);
  const started = performance.now();
  const reader = await source.open(key, { tail: 128 * 1024 });
  const range = rangeOf(reader);
  const directory = await readCentralDirectory(range, reader.size, DEFAULT_ARCHIVE_LIMITS);
  const entry = directory.entries[Math.floor(directory.entries.length / 2)];
  if (entry === undefined) throw new Error("empty archive");
  const { dataStart } = await locateEntry(range, entry, directory.offset, false);
  const compressed = await reader.read(dataStart, entry.compressedSize);
  const data = entry.method === 8 ? zlib.inflateRawSync(compressed) : Buffer.from(compressed);
  if (zlib.crc32(data) !== entry.crc32 || data.length !== entry.size) throw new Error(`CRC mismatch in ${entry.name}`);
  return { ms: performance.now() - started, bytes: source.stats.bytesReceived, size: reader.size, member: entry.size };
}

async function newestLine(driver: SourceDriver, key: string): Promise<{ ms: number; bytes: number; size: number }> {
  const source = new Source(driver);
  const started = performance.now();
  const reader = await source.open(key);
  const index = new LineIndex(source, reader);
  const [last] = await index.newest(1);
  if (last === undefined) throw new Error("no line");
  const parsed = JSON.parse(Buffer.from(await index.readLine(last)).toString("utf8")) as { tags?: { session_id?: string } };
  if (parsed.tags?.session_id !== "session-249") throw new Error(`unexpected newest line ${JSON.stringify(parsed.tags)}`);
  return { ms: performance.now() - started, bytes: source.stats.bytesReceived, size: reader.size };
}

async function listing(driver: SourceDriver, prefix: string): Promise<{ firstMs: number; allMs: number; count: number }> {
  const source = new Source(driver);
  const started = performance.now();
  let firstMs = 0;
  let count = 0;
  for await (const page of source.listPages(prefix, { delimiter: "/" })) {
    if (firstMs === 0) firstMs = performance.now() - started;
    count += page.objects.length;
  }
  return { firstMs, allMs: performance.now() - started, count };
}

/** `buildApp` on `options.path` (listing, the newest run opened) and the first answer to `url`: start to answer. */
async function firstAnswer(options: Pick<AppOptions, "path" | "remote">, url: string): Promise<{ ms: number }> {
  const started = performance.now();
  const { app } = await buildApp({ ...options, watch: false, indexInBackground: false, logger: false, webDir: path.join(WORK, "no-web") });
  try {
    const answer = await app.inject({ method: "GET", url, headers: { host: "127.0.0.1:8000" } });
    if (answer.statusCode !== 200) throw new Error(`${url} on ${options.path}: ${answer.statusCode} ${answer.body.slice(0, 200)}`);
    return { ms: performance.now() - started };
  } finally {
    await app.close();
  }
}

/** On a started server (start not timed): the first `/api/filesystem/tree` of the run's unopened archive, and the bytes the store sent for it. */
async function firstServedTree(options: Pick<AppOptions, "path" | "remote">): Promise<{ ms: number; bytes: number | null; files: number }> {
  const { app, state } = await buildApp({ ...options, watch: false, indexInBackground: false, logger: false, webDir: path.join(WORK, "no-web") });
  try {
    const stats = (state.directory.store as { source?: { stats: { bytesReceived: number } } }).source?.stats ?? null;
    const before = stats?.bytesReceived ?? 0;
    const started = performance.now();
    const answer = await app.inject({ method: "GET", url: "/api/filesystem/tree?file=tree-10k.jsonl", headers: { host: "127.0.0.1:8000" } });
    const ms = performance.now() - started;
    if (answer.statusCode !== 200) throw new Error(`tree on ${options.path}: ${answer.statusCode} ${answer.body.slice(0, 200)}`);
    return { ms, bytes: stats === null ? null : stats.bytesReceived - before, files: (JSON.parse(answer.body) as unknown[]).length };
  } finally {
    await app.close();
  }
}

/** One new process (bench/remote-cache-child.mjs) building the viewer on `target` and asking the archive's first tree. */
async function treeInNewProcess(target: string, options: object): Promise<{ startToTree: number; tree: number; bytes: number; requests: number; files: number; wall: number }> {
  const started = performance.now();
  const { stdout } = await run(process.execPath, [path.join(import.meta.dirname, "remote-cache-child.mjs"), path.join(packageRoot(), "dist", "server", "app.js"), target, JSON.stringify(options)], { maxBuffer: 1024 * 1024 });
  return { ...(JSON.parse(stdout) as { startToTree: number; tree: number; bytes: number; requests: number; files: number }), wall: performance.now() - started };
}

/** Section 6: the tree in a second process with a warm `--cache-dir`, next to one without. */
async function secondProcessTrees(nginxUrl: string, s3Options: object): Promise<void> {
  console.log(`\n6. first /api/filesystem/tree of the 10,000-file archive in a new process: a warm --cache-dir vs none, ${RUNS} runs each, alternately`);
  for (const [name, target, options] of [
    ["HTTP", `${nginxUrl}tree/`, {}],
    ["S3", "s3://bench/tree/", s3Options],
  ] as const) {
    const cacheDir = path.join(WORK, `cache-${name}`);
    await rm(cacheDir, { recursive: true, force: true });
    const filling = await treeInNewProcess(target, { ...options, cacheDir });
    const rows = { none: [] as Awaited<ReturnType<typeof treeInNewProcess>>[], warm: [] as Awaited<ReturnType<typeof treeInNewProcess>>[] };
    for (let i = 0; i < RUNS; i++) {
      rows.none.push(await treeInNewProcess(target, options));
      rows.warm.push(await treeInNewProcess(target, { ...options, cacheDir }));
    }
    const cacheBytes = readdirSync(cacheDir).reduce((sum, file) => sum + statSync(path.join(cacheDir, file)).size, 0);
    console.log(`   ${name}: filling the cache (first process): tree ${fmt(filling.tree)}, ${filling.bytes} bytes in ${filling.requests} requests; the folder holds ${cacheBytes} bytes`);
    for (const [label, list] of [["no cache dir", rows.none], ["warm cache dir", rows.warm]] as const) {
      const last = list[list.length - 1] as (typeof list)[number];
      console.log(`     ${label}: tree ${fmt(median(list.map((row) => row.tree)))}, start to tree ${fmt(median(list.map((row) => row.startToTree)))}, process ${fmt(median(list.map((row) => row.wall)))}; ${last.bytes} bytes in ${last.requests} requests from the store (${last.files} files)`);
    }
    const ratio = median(rows.warm.map((row) => row.tree)) / median(rows.none.map((row) => row.tree));
    console.log(`     warm / none: tree time ${ratio.toFixed(2)}x, bytes ${(rows.warm[0] as { bytes: number }).bytes} vs ${(rows.none[0] as { bytes: number }).bytes}`);
  }
}

async function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  await run(command, args, { maxBuffer: 64 * 1024 * 1024 });
  return performance.now() - started;
}

const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;
const pct = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(2)} %`;

async function main(): Promise<void> {
  await fixtures();
  const store = path.join(WORK, "store");
  const nginx = await startNginx(store);
  const t0 = performance.now();
  const gateway = await startRadosGateway();
  console.log(`radosgw up in ${fmt(performance.now() - t0)}`);
  try {
    await gateway.createBucket("bench");
    for (const file of [ZIP_10K, ZIP_100M, SESSION_25M]) await gateway.put("bench", path.relative(store, file), await readFile(file));
    const names = SECTIONS.has(4) || SECTIONS.has(5) ? readdirSync(LISTING) : [];
    for (let i = 0; i < names.length; i += 32) {
      await Promise.all(names.slice(i, i + 32).map(async (name) => gateway.put("bench", `listing/${name}`, await readFile(path.join(LISTING, name)))));
    }
    for (const folder of ["example", "tree"]) {
      for (const name of readdirSync(path.join(store, folder))) await gateway.put("bench", `${folder}/${name}`, await readFile(path.join(store, folder, name)));
    }
    const http = createHttpDriver({ url: nginx.url });
    const s3 = createS3Driver({ url: "s3://bench/", endpoint: gateway.endpoint, credentials: gateway.owner });
    const local = createLocalDriver({ root: store });
    const zipKey = path.relative(store, ZIP_10K);

    if (SECTIONS.has(1)) {
      console.log(`\n1. first tree of an unopened 10,000-file archive (${(statSync(ZIP_10K).size / 1e6).toFixed(2)} MB), ${RUNS} runs`);
      const firstHttp = await firstTree(http, zipKey);
      const firstS3 = await firstTree(s3, zipKey);
      const times = { unzip: [] as number[], http: [] as number[], s3: [] as number[], httpCpu: [] as number[], s3Cpu: [] as number[] };
      let sample = firstHttp;
      let sampleS3 = firstS3;
      for (let i = 0; i < RUNS; i++) {
        times.unzip.push(await timed("unzip", ["-l", ZIP_10K]));
        sample = await firstTree(http, zipKey);
        times.http.push(sample.ms);
        times.httpCpu.push(sample.cpuMs);
        sampleS3 = await firstTree(s3, zipKey);
        times.s3.push(sampleS3.ms);
        times.s3Cpu.push(sampleS3.cpuMs);
      }
      const unzip = median(times.unzip);
      console.log(`   unzip -l (local file, process spawn included): ${fmt(unzip)}`);
      console.log(`   HTTP (nginx):   ${fmt(median(times.http))}  = ${(median(times.http) / unzip).toFixed(2)}x unzip -l  (CPU ${fmt(median(times.httpCpu))}; first in process ${fmt(firstHttp.ms)}; ${sample.entries} entries, ${sample.requests} requests, ${sample.bytes} bytes)`);
      console.log(`   S3 (radosgw):   ${fmt(median(times.s3))}  = ${(median(times.s3) / unzip).toFixed(2)}x unzip -l  (CPU ${fmt(median(times.s3Cpu))}; first in process ${fmt(firstS3.ms)}; ${sampleS3.entries} entries, ${sampleS3.requests} requests, ${sampleS3.bytes} bytes)`);

    }

    if (SECTIONS.has(2)) {
      const bigKey = path.relative(store, ZIP_100M);
      console.log(`\n2. one file of a ${(statSync(ZIP_100M).size / 1e6).toFixed(1)} MB archive`);
      for (const [name, driver] of [["HTTP", http], ["S3", s3]] as const) {
        const member = await oneMember(driver, bigKey);
        console.log(`   ${name}: ${member.bytes} bytes transferred (${pct(member.bytes, member.size)} of the archive; the member is ${member.member} bytes), ${fmt(member.ms)}`);
      }

    }

    if (SECTIONS.has(3)) {
      const sessionKey = path.relative(store, SESSION_25M);
      console.log(`\n3. newest line of a ${(statSync(SESSION_25M).size / 1e6).toFixed(1)} MB session file (250 lines)`);
      for (const [name, driver] of [["local", local], ["HTTP", http], ["S3", s3]] as const) {
        const line = await newestLine(driver, sessionKey);
        console.log(`   ${name}: ${line.bytes} bytes read (${pct(line.bytes, line.size)}), ${fmt(line.ms)}`);
      }

    }

    if (SECTIONS.has(4)) {
      console.log(`\n4. listing ${LISTING_COUNT} runs (pages of 1,000), ${RUNS} runs`);
      const ls: number[] = [];
      const results: Record<string, { first: number[]; all: number[]; count: number }> = { local: { first: [], all: [], count: 0 }, HTTP: { first: [], all: [], count: 0 }, S3: { first: [], all: [], count: 0 } };
      for (let i = 0; i < RUNS; i++) {
        ls.push(await timed("ls", ["-f", LISTING]));
        for (const [name, driver] of [["local", local], ["HTTP", http], ["S3", s3]] as const) {
          const result = await listing(driver, name === "S3" ? "listing/" : "listing-runs/");
          const slot = results[name] as { first: number[]; all: number[]; count: number };
          slot.first.push(result.firstMs);
          slot.all.push(result.allMs);
          slot.count = result.count;
        }
      }
      console.log(`   ls -f (local folder, process spawn included): ${fmt(median(ls))}`);
      for (const [name, slot] of Object.entries(results)) {
        console.log(`   ${name}: first page ${fmt(median(slot.first))}, all ${slot.count} in ${fmt(median(slot.all))} (${(median(slot.all) / median(ls)).toFixed(2)}x ls -f)`);
      }
    }
    await Promise.all([http, s3].map((driver) => driver.close?.()));

    process.env.AWS_ACCESS_KEY_ID = gateway.owner.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = gateway.owner.secretAccessKey;
    const remote = { s3: { endpoint: gateway.endpoint } };
    if (SECTIONS.has(5)) {
      console.log(`\n5. through the viewer server (buildApp on the target, then the first answer), ${RUNS} runs`);
      // nginx serves the local folders themselves; the bucket has its own names.
      const targets = (local: string, bucketFolder: string) => [
        ["local", local, {}],
        ["HTTP", `${nginx.url}${path.relative(store, local)}/`, {}],
        ["S3", `s3://bench/${bucketFolder}/`, remote],
      ] as const;
      const sessions = path.dirname(SESSION_25M);
      const rows: [string, string, number][] = [];
      for (const [label, folders, url] of [
        ["first /api/meta, the example run (66 kB, 3 archives)", targets(path.join(store, "example"), "example"), "/api/meta"],
        ["first /api/meta, the 25 MB session file", targets(sessions, "sessions"), "/api/meta"],
        [`first page of /api/runs, ${LISTING_COUNT} runs`, targets(LISTING, "listing"), "/api/runs?limit=100"],
      ] as const) {
        for (const [name, target, options] of folders) {
          const ms: number[] = [];
          for (let i = 0; i < RUNS; i++) ms.push((await firstAnswer({ path: target, remote: options }, url)).ms);
          rows.push([label, name, median(ms)]);
        }
      }
      for (const [label, name, ms] of rows) {
        const local = rows.find((row) => row[0] === label && row[1] === "local")?.[2] ?? ms;
        console.log(`   ${label}: ${name} ${fmt(ms)}${name === "local" ? "" : ` = ${(ms / local).toFixed(2)}x local`}`);
      }
      const trees = { unzip: [] as number[], local: [] as number[], HTTP: [] as number[], S3: [] as number[] };
      const treeBytes: Record<string, number | null> = {};
      let treeFiles = 0;
      for (let i = 0; i < RUNS; i++) {
        trees.unzip.push(await timed("unzip", ["-l", ZIP_10K]));
        for (const [name, target, options] of targets(TREE_FOLDER, "tree")) {
          const tree = await firstServedTree({ path: target, remote: options });
          trees[name].push(tree.ms);
          treeBytes[name] = tree.bytes;
          treeFiles = tree.files;
        }
      }
      const unzipTree = median(trees.unzip);
      console.log(`   first /api/filesystem/tree of the unopened ${treeFiles}-file archive (${(statSync(ZIP_10K).size / 1e6).toFixed(2)} MB), server started: unzip -l ${fmt(unzipTree)} (process spawn included)`);
      for (const name of ["local", "HTTP", "S3"] as const) {
        const bytes = treeBytes[name];
        console.log(`     ${name}: ${fmt(median(trees[name]))} = ${(median(trees[name]) / unzipTree).toFixed(2)}x unzip -l${bytes === null || bytes === undefined ? "" : ` (${bytes} bytes from the store)`}`);
      }
    }

    if (SECTIONS.has(6)) await secondProcessTrees(nginx.url, remote);
  } finally {
    await gateway.stop();
    await nginx.stop();
  }
}

await main();
