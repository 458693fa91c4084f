/**
 * `.fs.zip` archives against Info-ZIP on the same inputs, in the same run:
 *
 * 1. export: writeArchive (and HostFilesystem.exportArchive) over a 5,000-file tree (~100 MB: source-like text of mixed sizes,
 *    some incompressible binaries, a few multi-MB files, empty files and directories,
 *    exec bits) vs `zip -qr` of the same tree;
 * 2. import: extractArchive of our archive into a directory (a plain fs-backed
 *    TreeTransaction, with async and with sync fs calls), and HostFilesystem.importArchive
 *    (staged and swapped in, durable or not), vs `unzip -q` of the same archive;
 * 3. listing: openArchive (central directory + validation) of a 10,000-file/~100 MB archive
 *    vs `zipinfo -1` (a process spawn included: that is what a peer costs);
 * 4. import peak RSS (fresh process, /usr/bin/time %M) for two archives of 5,000 files whose
 *    contents differ 4× in size (100 MB and 400 MB uncompressed), next to the RSS of the same
 *    process doing nothing (Node + tsx + imports).
 *
 * Times are medians of RUNS runs after a warm-up (page cache warm), ours and the peer run
 * alternately; CPU is user+sys of the whole process (threadpool included) or of the command.
 * Ratios are ours/peer. The export is measured with two sources: fs/promises throughout, and
 * synchronous reads of small files (Node's async fs costs ~5× the CPU per small file).
 *
 * Run: node --import tsx bench/archive.bench.ts
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { DirectoryTransaction, walkDirectory } from "../shared/archive/archive.test-support.js";
import { extractArchive, openArchive, writeArchive } from "../shared/archive/index.js";
import { HostFilesystem } from "../shared/filesystem/host/index.js";

const run = promisify(execFile);
const RUNS = 5;
const WORK = path.resolve("bench/.work/archive");
const TREE_5K = path.join(WORK, "tree-5k");
const TREE_10K = path.join(WORK, "tree-10k");
const TREE_5K_LARGE = path.join(WORK, "tree-5k-400mb");

/** Deterministic PRNG (LCG) so every run archives the same bytes. */
function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** ~8 MB of source-like text to slice files from (compresses ~3–4:1, like real code). */
function corpus(random: () => number): string {
  const words = ["const", "let", "return", "function", "import", "export", "from", "await", "async", "if", "else", "for", "of", "new", "this", "type", "interface",
    "string", "number", "boolean", "null", "undefined", "value", "index", "result", "error", "path", "buffer", "stream", "options", "config", "entry", "archive"];
  const lines: string[] = [];
  let size = 0;
  while (size < 8 * 1024 * 1024) {
    const indent = "  ".repeat(Math.floor(random() * 4));
    const parts: string[] = [];
    const count = 2 + Math.floor(random() * 9);
    for (let i = 0; i < count; i++) {
      const r = random();
      parts.push(r < 0.7 ? (words[Math.floor(random() * words.length)] as string) : r < 0.9 ? `id${Math.floor(random() * 5000)}` : String(Math.floor(random() * 100000)));
    }
    const line = `${indent}${parts.join(" ")};`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** A tree of `files` files of about `targetBytes` in total; `marker` makes generation once-only. */
function generateTree(root: string, files: number, targetBytes: number, seed: number): void {
  const marker = `${root}.complete`;
  if (fs.existsSync(marker)) return;
  fs.rmSync(root, { recursive: true, force: true });
  const random = prng(seed);
  const text = corpus(random);
  const sizes: number[] = [];
  for (let i = 0; i < files; i++) {
    const r = random();
    if (i % 97 === 0) sizes.push(0); // empty files
    else if (r < 0.6) sizes.push(512 + Math.floor(random() * 8 * 1024));
    else if (r < 0.85) sizes.push(8 * 1024 + Math.floor(random() * 56 * 1024));
    else if (r < 0.97) sizes.push(64 * 1024 + Math.floor(random() * 400 * 1024));
    else if (r < 0.995) sizes.push(16 * 1024 + Math.floor(random() * 1024 * 1024)); // binaries
    else sizes.push(2 * 1024 * 1024 + Math.floor(random() * 6 * 1024 * 1024));
  }
  const scale = targetBytes / sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; i < files; i++) {
    const size = Math.round((sizes[i] as number) * scale);
    const dir = path.join(root, `pkg${i % 23}`, `mod${i % 7}`, ...(i % 3 === 0 ? [`deep${i % 5}`, "src"] : []));
    fs.mkdirSync(dir, { recursive: true });
    const binary = i % 61 === 5;
    const file = path.join(dir, binary ? `asset-${i}.bin` : `file-${i}.ts`);
    if (binary) {
      const bytes = Buffer.alloc(size);
      for (let b = 0; b + 4 <= size; b += 4) bytes.writeUInt32LE(Math.floor(random() * 0xffffffff), b);
      fs.writeFileSync(file, bytes);
    } else {
      const start = Math.floor(random() * Math.max(1, text.length - size));
      let content = text.slice(start, start + size);
      while (content.length < size) content += text.slice(0, size - content.length);
      fs.writeFileSync(file, content);
    }
    if (i % 50 === 1) fs.chmodSync(file, 0o755);
  }
  for (let d = 0; d < 20; d++) fs.mkdirSync(path.join(root, "empty", `dir${d}`), { recursive: true });
  fs.writeFileSync(marker, "");
}

async function treeStats(root: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for await (const entry of walkDirectory(root)) {
    if (entry.kind === "file") {
      files += 1;
      bytes += entry.size;
    }
  }
  return { files, bytes };
}

interface Sample {
  wall: number;
  cpu: number;
}

/** Wall and CPU (user+sys) milliseconds of an in-process task. */
async function timeInProcess(task: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await task();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

/** Wall and CPU milliseconds of a command (CPU from /usr/bin/time). */
async function timeCommand(command: string, args: readonly string[], cwd?: string): Promise<Sample> {
  const started = performance.now();
  const { stderr } = await run("/usr/bin/time", ["-f", "%U %S", command, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  const wall = performance.now() - started;
  const [user, system] = (stderr.trim().split("\n").pop() as string).split(" ").map(Number);
  return { wall, cpu: ((user as number) + (system as number)) * 1000 };
}

const middle = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Medians of ours and the peer, run alternately (the machine is shared: alternating keeps
 * both exposed to the same background load) after one warm-up each.
 */
async function compare(runs: number, ours: () => Promise<Sample>, peer: () => Promise<Sample>, reset?: () => void): Promise<{ ours: Sample; peer: Sample }> {
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let i = -1; i < runs; i++) {
    reset?.();
    const x = await ours();
    reset?.();
    const y = await peer();
    if (i >= 0) {
      a.push(x);
      b.push(y);
    }
  }
  return {
    ours: { wall: middle(a.map((s) => s.wall)), cpu: middle(a.map((s) => s.cpu)) },
    peer: { wall: middle(b.map((s) => s.wall)), cpu: middle(b.map((s) => s.cpu)) },
  };
}

function report(label: string, oursName: string, peerName: string, result: { ours: Sample; peer: Sample }, extra = ""): void {
  const { ours, peer } = result;
  console.log(
    `${label.padEnd(8)} ${oursName} ${ms(ours.wall)} (cpu ${ms(ours.cpu)})  ${peerName} ${ms(peer.wall)} (cpu ${ms(peer.cpu)})  ` +
      `ratio wall ${(ours.wall / peer.wall).toFixed(2)}, cpu ${(ours.cpu / peer.cpu).toFixed(2)}${extra}`,
  );
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value: number): string => `${value.toFixed(value < 100 ? 1 : 0)} ms`;

async function childExtract(archive: string, target: string, io: "async" | "sync" = "async"): Promise<void> {
  fs.mkdirSync(target, { recursive: true });
  await extractArchive(archive, new DirectoryTransaction(target, { io }));
}

/** Peak RSS of a fresh process extracting `archive` (or only loading the modules, for null). */
async function peakRss(archive: string | null): Promise<number> {
  const target = fs.mkdtempSync(path.join(os.tmpdir(), "wink-archive-rss-"));
  try {
    const args = archive === null ? ["--noop"] : ["--extract", archive, path.join(target, "out")];
    const { stderr } = await run("/usr/bin/time", ["-f", "%M", process.execPath, "--import", "tsx", path.resolve("bench/archive.bench.ts"), ...args], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return Number(stderr.trim().split("\n").pop()) * 1024;
  } finally {
    fs.rmSync(target, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === "--noop") return;
  if (process.argv[2] === "--extract") {
    await childExtract(process.argv[3] as string, process.argv[4] as string);
    return;
  }
  fs.mkdirSync(WORK, { recursive: true });
  generateTree(TREE_5K, 5_000, 100 * 1024 * 1024, 1);
  generateTree(TREE_10K, 10_000, 100 * 1024 * 1024, 2);
  generateTree(TREE_5K_LARGE, 5_000, 400 * 1024 * 1024, 3);
  const out = path.join(WORK, "out");
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const stats = await treeStats(TREE_5K);
  console.log(`tree: ${stats.files} files, ${mb(stats.bytes)} (node ${process.version}, ${os.cpus().length} cores)`);

  // 1. export
  const ours = path.join(out, "ours.fs.zip");
  const theirs = path.join(out, "zip-r.zip");
  const removeZip = (): void => fs.rmSync(theirs, { force: true });
  for (const io of ["async", "sync"] as const) {
    const result = await compare(RUNS, () => timeInProcess(() => writeArchive(ours, walkDirectory(TREE_5K, { io }))), () => timeCommand("zip", ["-qr", theirs, "."], TREE_5K), removeZip);
    report("export", `writeArchive (source io: ${io})`, "zip -qr", result, `  sizes ${mb(fs.statSync(ours).size)} vs ${mb(fs.statSync(theirs).size)}`);
  }
  // What users call: the host backend's exportArchive (every read through the confined driver).
  const source = new HostFilesystem({ root: TREE_5K, readOnly: true });
  const exported = await compare(RUNS, () => timeInProcess(() => source.exportArchive(ours)), () => timeCommand("zip", ["-qr", theirs, "."], TREE_5K), removeZip);
  report("export", "HostFilesystem.exportArchive", "zip -qr", exported, `  sizes ${mb(fs.statSync(ours).size)} vs ${mb(fs.statSync(theirs).size)}`);

  // 2. import (the same archive for both), into tmpfs when there is one: file creation on the
  //    shared disk swings by 3x with other processes' I/O and would drown both tools' own cost.
  const scratch = fs.existsSync("/dev/shm") ? fs.mkdtempSync("/dev/shm/wink-archive-bench-") : fs.mkdtempSync(path.join(out, "x-"));
  const target = path.join(scratch, "extract");
  console.log(`import target: ${scratch}`);
  const clear = (): void => fs.rmSync(target, { recursive: true, force: true });
  for (const io of ["async", "sync"] as const) {
    const extracted = await compare(RUNS, () => timeInProcess(() => childExtract(ours, target, io)), () => timeCommand("unzip", ["-q", ours, "-d", target]), clear);
    report("import", `extractArchive (target io: ${io})`, "unzip -q", extracted);
  }
  // What users call: the host backend's importArchive (validate, stage, journal, swap in),
  // with its default durability (fsync) and without.
  for (const durable of [true, false]) {
    const hostImport = async (): Promise<void> => {
      fs.mkdirSync(target, { recursive: true });
      await new HostFilesystem({ root: target, stateDir: path.join(scratch, "state"), durable }).importArchive(ours);
    };
    const imported = await compare(RUNS, () => timeInProcess(hostImport), () => timeCommand("unzip", ["-q", ours, "-d", target]), clear);
    report("import", `HostFilesystem.importArchive (durable: ${durable})`, "unzip -q", imported);
  }
  fs.rmSync(scratch, { recursive: true, force: true });

  // 3. central-directory listing of a 10,000-file archive
  const list = path.join(out, "list-10k.fs.zip");
  await writeArchive(list, walkDirectory(TREE_10K, { io: "sync" }));
  let listed = 0;
  const listing = await compare(
    RUNS * 4,
    () =>
      timeInProcess(async () => {
        const reader = await openArchive(list);
        listed = reader.files.length;
        await reader.close();
      }),
    () => timeCommand("zipinfo", ["-1", list]),
  );
  report("listing", "openArchive", "zipinfo -1", listing, `  (${listed} files, ${mb(fs.statSync(list).size)} archive)`);

  // 4. import peak RSS for two archive sizes
  const big = path.join(out, "big.fs.zip");
  await writeArchive(big, walkDirectory(TREE_5K_LARGE, { io: "sync" }));
  const baseline = await peakRss(null);
  const rssSmall = await peakRss(ours);
  const rssBig = await peakRss(big);
  console.log(
    `import peak RSS  ${mb(fs.statSync(ours).size)} archive (100 MB of files): ${mb(rssSmall)}   ${mb(fs.statSync(big).size)} archive (400 MB of files): ${mb(rssBig)}   ` +
      `(process baseline ${mb(baseline)})`,
  );
  fs.rmSync(out, { recursive: true, force: true });
}

await main();
