/**
 * Peak memory of the server on a 1 GB directory: nine 10,000-file / 100 MB archives
 * (stored, so they are 100 MB on disk) and session files, four of them 25 MB. The compiled
 * CLI serves it; the benchmark indexes every file, then for every session opens its tree,
 * reads 200 files, its timeline, a page of its biggest slice and a search, and diffs
 * neighbouring archives. Peak RSS (VmHWM) is read from /proc; the target is < 300 MB.
 * The peer is the size of the directory itself (what reading it all into memory would take).
 * `BIG_SESSIONS=0` gives the same archives with small session files (memory of archives alone).
 *
 * Run: node --import tsx bench/server-memory.bench.ts   (after npm run build)
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { WORK, archivePath, directoryBytes, ensureArchive, ensureBigSession, listeningPort, sessionLine } from "./server-fixtures.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI = path.join(ROOT, "dist", "server", "cli.cjs");
const ARCHIVES = 9;
/** How many of the session files are 25 MB (env BIG_SESSIONS; default 4, the harsh case). */
const BIG_SESSIONS = Number(process.env.BIG_SESSIONS ?? 4);

async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match === null ? 0 : Number(match[1]) * 1024;
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error("dist/server/cli.cjs is missing: run npm run build first");
  const dir = path.join(WORK, `one-gigabyte-${BIG_SESSIONS}-big`);
  await mkdir(dir, { recursive: true });
  console.log("preparing the 1 GB directory in bench/.work/server/one-gigabyte (first run only)…");
  for (let i = 0; i < ARCHIVES; i++) {
    await ensureArchive(path.join(dir, `run-${i}.fs.zip`), 10_000, 10_000, new Set([i, i + 100, i + 1000]), 0);
    const session = path.join(dir, `run-${i}.jsonl`);
    if (i < BIG_SESSIONS) await ensureBigSession(session, 25);
    else if (!existsSync(session)) await writeFile(session, `${sessionLine(`run-${i}`, [])}\n`);
  }
  const bytes = await directoryBytes(dir);

  const child = spawn(process.execPath, [...(process.env.SERVER_NODE_FLAGS ?? "").split(" ").filter(Boolean), CLI, dir, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const pid = child.pid ?? 0;
  try {
    const port = await listeningPort(child);
    const base = `http://127.0.0.1:${port}`;
    const started = Date.now();
    const listing = (await getJson(`${base}/api/files?wait=1`)) as { files: { path: string }[] };
    const afterIndex = await peakRss(pid);
    for (const file of listing.files) {
      const selector = `file=${encodeURIComponent(file.path)}`;
      const meta = (await getJson(`${base}/api/meta?${selector}`)) as { slices: { slice_type: string; count: number }[] };
      await getJson(`${base}/api/filesystem/tree?${selector}`);
      await getJson(`${base}/api/filesystem/browse?${selector}`);
      await Promise.all(Array.from({ length: 200 }, (_, i) => getJson(`${base}/api/filesystem/file?${selector}&path=${encodeURIComponent(archivePath(i * 50, 10_000))}`)));
      await getJson(`${base}/api/timeline?${selector}`);
      const biggest = [...meta.slices].sort((a, b) => b.count - a.count)[0];
      if (biggest !== undefined) await getJson(`${base}/api/slices/${encodeURIComponent(biggest.slice_type)}?${selector}&limit=50`);
      await getJson(`${base}/api/search?${selector}&q=snapshot_42&limit=100`);
    }
    for (let i = 0; i + 1 < ARCHIVES; i++) await getJson(`${base}/api/diff?base_file=run-${i}.jsonl&target_file=run-${i + 1}.jsonl`);
    const peak = await peakRss(pid);
    const mb = (value: number): string => `${(value / 1024 / 1024).toFixed(0)} MB`;
    console.log(`directory: ${mb(bytes)} (${ARCHIVES} archives of 10,000 files, ${BIG_SESSIONS} session files of 25 MB)`);
    console.log(`peak RSS after indexing every file: ${mb(afterIndex)}; after serving every session (trees, 200 files each, timelines, slices, search, ${ARCHIVES - 1} diffs): ${mb(peak)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`ratio to the directory size: ${(peak / bytes).toFixed(2)}   (target: peak RSS < 300 MB)`);
  } finally {
    child.kill("SIGTERM");
  }
}

await main();
