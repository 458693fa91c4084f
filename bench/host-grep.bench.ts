/**
 * Host backend: grep (shared JS engine, with and without the ripgrep prefilter) against
 * ripgrep itself, and the cost of confinement (fd-walk through /proc/self/fd) against plain
 * path-based fs calls — all on the same generated tree in the same run.
 *
 * Tree: 5,000 files of ~26 KB (≈131 MB) in 50 directories, deterministic text; a rare
 * literal in 1 % of the files, a common one in about half of them.
 * Grep is measured with the default maxMatches (1,000), as an agent would call it.
 * "HostFilesystem.grep" is the real path: the driver's `grepCandidates` hook runs
 * `rg --fixed-strings --files-with-matches` with the pattern's literal or required literal
 * (column "rg literal"), then the shared JS grep searches only those files. "plain JS" is the
 * same engine over a driver without the hook (every file read); the two results are checked
 * to be identical.
 * Each figure is the median of 5 runs after one warm-up (page cache warm).
 *
 * Run: node --import tsx bench/host-grep.bench.ts
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { isDeepStrictEqual } from "node:util";
import { DriverFilesystem } from "../shared/filesystem/driver-backed/driver-filesystem.js";
import { compileGrepPattern } from "../shared/filesystem/grep-engine.js";
import { HostDriver } from "../shared/filesystem/host/host-driver.js";
import { HostFilesystem } from "../shared/filesystem/host/host-filesystem.js";
import { restrictedTo } from "../shared/filesystem/host/host.test-support.js";
import { literalOfPattern, prefilterLiteral } from "../shared/filesystem/host/ripgrep-prefilter.js";

const FILES = 5_000;
const LINES_PER_FILE = 400;
const RUNS = 5;
const WORK = path.resolve("bench/.work/host-grep");
const ROOT = path.join(WORK, "tree");
const MARKER = path.join(WORK, `complete-${FILES}-${LINES_PER_FILE}`);
const run = promisify(execFile);

function generate(): void {
  if (fs.existsSync(MARKER)) return;
  fs.rmSync(WORK, { recursive: true, force: true });
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const words = ["alpha", "beta", "gamma", "delta", "const", "return", "value", "index", "buffer", "stream", "token", "result", "error", "path", "node"];
  for (let i = 0; i < FILES; i++) {
    const lines: string[] = [];
    for (let l = 0; l < LINES_PER_FILE; l++) {
      const count = 6 + Math.floor(random() * 6);
      const parts: string[] = [];
      for (let w = 0; w < count; w++) parts.push(words[Math.floor(random() * words.length)] as string);
      if (l === 200 && i % 100 === 7) parts.push("wink_needle_42");
      if (l === 300 && i % 2 === 0) parts.push("lorem_common");
      lines.push(parts.join(" "));
    }
    const file = path.join(ROOT, `d${i % 50}`, `f${i}.ts`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
  }
  fs.writeFileSync(MARKER, "");
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}


async function plainWalk(dir: string, out: string[]): Promise<void> {
  for (const name of await fs.promises.readdir(dir)) {
    const full = path.join(dir, name);
    const stats = await fs.promises.lstat(full);
    if (stats.isDirectory()) await plainWalk(full, out);
    else if (stats.isFile()) out.push(full);
  }
}

const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

async function main(): Promise<void> {
  generate();
  const stateDir = path.join(WORK, "state");
  const host = new HostFilesystem({ root: ROOT, stateDir });
  const driver = new HostDriver({ root: ROOT, stateDir });

  console.log(`tree: ${FILES} files, ${(Number((await run("du", ["-sb", ROOT])).stdout.split("\t")[0]) / 1e6).toFixed(0)} MB\n`);
  const everyFile = new Set<string>();
  for await (const entry of driver.walk("")) if (entry.kind === "file") everyFile.add(entry.path);
  // No grepCandidates hook: the unaccelerated engine reads and decodes every file.
  const plainFs = new DriverFilesystem(restrictedTo(driver, everyFile));
  console.log("pattern          | rg literal       | plain JS | HostFilesystem.grep | rg --json | plain/rg | grep/rg | matches");
  for (const pattern of ["wink_needle_42", "lorem_common", "needle_\\d+", "(?i)WINK_NEEDLE"]) {
    const plain = await plainFs.grep(pattern);
    const accelerated = await host.grep(pattern);
    if (!isDeepStrictEqual(plain, accelerated)) throw new Error(`prefilter changed the results for ${pattern}`);
    // What DriverFilesystem.grep hands the hook: the compiled source and its case rule.
    const compiled = compileGrepPattern(pattern, { maxLength: 4096 });
    const prefilter = prefilterLiteral(compiled.source, compiled.flags.includes("i"));
    const js = await median(() => plainFs.grep(pattern));
    const pre = await median(() => host.grep(pattern));
    const rgArgs = ["--json", "--hidden", "--no-ignore", ...(literalOfPattern(pattern, false) === null ? [] : ["-F"]), "-e", pattern, "--", "."];
    const rg = await median(() => run("rg", rgArgs, { cwd: ROOT, maxBuffer: 1 << 30 }).catch(() => undefined));
    const literal = prefilter === null ? "none" : `${prefilter.literal}${prefilter.ignoreCase ? " (-i)" : ""}`;
    console.log(
      `${pattern.padEnd(16)} | ${literal.padEnd(16)} | ${fmt(js).padStart(8)} | ${fmt(pre).padStart(19)} | ${fmt(rg).padStart(9)} | ${ratio(js, rg).padStart(8)} | ${ratio(pre, rg).padStart(7)} | ${plain.length}`,
    );
  }

  const files: string[] = [];
  await plainWalk(ROOT, files);
  const rels = files.map((f) => path.relative(ROOT, f));
  const walkConfined = await median(async () => {
    let n = 0;
    for await (const entry of driver.walk("")) if (entry.kind === "file") n++;
    return n;
  });
  const walkPlain = await median(() => plainWalk(ROOT, []));
  const readConfined = await median(async () => {
    for (let i = 0; i < rels.length; i += 64) await Promise.all(rels.slice(i, i + 64).map((rel) => driver.readFile(rel)));
  });
  const readPlain = await median(async () => {
    for (let i = 0; i < files.length; i += 64) await Promise.all(files.slice(i, i + 64).map((file) => fs.promises.readFile(file)));
  });
  const smallWrites = async (durable: boolean): Promise<number> => {
    const writer = new HostDriver({ root: ROOT, stateDir, durable });
    return median(async () => {
      for (let i = 0; i < 200; i++) await writer.writeFile(`w/f${i}.txt`, new TextEncoder().encode(`content ${i}`), { mode: "overwrite", createParents: true });
    });
  };
  const writeDurable = await smallWrites(true);
  const writeFast = await smallWrites(false);
  const writePlain = await median(async () => {
    fs.mkdirSync(path.join(ROOT, "w"), { recursive: true });
    for (let i = 0; i < 200; i++) await fs.promises.writeFile(path.join(ROOT, "w", `f${i}.txt`), `content ${i}`);
  });
  fs.rmSync(path.join(ROOT, "w"), { recursive: true, force: true });
  console.log("\nconfinement cost                          | confined | plain fs | ratio");
  console.log(`walk ${FILES} files (lstat each)              | ${fmt(walkConfined).padStart(8)} | ${fmt(walkPlain).padStart(8)} | ${ratio(walkConfined, walkPlain)}`);
  console.log(`read ${FILES} files (64 in flight)            | ${fmt(readConfined).padStart(8)} | ${fmt(readPlain).padStart(8)} | ${ratio(readConfined, readPlain)}`);
  console.log(`200 overwrites, atomic + fsync            | ${fmt(writeDurable).padStart(8)} | ${fmt(writePlain).padStart(8)} | ${ratio(writeDurable, writePlain)}`);
  console.log(`200 overwrites, atomic, durable: false    | ${fmt(writeFast).padStart(8)} | ${fmt(writePlain).padStart(8)} | ${ratio(writeFast, writePlain)}`);
}

await main();
