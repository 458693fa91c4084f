/**
 * The workspace walk on worker threads.
 *
 * A walk is one `lstat` per file, and here the syscall itself is the cost (~3 µs; Node adds
 * little): 50,000 files take ~150 ms on one thread whatever the JavaScript around it does.
 * git spreads the same stats over threads (`core.preloadIndex`), so we do too: workers
 * read directories and lstat their entries, sending back names and stat fields in bulk
 * (one string and one transferred Float64Array per directory); this thread hands out the
 * directories and feeds the results to the same `ScanCollector` as the synchronous walk.
 * Same rules: symlinks are never followed (lstat only), names are raw bytes.
 *
 * The pool is shared by the process, started the first time a walk finds a big workspace
 * (threads take ~25 ms to start; snapshot operations start it once they are over and the
 * process is idle, see `startPoolLater`), and unreferenced while idle so it never keeps a
 * process alive. Should a worker fail, the pool is dropped and walks run on this thread again.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

import { ScanCollector, ScanError, scanAgainstIndex, type IndexedScan, type LeafKind, type ScanBaseline, type ScanOptions } from "./workspace-scan.js";

/** Below this many entries a walk stays on this thread (hand-offs would cost more than they save). */
export const PARALLEL_SCAN_MIN_ENTRIES = 2_000;

/** Stat fields per entry in a directory result: code, mode, size, mtimeMs, ctimeMs, ino. */
const FIELDS = 6;
const FILE = 0;
const SYMLINK = 1;
const DIRECTORY = 2;
const OTHER = 3;
const VANISHED = 4;
const FAILED = 5;
/** Batches each worker may hold at once (one being walked, one waiting). */
const DEPTH = 2;
const MAX_BATCH = 32;

/**
 * The worker, as plain CommonJS evaluated in the thread: no loader or transpiler needed, so
 * it starts the same under tsx, vitest and the built package.
 */
const WORKER_SOURCE = `"use strict";
const { parentPort } = require("node:worker_threads");
const { lstatSync, readdirSync } = require("node:fs");
const ASCII = /^[\\x00-\\x7f]*$/;
const fsPath = (p) => (ASCII.test(p) ? p : Buffer.from(p, "latin1"));
parentPort.on("message", (request) => {
  const results = [];
  const transfer = [];
  for (const dir of request.dirs) {
    const dirPath = dir === "" ? request.root : request.root.endsWith("/") ? request.root + dir : request.root + "/" + dir;
    let names;
    try {
      names = readdirSync(fsPath(dirPath), { encoding: "latin1" });
    } catch (error) {
      results.push({ dir, code: String(error.code), message: String(error.message) });
      continue;
    }
    const prefix = dirPath.endsWith("/") ? dirPath : dirPath + "/";
    const stats = new Float64Array(names.length * ${FIELDS});
    const failures = [];
    for (let i = 0; i < names.length; i++) {
      const at = i * ${FIELDS};
      let st;
      try {
        st = lstatSync(fsPath(prefix + names[i]), { throwIfNoEntry: false });
      } catch (error) {
        stats[at] = ${FAILED};
        failures.push([i, String(error.code), String(error.message)]);
        continue;
      }
      if (st === undefined) {
        stats[at] = ${VANISHED};
        continue;
      }
      stats[at] = st.isFile() ? ${FILE} : st.isSymbolicLink() ? ${SYMLINK} : st.isDirectory() ? ${DIRECTORY} : ${OTHER};
      stats[at + 1] = st.mode;
      stats[at + 2] = st.size;
      stats[at + 3] = st.mtimeMs;
      stats[at + 4] = st.ctimeMs;
      stats[at + 5] = st.ino;
    }
    results.push({ dir, names: names.join("/"), stats, failures });
    transfer.push(stats.buffer);
  }
  parentPort.postMessage({ scan: request.scan, results }, transfer);
});
parentPort.postMessage({ ready: true });
`;

/** One directory as a worker reports it. */
interface DirectoryResult {
  readonly dir: string;
  /** readdir failed. */
  readonly code?: string;
  readonly message?: string;
  /** Names joined with "/" (a name never holds one). */
  readonly names?: string;
  readonly stats?: Float64Array;
  readonly failures?: [number, string, string][];
}

interface WorkerReply {
  readonly ready?: true;
  readonly scan?: number;
  readonly results?: DirectoryResult[];
}

/** What one walk on the pool is doing. */
interface ActiveScan {
  readonly id: number;
  readonly onResults: (worker: number, results: DirectoryResult[]) => void;
  readonly onFailure: (error: Error) => void;
}

function failureOf(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

class ScanPool {
  private readonly workers: Worker[] = [];
  private startedCount = 0;
  private failure: Error | null = null;
  private readonly whenReady: Promise<void>;
  private active: ActiveScan | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private scans = 0;
  /** Walks waiting or running: the threads keep the process alive only while there are some. */
  private users = 0;
  private closed = false;

  constructor(size: number) {
    this.whenReady = new Promise((resolve, reject) => {
      for (let i = 0; i < size; i++) {
        const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], stdout: false, stderr: false });
        worker.on("message", (reply: WorkerReply) => {
          if (reply.ready === true) {
            if (++this.startedCount === size) resolve();
          } else if (this.active !== null && reply.scan === this.active.id && reply.results !== undefined) {
            this.active.onResults(i, reply.results);
          }
        });
        const broken = (error: Error): void => {
          this.failure ??= error;
          reject(this.failure);
          this.active?.onFailure(this.failure);
          void this.close();
        };
        worker.on("error", broken);
        worker.on("exit", (code) => broken(new Error(`scan worker exited (${code})`)));
        // After the listeners: adding a "message" listener references the worker's port again.
        worker.unref();
        this.workers.push(worker);
      }
    });
    this.whenReady.catch(() => undefined);
  }

  /** Resolves when every thread is up; rejects when one failed. */
  untilReady(): Promise<void> {
    return this.whenReady;
  }

  get ready(): boolean {
    return this.failure === null && this.startedCount === this.workers.length;
  }

  /** Walk `rootBytes` on the workers (one walk at a time; later ones wait their turn). */
  scan(rootBytes: string, baseline: ScanBaseline | null, options: ScanOptions): Promise<IndexedScan> {
    if (this.users++ === 0) for (const worker of this.workers) worker.ref();
    const run = this.queue
      .then(async () => {
        await this.whenReady;
        return this.walk(rootBytes, baseline, options);
      })
      .finally(() => {
        if (--this.users === 0) for (const worker of this.workers) worker.unref();
      });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private walk(rootBytes: string, baseline: ScanBaseline | null, options: ScanOptions): Promise<IndexedScan> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const collector = new ScanCollector(baseline);
    const excludePrefix = options.excludeTopLevelPrefix;
    const pending: string[] = [""];
    const held = this.workers.map(() => 0);
    let outstanding = 0;
    const id = ++this.scans;
    return new Promise<IndexedScan>((resolve, reject) => {
      let settled = false;
      const settle = (error: Error | null): void => {
        if (settled) return;
        settled = true;
        this.active = null;
        if (error === null) resolve(collector.finish());
        else reject(error);
      };
      const dispatch = (): void => {
        for (let w = 0; w < this.workers.length && pending.length > 0; w++) {
          while (held[w]! < DEPTH && pending.length > 0) {
            const take = Math.min(MAX_BATCH, Math.max(1, Math.ceil(pending.length / (this.workers.length * DEPTH))));
            held[w]! += 1;
            outstanding += 1;
            this.workers[w]!.postMessage({ scan: id, root: rootBytes, dirs: pending.splice(pending.length - take, take) });
          }
        }
        if (outstanding === 0 && pending.length === 0) settle(null);
      };
      const collect = (result: DirectoryResult): void => {
        const { dir } = result;
        if (result.code !== undefined) {
          if (dir !== "" && (result.code === "ENOENT" || result.code === "ENOTDIR")) collector.vanishedDirectory(dir);
          else throw new ScanError(dir, result.code, failureOf(result.code, result.message ?? result.code));
          return;
        }
        const names = result.names === "" || result.names === undefined ? [] : result.names.split("/");
        const stats = result.stats as Float64Array;
        let hasLeaf = false;
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string;
          if (dir === "" && excludePrefix !== undefined && name.startsWith(excludePrefix)) continue;
          const rel = dir === "" ? name : `${dir}/${name}`;
          const at = i * FIELDS;
          const code = stats[at];
          if (code === FILE || code === SYMLINK) {
            const kind: LeafKind = code === FILE ? "file" : "symlink";
            collector.leaf(rel, kind, stats[at + 1] as number, stats[at + 2] as number, stats[at + 3] as number, stats[at + 4] as number, stats[at + 5] as number);
            hasLeaf = true;
          } else if (code === DIRECTORY) {
            collector.directory(rel, stats[at + 1] as number);
            pending.push(rel);
          } else if (code === OTHER) collector.other(rel);
          else if (code === FAILED) {
            const [, errno, message] = result.failures?.find(([index]) => index === i) ?? [i, "EIO", "lstat failed"];
            throw new ScanError(rel, errno, failureOf(errno, message));
          }
        }
        if (hasLeaf) collector.holdsLeaves(dir);
      };
      this.active = {
        id,
        onResults: (worker, results) => {
          held[worker]! -= 1;
          outstanding -= 1;
          try {
            for (const result of results) collect(result);
          } catch (error) {
            settle(error instanceof Error ? error : new Error(String(error)));
            return;
          }
          dispatch();
        },
        onFailure: (error) => settle(error),
      };
      dispatch();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.failure ??= new Error("the scan pool was closed");
    if (pool === this) pool = null;
    await Promise.all(this.workers.map((worker) => worker.terminate().catch(() => undefined)));
  }
}

let pool: ScanPool | null = null;

function sharedPool(): ScanPool {
  pool ??= new ScanPool(Math.min(4, Math.max(2, availableParallelism())));
  return pool;
}

export interface FastScanOptions extends ScanOptions {
  /**
   * A big workspace walked on this thread only marks the pool as wanted, and
   * {@link scheduleWantedScanPool} starts it once the caller's operation is over. The
   * threads' start-up (a few MB of fresh memory each, which a VM pays per page, and 5–40 ms
   * of this thread constructing them) then no longer competes with the rest of that
   * operation: a first restore in a process is not slowed by threads started for the
   * restores after it.
   */
  readonly startPoolLater?: boolean;
}

/** A big walk ran on this thread and left the pool's start to its caller. */
let poolWanted = false;
/** The turn of the event loop that will start the wanted pool (see scheduleWantedScanPool). */
let scheduledStart: NodeJS.Immediate | null = null;

/** The wanted pool, started now (null when none is wanted or threads cannot start). */
function startWantedNow(): ScanPool | null {
  if (scheduledStart !== null) clearImmediate(scheduledStart);
  scheduledStart = null;
  if (!poolWanted) return pool;
  poolWanted = false;
  try {
    return sharedPool();
  } catch {
    return null; // no threads: walks stay on this thread, as they would without a pool
  }
}

/**
 * Walk `rootBytes` against `baseline` (see `scanAgainstIndex`), on the worker pool when the
 * baseline says the workspace is big and the pool is up; otherwise on this thread, which
 * then starts the pool for next time if the workspace turned out big (or, with
 * `startPoolLater`, leaves that to {@link scheduleWantedScanPool}).
 */
export async function scanWorkspaceFast(rootBytes: string, baseline: ScanBaseline | null, options: FastScanOptions = {}): Promise<IndexedScan> {
  const big = (baseline?.entries.size ?? 0) >= PARALLEL_SCAN_MIN_ENTRIES;
  // A pool wanted by the previous operation and not started yet (the process was not idle
  // since) starts for this walk, as it would have as that operation ended.
  if (big && pool === null && poolWanted) startWantedNow();
  // A pool started ahead of this walk (see startScanPool) is worth its last milliseconds of
  // start-up. Its threads are referenced while the walk waits for them: a process with
  // nothing else to do (a pool started as the previous operation ended) must not exit then.
  if (pool !== null && big) {
    try {
      return await pool.scan(rootBytes, baseline, options);
    } catch (error) {
      if (error instanceof ScanError) throw error;
      // The pool broke (a worker died): this walk, and the next ones, run here.
    }
  }
  return walkedElsewhere(scanAgainstIndex(rootBytes, baseline, options), options);
}

/**
 * Notes a walk done without the pool (on this thread, or by `find`): a big one starts the
 * pool for the next walks, now or, with `startPoolLater`, when the operation is over.
 */
export function walkedElsewhere(scan: IndexedScan, options: FastScanOptions = {}): IndexedScan {
  if (scan.leafCount >= PARALLEL_SCAN_MIN_ENTRIES) {
    if (options.startPoolLater === true) poolWanted = true;
    else sharedPool();
  }
  return scan;
}

/** True when the pool's threads are up and can take a walk at once. */
export function scanPoolReady(): boolean {
  return pool?.ready ?? false;
}

/**
 * Starts the pool a walk with `startPoolLater` asked for (no-op otherwise) in a later turn
 * of the event loop, once the caller has heard that its operation is over: constructing the
 * threads blocks this thread for 5–40 ms, which the operation that asked for them no longer
 * waits for. Unreferenced: a process that exits after the operation never starts them. An
 * operation starting before that turn postpones the start to its own end
 * ({@link postponeWantedScanPool}), and a walk that needs the threads starts them at once.
 */
export function scheduleWantedScanPool(): void {
  if (!poolWanted || scheduledStart !== null) return;
  scheduledStart = setImmediate(startWantedNow);
  scheduledStart.unref();
}

/** An operation starts: the pool a previous one wanted starts when this one is over, not in its middle. */
export function postponeWantedScanPool(): void {
  if (scheduledStart === null) return;
  clearImmediate(scheduledStart);
  scheduledStart = null;
}

/**
 * Starts the pool now, for a big walk coming soon: its threads then start while the caller
 * waits for other things (git processes, on a first restore in a process) rather than
 * leaving that first walk to this thread.
 */
export function startScanPool(): void {
  sharedPool();
}

/** Walk on the worker pool whatever the size (waits for the pool to start). */
export function scanInParallel(rootBytes: string, baseline: ScanBaseline | null, options: ScanOptions = {}): Promise<IndexedScan> {
  return sharedPool().scan(rootBytes, baseline, options);
}

/**
 * Resolves once the pool's threads are up: true, or false when there is no pool or it broke.
 * A pool scheduled to start (scheduleWantedScanPool: its operation is over) starts now.
 */
export async function scanPoolStarted(): Promise<boolean> {
  const current = scheduledStart !== null ? startWantedNow() : pool;
  if (current === null) return false;
  return current.untilReady().then(
    () => true,
    () => false,
  );
}

/** Stop the pool's threads, and any start scheduled (tests; a process exits without it). */
export async function closeScanPool(): Promise<void> {
  postponeWantedScanPool();
  poolWanted = false;
  await pool?.close();
}
