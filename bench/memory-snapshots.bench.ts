/**
 * Snapshot cost of the in-memory backend's copy-on-write tree against the naive approach
 * (copy a Map of every path per snapshot), measured in the same run.
 *
 * Workload per size (1k, 10k, 100k files in directories of at most 100 entries, and 100k
 * files in a single directory for the copy-on-write tree): take 100
 * snapshots with 10 overwrites of existing files after each, keeping every snapshot.
 * Reported: median time of one snapshot, total workload time, retained heap growth with
 * all snapshots held, and the time to diff the first snapshot against the last (median of
 * 7 calls; the naive diff compares entries by identity only, so it is a lower bound).
 * Each figure is the median of several runs (the copy-on-write runs take milliseconds,
 * so they are repeated more often than the naive ones).
 *
 * Run: node --expose-gc --import tsx bench/memory-snapshots.bench.ts
 */
import { performance } from "node:perf_hooks";
import { MemoryDriver } from "../shared/filesystem/memory/memory-driver.js";
import { MemorySnapshots } from "../shared/filesystem/memory/memory-snapshots.js";
import type { FilesystemSnapshot } from "../shared/filesystem/snapshot-contract.js";

const SIZES = [1_000, 10_000, 100_000];
const SNAPSHOTS = 100;
const EDITS_PER_SNAPSHOT = 10;
const COW_REPEATS = 11;
const NAIVE_REPEATS = 3;
const overwrite = { mode: "overwrite", createParents: true } as const;

const collectGarbage = (globalThis as { gc?: () => void }).gc;
if (collectGarbage === undefined) {
  console.error("Run with node --expose-gc so heap growth can be measured.");
  process.exit(1);
}

/** Balanced layout: g<k>/d<j>/f<i>.txt, at most 100 entries per directory. */
function balancedPath(i: number): string {
  const dir = Math.floor(i / 100);
  return `g${Math.floor(dir / 100)}/d${dir % 100}/f${i % 100}.txt`;
}

/** Deterministic edit targets, the same for both approaches. */
function* editTargets(files: number): Generator<number> {
  let state = 0x2545f491;
  for (;;) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    yield (state >>> 0) % files;
  }
}

function content(i: number, version: number): Uint8Array {
  return new TextEncoder().encode(`file ${i} version ${version}\n`);
}

function heapBytes(): number {
  collectGarbage?.();
  collectGarbage?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/** Median of a few timed calls: a single call right after a forced GC runs cold. */
function timeMedian(action: () => void, calls = 7): number {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    action();
    times.push(performance.now() - t0);
  }
  return median(times);
}

interface Result {
  snapshotMs: number;
  workloadMs: number;
  /** CPU time of the process during the workload: steadier than wall time on a busy machine. */
  workloadCpuMs: number;
  heapBytes: number;
  diffMs: number;
  check: number;
}

/** Every file in one directory: the worst case for copying a directory on write. */
function flatPath(i: number): string {
  return `flat/f${i}.txt`;
}

let filePath = balancedPath;

async function runCow(files: number): Promise<Result> {
  const driver = new MemoryDriver();
  for (let i = 0; i < files; i++) await driver.writeFile(filePath(i), content(i, 0), overwrite);
  const snapshots = new MemorySnapshots(driver, null);
  const targets = editTargets(files);
  const before = heapBytes();
  const snapshotTimes: number[] = [];
  const taken: FilesystemSnapshot[] = [];
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let s = 1; s <= SNAPSHOTS; s++) {
    const t0 = performance.now();
    taken.push(snapshots.take(`s${s}`));
    snapshotTimes.push(performance.now() - t0);
    for (let e = 0; e < EDITS_PER_SNAPSHOT; e++) {
      const i = targets.next().value as number;
      await driver.writeFile(filePath(i), content(i, s), overwrite);
    }
  }
  const workloadMs = performance.now() - start;
  const workloadCpuMs = cpuMs(process.cpuUsage(cpuStart));
  const heap = heapBytes() - before;
  let modified = 0;
  const diffMs = timeMedian(() => {
    modified = snapshots.diff(taken[0]!, taken[taken.length - 1]!).modified.length;
  });
  return { snapshotMs: median(snapshotTimes), workloadMs, workloadCpuMs, heapBytes: heap, diffMs, check: modified };
}

interface NaiveFile {
  readonly data: Uint8Array;
  readonly mode: number;
  readonly mtimeMs: number;
}

/** The peer: the current state is a Map of every path; a snapshot copies it. */
async function runNaive(files: number): Promise<Result> {
  let current = new Map<string, NaiveFile>();
  for (let i = 0; i < files; i++) current.set(filePath(i), { data: content(i, 0), mode: 0o644, mtimeMs: Date.now() });
  const targets = editTargets(files);
  const before = heapBytes();
  const snapshotTimes: number[] = [];
  const taken: Map<string, NaiveFile>[] = [];
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let s = 1; s <= SNAPSHOTS; s++) {
    const t0 = performance.now();
    taken.push(current);
    current = new Map(current);
    snapshotTimes.push(performance.now() - t0);
    for (let e = 0; e < EDITS_PER_SNAPSHOT; e++) {
      const i = targets.next().value as number;
      current.set(filePath(i), { data: content(i, s), mode: 0o644, mtimeMs: Date.now() });
    }
  }
  const workloadMs = performance.now() - start;
  const workloadCpuMs = cpuMs(process.cpuUsage(cpuStart));
  const heap = heapBytes() - before;
  const base = taken[0]!;
  const target = taken[taken.length - 1]!;
  let modified = 0;
  const diffMs = timeMedian(() => {
    modified = 0;
    for (const [path, file] of base) {
      const other = target.get(path);
      if (other !== undefined && other !== file) modified++;
    }
  });
  return { snapshotMs: median(snapshotTimes), workloadMs, workloadCpuMs, heapBytes: heap, diffMs, check: modified };
}

async function measure(run: (files: number) => Promise<Result>, files: number, repeats: number): Promise<Result> {
  const results: Result[] = [];
  for (let r = 0; r < repeats; r++) results.push(await run(files));
  const pick = (key: keyof Result): number => median(results.map((result) => result[key]));
  return {
    snapshotMs: pick("snapshotMs"),
    workloadMs: pick("workloadMs"),
    workloadCpuMs: pick("workloadCpuMs"),
    heapBytes: pick("heapBytes"), diffMs: pick("diffMs"), check: pick("check") };
}

const fmtMs = (ms: number): string => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
const fmtMb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

async function main(): Promise<void> {
  console.log(
    `memory snapshots: ${SNAPSHOTS} snapshots × ${EDITS_PER_SNAPSHOT} edits, median of ${COW_REPEATS} (cow) / ${NAIVE_REPEATS} (naive) runs (node ${process.version})`,
  );
  console.log("files    approach  one snapshot  workload     (cpu)        heap growth  diff first→last");
  // Warm the JIT on both code paths so the first (smallest) size is not measured cold.
  for (let r = 0; r < 3; r++) {
    await runCow(SIZES[0] as number);
    await runNaive(SIZES[0] as number);
  }
  const cow: Result[] = [];
  for (const files of SIZES) {
    const mine = await measure(runCow, files, COW_REPEATS);
    const peer = await measure(runNaive, files, NAIVE_REPEATS);
    if (mine.check !== peer.check) throw new Error(`diff mismatch at ${files}: ${mine.check} vs ${peer.check}`);
    cow.push(mine);
    for (const [name, r] of [["cow", mine], ["naive", peer]] as const) {
      console.log(
        `${String(files).padEnd(8)} ${name.padEnd(9)} ${fmtMs(r.snapshotMs).padEnd(13)} ${fmtMs(r.workloadMs).padEnd(12)} ${fmtMs(r.workloadCpuMs).padEnd(12)} ${fmtMb(r.heapBytes).padEnd(12)} ${fmtMs(r.diffMs)}`,
    );
    }
    console.log(
      `${String(files).padEnd(8)} naive/cow: workload ${(peer.workloadMs / mine.workloadMs).toFixed(1)}×, heap ${(peer.heapBytes / mine.heapBytes).toFixed(1)}×, diff ${(peer.diffMs / mine.diffMs).toFixed(1)}×`,
    );
  }
  filePath = flatPath;
  const flat = await measure(runCow, SIZES[SIZES.length - 1] as number, COW_REPEATS);
  filePath = balancedPath;
  console.log(
    `${String(SIZES[SIZES.length - 1])} in one directory: cow snapshot ${fmtMs(flat.snapshotMs)}, workload ${fmtMs(flat.workloadMs)} (cpu ${fmtMs(flat.workloadCpuMs)}), ` +
      `heap growth ${fmtMb(flat.heapBytes)}, diff ${fmtMs(flat.diffMs)}`,
  );
  const small = cow[0]!;
  const large = cow[cow.length - 1]!;
  console.log(
    `cow cost 100k/1k: workload ${(large.workloadMs / small.workloadMs).toFixed(2)}× (cpu ${(large.workloadCpuMs / small.workloadCpuMs).toFixed(2)}×), heap ${(large.heapBytes / small.heapBytes).toFixed(2)}×, ` +
      `snapshot ${(large.snapshotMs / small.snapshotMs).toFixed(2)}× (target ≤ 2×)`,
  );
}

await main();
