/**
 * `/api/diff` with rename detection against the same diff without it, on two 10,000-file
 * archives (about 2 kB per file) where 50 files moved: 25 unchanged (exact renames, found
 * from sizes and CRCs), 25 with a line edited (inexact: the candidates are read and scored
 * as git's diffcore-delta does). The peer is the same route with `renames=0&copies=0`, in
 * the same process, archives already open (the central directories cached), so the ratio is
 * what detection adds. Detection is measured with copies on (`copies=1`, git's -M -C, the
 * most work; the route's default since issue 32 is renames alone). Target: ≤ 2×.
 *
 * Run: node --import tsx bench/diff-renames.bench.ts
 */
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeArchive } from "../shared/archive/index.js";
import type { ArchiveSourceEntry } from "../shared/archive/index.js";
import { buildApp } from "../server/app.js";
import { REF_TYPE, WORK, fileText, median, sessionLine } from "./server-fixtures.js";

const FILES = 10_000;
const MOVED = 50;
const RUNS = Number(process.env.RUNS ?? 9);
const dir = path.join(WORK, "renames");

const basePath = (index: number) => `pkg${Math.floor(index / 500)}/module${Math.floor(index / 50) % 10}/file-${index}.ts`;
/** Every 200th file moves to another package; every other one of those gets one line edited on the way. */
const moved = (index: number) => index % (FILES / MOVED) === 7;
const targetPath = (index: number) => (moved(index) ? `moved/pkg${Math.floor(index / 500)}/renamed-${index}.ts` : basePath(index));

function entries(side: "base" | "target"): ArchiveSourceEntry[] {
  return Array.from({ length: FILES }, (_, index) => {
    let text = fileText(index, 2048);
    if (side === "target" && moved(index) && Math.floor(index / (FILES / MOVED)) % 2 === 1) text = text.replace(/\n/, "\n// edited while moving\n");
    const bytes = new TextEncoder().encode(text);
    return { path: side === "base" ? basePath(index) : targetPath(index), kind: "file" as const, size: bytes.length, mode: 0o644, mtimeMs: Date.parse("2026-11-22T00:00:00Z"), chunks: async function* () { yield bytes; } };
  });
}

async function ensure(name: string, side: "base" | "target"): Promise<void> {
  const file = path.join(dir, name);
  if (existsSync(file)) return;
  await writeArchive(`${file}.partial`, entries(side), { compressionLevel: 6 });
  await rename(`${file}.partial`, file);
}

await mkdir(dir, { recursive: true });
await Promise.all([ensure("base.fs.zip", "base"), ensure("target.fs.zip", "target")]);
const lines = [
  sessionLine("renames-session", [{ type: REF_TYPE, items: [{ archive_path: "base.fs.zip", file_count: FILES, total_bytes: 0 }] }], "2026-11-22T01:00:00.000000+00:00"),
  sessionLine("renames-session", [{ type: REF_TYPE, items: [{ archive_path: "target.fs.zip", file_count: FILES, total_bytes: 0 }] }], "2026-11-22T02:00:00.000000+00:00"),
];
await writeFile(path.join(dir, "renames.jsonl"), `${lines.join("\n")}\n`);

// Cold: a fresh server's first diff of the pair, with and without detection (archives opened by the first).
async function cold(query: string): Promise<number> {
  const fresh = await buildApp({ path: dir, watch: false, indexInBackground: false, logger: false });
  const start = performance.now();
  const response = await fresh.app.inject({ method: "GET", url: `/api/diff?base_file=renames.jsonl&base_line=1&target_file=renames.jsonl&target_line=2${query}`, headers: { host: "127.0.0.1" } });
  const ms = performance.now() - start;
  await fresh.app.close();
  if (response.statusCode !== 200) throw new Error(response.body);
  return ms;
}
const coldWith: number[] = [];
const coldWithout: number[] = [];
for (let i = 0; i < Math.min(RUNS, 5); i++) {
  coldWithout.push(await cold("&renames=0&copies=0"));
  coldWith.push(await cold("&copies=1"));
}

const { app } = await buildApp({ path: dir, watch: false, indexInBackground: false, logger: false });
const sides = "base_file=renames.jsonl&base_line=1&target_file=renames.jsonl&target_line=2";
const time = async (query: string): Promise<{ ms: number; body: { files: { renamed: number; added: number; deleted: number; changes: { similarity: number | null }[] } } }> => {
  const start = performance.now();
  const response = await app.inject({ method: "GET", url: `/api/diff?${sides}${query}`, headers: { host: "127.0.0.1" } });
  const ms = performance.now() - start;
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
  return { ms, body: response.json() };
};
// Warm: archives opened, central directories read, code paths compiled.
await time("&copies=1");
await time("&renames=0&copies=0");
const withDetection: number[] = [];
const without: number[] = [];
// A comparison not asked before (another similarity threshold each time, all below the 98 %
// of the edited files): scored again, from the chunk counts already taken of the candidates.
const rescored: number[] = [];
const rescoredWithout: number[] = [];
let last = (await time("&copies=1")).body;
for (let i = 0; i < RUNS; i++) {
  without.push((await time("&renames=0&copies=0")).ms);
  const run = await time("&copies=1");
  withDetection.push(run.ms);
  last = run.body;
}
for (let i = 0; i < RUNS; i++) {
  rescoredWithout.push((await time("&renames=0&copies=0")).ms);
  rescored.push((await time(`&copies=1&similarity=${60 + i}`)).ms);
}
await app.close();
const a = median(withDetection);
const b = median(without);
const scores = last.files.changes.map((change) => change.similarity).filter((value): value is number => value !== null);
console.log(`\n/api/diff, two ${FILES.toLocaleString("en-US")}-file archives, ${MOVED} moved (25 exact, 25 edited), median of ${RUNS}\n`);
console.log("| what | time | peer: same diff without detection | ratio | target |\n|---|---|---|---|---|");
console.log(`| cold: a fresh server's first diff (archives opened) | ${median(coldWith).toFixed(1)} ms | ${median(coldWithout).toFixed(1)} ms | ${(median(coldWith) / median(coldWithout)).toFixed(2)}× | ≤ 2× ${median(coldWith) / median(coldWithout) <= 2 ? "ok" : "OVER"} |`);
console.log(`| warm: the same diff again (archives open; the detection answer is reused) | ${a.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(a / b).toFixed(2)}× | ≤ 2× ${a / b <= 2 ? "ok" : "OVER"} |`);
const r = median(rescored);
const rb = median(rescoredWithout);
console.log(`| warm: a comparison not asked before (another threshold: every candidate pair scored again) | ${r.toFixed(1)} ms | ${rb.toFixed(1)} ms | ${(r / rb).toFixed(2)}× | ≤ 2× ${r / rb <= 2 ? "ok" : "OVER"} |`);
console.log(`\nfound: ${last.files.renamed} renamed (similarity ${Math.min(...scores)}–${Math.max(...scores)} %), ${last.files.added} added, ${last.files.deleted} deleted`);
