/**
 * Host snapshots (git, reflink, copy, archive strategies) against the bare git CLI doing the
 * same work on an identical tree, in the same run:
 *
 *   first snapshot        ours: snapshot()            git: add -A && commit
 *   incremental (10 edits) ours: snapshot()            git: add -A && commit
 *   restore (10 edits back) ours: restore(first)       git: reset --hard <first> && clean -fdx
 *
 * Trees: N files of 100–900 bytes, 100 per directory (deterministic content); the 10 edits
 * overwrite 10 spread-out files. Incremental and restore figures are the median of REPEATS
 * rounds (edit 10 → snapshot → restore), each strategy on its own copy of the tree. The
 * applier runs with `durable: false` (bare git does not fsync either); "git+fsync" shows the
 * default durable restore. Bare git runs with gc.auto=0 (no background gc mid-measurement). reflink runs on a loop-mounted XFS image when the temp dir cannot
 * clone (root and mkfs.xfs needed; otherwise it is reported as unavailable).
 *
 * First restore in a new process (git, the default strategy): what an agent rolling back or
 * a CLI pays, since it restores once per process. A workspace is snapshotted twice (3 files
 * changed in between) by this process; then, REPEATS times, 3 files are changed and a fresh
 * Node process (bench/first-restore-child.mjs, on the built library in dist/) restores the
 * first snapshot, timing that first call, changes the files again and times a second
 * (warm) restore. Peer: `git reset --hard && git clean -fdx` with 3 files changed.
 *
 * Default retention (10 snapshots kept): the git strategy's incremental snapshot while fewer
 * than 10 are kept, and once every snapshot also releases the oldest (refs at once, one
 * `git gc` per 10 releases), the median of 20 such snapshots, as a ratio to bare git's
 * incremental commit.
 *
 * Trees are generated once into bench/.work/host-snapshots/ and copied for each measurement.
 *
 * Run: node --import tsx bench/host-snapshots.bench.ts [5000,50000]   (FIRST_RESTORE_ONLY=1: only the new-process restores)
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

import { HostFilesystem } from "../shared/filesystem/host/host-filesystem.js";
import { HostSnapshots } from "../shared/filesystem/host/snapshots/host-snapshots.js";
import { ReflinkArea } from "../shared/filesystem/host/snapshots/snapshot.test-support.js";
import type { HostSnapshotStrategyName } from "../shared/filesystem/host/snapshots/strategy.js";
import type { FilesystemSnapshot } from "../shared/filesystem/snapshot-contract.js";

const SIZES = (process.argv[2] ?? "5000,10000,50000").split(",").map(Number);
const REPEATS = 5;
const EDITS = 10;
const RACY_WAIT_MS = 150;
const FIRST_RESTORE_ONLY = process.env.FIRST_RESTORE_ONLY === "1";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

function generate(root: string, files: number): void {
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `g${Math.floor(i / 10_000)}`, `d${Math.floor(i / 100) % 100}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const line = `file ${i} ${random().toString(36)} lorem ipsum dolor sit amet\n`;
    writeFileSync(path.join(dir, `f${i}.txt`), line.repeat(2 + (random() % 15)));
  }
}

/** Generated trees, kept between runs (50,000 files take a while to write on a busy machine). */
const TREES = path.resolve(import.meta.dirname, ".work", "host-snapshots");

/** The pristine tree of `files` files, generated on first use into bench/.work/host-snapshots/tree-N. */
function pristineTree(files: number): string {
  const dir = path.join(TREES, `tree-${files}`);
  const done = path.join(TREES, `tree-${files}.done`);
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  generate(dir, files);
  writeFileSync(done, `${files}\n`);
  return dir;
}

function editPaths(files: number): string[] {
  return Array.from({ length: EDITS }, (_, k) => {
    const i = Math.floor(((k + 0.5) * files) / EDITS);
    return path.join(`g${Math.floor(i / 10_000)}`, `d${Math.floor(i / 100) % 100}`, `f${i}.txt`);
  });
}

function edit(root: string, files: number, round: number): void {
  for (const rel of editPaths(files)) writeFileSync(path.join(root, rel), `edited in round ${round}\n`);
}

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

interface Figures {
  first: number;
  incremental: number;
  restore: number;
}

function bareGit(root: string, gitDir: string, ...args: string[]): void {
  execFileSync("git", [`--git-dir=${gitDir}`, `--work-tree=${root}`, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0", "-c", "maintenance.auto=false", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: gitDir, GIT_CONFIG_NOSYSTEM: "1" },
    stdio: "ignore",
  });
}

async function measureBareGit(root: string, files: number): Promise<Figures> {
  const gitDir = mkdtempSync(path.join(tmpdir(), "wink-bench-bare-"));
  try {
    execFileSync("git", ["init", "-q", "--bare", gitDir]);
    await sleep(RACY_WAIT_MS);
    const commit = (message: string) => () => {
      bareGit(root, gitDir, "add", "-A", ".");
      bareGit(root, gitDir, "commit", "-q", "-m", message);
    };
    const [, first] = await timed(commit("first"));
    const base = execFileSync("git", [`--git-dir=${gitDir}`, "rev-parse", "HEAD"]).toString().trim();
    const incremental: number[] = [];
    const restore: number[] = [];
    for (let round = 0; round < REPEATS; round++) {
      edit(root, files, round);
      incremental.push((await timed(commit(`round ${round}`)))[1]);
      const reset = (): void => {
        bareGit(root, gitDir, "reset", "-q", "--hard", base);
        bareGit(root, gitDir, "clean", "-fdxq");
      };
      restore.push((await timed(reset))[1]);
    }
    return { first, incremental: median(incremental), restore: median(restore) };
  } finally {
    rmSync(gitDir, { recursive: true, force: true });
  }
}

async function measureOurs(root: string, files: number, strategy: HostSnapshotStrategyName, storageParent: string, durable = false): Promise<Figures> {
  const state = mkdtempSync(path.join(tmpdir(), "wink-bench-state-"));
  const storage = path.join(storageParent, `store-${strategy}-${files}`);
  const filesystem = strategy === "archive" ? new HostFilesystem({ root, stateDir: state, durable }) : null;
  const snapshots = new HostSnapshots(root, {
    strategy,
    ...(strategy === "git" ? { gitDir: storage } : { snapshotDir: storage }),
    treeApply: { stateDir: state, durable },
    filesystem,
  });
  try {
    await sleep(RACY_WAIT_MS);
    const [base, first] = await timed(() => snapshots.snapshot());
    const incremental: number[] = [];
    const restore: number[] = [];
    const rounds = strategy === "archive" && files > 10_000 ? 1 : REPEATS;
    for (let round = 0; round < rounds; round++) {
      edit(root, files, round);
      incremental.push((await timed(() => snapshots.snapshot()))[1]);
      restore.push((await timed(() => snapshots.restore(base as FilesystemSnapshot)))[1]);
    }
    return { first, incremental: median(incremental), restore: median(restore) };
  } finally {
    await snapshots.cleanup();
    rmSync(state, { recursive: true, force: true });
  }
}

/** The built library the new processes restore with (`WINK_LIBRARY=…/dist/shared/index.js` measures another build). */
const LIBRARY = process.env.WINK_LIBRARY ?? path.resolve(import.meta.dirname, "..", "dist", "shared", "index.js");
const CHILD = path.join(import.meta.dirname, "first-restore-child.mjs");
const FIRST_EDITS = 3;

interface FirstRestore {
  first: number;
  warm: number;
  bare: number;
  /** Every round's figures: first call, warm call, bare git. */
  rounds: [number, number, number][];
}

/** First and warm git restores in fresh processes, next to bare git (see the module comment). */
async function measureFirstRestore(pristine: string, work: string, files: number): Promise<FirstRestore> {
  const root = path.join(work, "first-restore");
  const bare = path.join(work, "first-restore-bare");
  cpSync(pristine, root, { recursive: true });
  cpSync(pristine, bare, { recursive: true });
  const edits = editPaths(files).slice(0, FIRST_EDITS);
  const gitDir = path.join(work, "first-restore-git");
  const state = mkdtempSync(path.join(tmpdir(), "wink-bench-state-"));
  const bareGitDir = mkdtempSync(path.join(tmpdir(), "wink-bench-bare-"));
  try {
    const snapshots = new HostSnapshots(root, { strategy: "git", gitDir, treeApply: { stateDir: state, durable: false } });
    await sleep(RACY_WAIT_MS);
    const base = await snapshots.snapshot();
    for (const rel of edits) writeFileSync(path.join(root, rel), "changed before the second snapshot\n");
    await snapshots.snapshot();
    execFileSync("git", ["init", "-q", "--bare", bareGitDir]);
    bareGit(bare, bareGitDir, "add", "-A", ".");
    bareGit(bare, bareGitDir, "commit", "-q", "-m", "base");
    const first: number[] = [];
    const warm: number[] = [];
    const peer: number[] = [];
    for (let round = 0; round < REPEATS; round++) {
      for (const rel of edits) writeFileSync(path.join(root, rel), `edited in round ${round}\n`);
      const output = execFileSync(process.execPath, [CHILD, LIBRARY, root, gitDir, state, JSON.stringify(base), JSON.stringify(edits)]).toString();
      const figures = JSON.parse(output) as { first: number; warm: number };
      first.push(figures.first);
      warm.push(figures.warm);
      for (const rel of edits) writeFileSync(path.join(bare, rel), `edited in round ${round}\n`);
      peer.push(
        (
          await timed(() => {
            bareGit(bare, bareGitDir, "reset", "-q", "--hard", "HEAD");
            bareGit(bare, bareGitDir, "clean", "-fdxq");
          })
        )[1],
      );
    }
    return { first: median(first), warm: median(warm), bare: median(peer), rounds: first.map((value, i) => [value, warm[i] as number, peer[i] as number]) };
  } finally {
    rmSync(state, { recursive: true, force: true });
    rmSync(bareGitDir, { recursive: true, force: true });
  }
}

function reportFirstRestore(fresh: FirstRestore, files: number): void {
  const ratio = (value: number): string => `${value.toFixed(0)} ms (${(value / fresh.bare).toFixed(2)}×)`;
  console.log(`${files.toLocaleString("en-US")} files, git restore of ${FIRST_EDITS} changed files in a new process: first call ${ratio(fresh.first)}, warm ${ratio(fresh.warm)}; bare git reset --hard + clean -fdx ${fresh.bare.toFixed(0)} ms (medians of ${REPEATS})`);
  console.log(`   rounds (first / warm / bare git, ms): ${fresh.rounds.map((round) => round.map((value) => value.toFixed(0)).join(" / ")).join(";  ")}`);
}

/** Snapshots past the 10th: each releases the oldest (default retention), git collecting every 10 releases. */
const RETENTION_ROUNDS = 20;

async function measureRetention(root: string, files: number, storageParent: string): Promise<{ kept: number; pruning: number }> {
  const state = mkdtempSync(path.join(tmpdir(), "wink-bench-state-"));
  const snapshots = new HostSnapshots(root, { strategy: "git", gitDir: path.join(storageParent, `store-retention-${files}`), treeApply: { stateDir: state, durable: false } });
  try {
    await sleep(RACY_WAIT_MS);
    await snapshots.snapshot();
    const before: number[] = [];
    const pruning: number[] = [];
    for (let round = 0; round < 10 + RETENTION_ROUNDS; round++) {
      edit(root, files, round);
      const [, ms] = await timed(() => snapshots.snapshot());
      (round < 9 ? before : pruning).push(ms);
    }
    if ((await snapshots.list()).length !== 10) throw new Error("default retention did not keep 10 snapshots");
    return { kept: median(before), pruning: median(pruning) };
  } finally {
    await snapshots.cleanup();
    rmSync(state, { recursive: true, force: true });
  }
}

function row(label: string, ours: Figures | null, git: Figures): string {
  if (ours === null) return `${label.padEnd(12)} unavailable here`;
  const cell = (a: number, b: number): string => `${a.toFixed(0).padStart(7)} ms ${`(${(a / b).toFixed(2)}×)`.padStart(9)}`;
  return `${label.padEnd(12)} ${cell(ours.first, git.first)}  ${cell(ours.incremental, git.incremental)}  ${cell(ours.restore, git.restore)}`;
}

async function main(): Promise<void> {
  if (!existsSync(LIBRARY)) throw new Error("dist/shared/index.js is missing: run npm run build first (npm run bench does)");
  const reflink = ReflinkArea.create("1G");
  try {
    console.log(`host snapshots vs bare git CLI — ${EDITS} edits, median of ${REPEATS} rounds; ratio = ours / bare git`);
    for (const files of SIZES) {
      const work = mkdtempSync(path.join(tmpdir(), "wink-bench-snapshots-"));
      try {
        const pristine = pristineTree(files);
        const copy = (name: string, parent = work): string => {
          const dir = path.join(parent, name);
          cpSync(pristine, dir, { recursive: true });
          return dir;
        };
        if (FIRST_RESTORE_ONLY) {
          reportFirstRestore(await measureFirstRestore(pristine, work, files), files);
          continue;
        }
        const git = await measureBareGit(copy("bare-git"), files);
        const results: [string, Figures | null][] = [];
        for (const strategy of ["git", "copy", "archive"] as const) results.push([strategy, await measureOurs(copy(strategy), files, strategy, work)]);
        results.push(["git+fsync", await measureOurs(copy("git-durable"), files, "git", work, true)]);
        if (reflink.dir !== null) {
          const area = mkdtempSync(path.join(reflink.dir, "bench-"));
          try {
            results.push(["reflink", await measureOurs(copy("reflink", area), files, "reflink", area)]);
          } finally {
            rmSync(area, { recursive: true, force: true });
          }
        } else results.push(["reflink", null]);
        console.log(`\n${files.toLocaleString("en-US")} files        first snapshot        incremental           restore`);
        console.log(row("bare git", git, git));
        for (const [label, figures] of results) console.log(row(label, figures, git));
        reportFirstRestore(await measureFirstRestore(pristine, work, files), files);
        const retention = await measureRetention(copy("retention"), files, work);
        console.log(
          `git incremental under default retention: ${retention.kept.toFixed(0)} ms while < 10 are kept, ${retention.pruning.toFixed(0)} ms (${(retention.pruning / git.incremental).toFixed(2)}× bare git) ` +
            `once each snapshot releases the oldest (median of ${RETENTION_ROUNDS}, one git gc per 10 releases included)`,
        );
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
  } finally {
    reflink.dispose();
  }
}

await main();
