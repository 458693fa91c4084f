/**
 * Runs `cpu-worker.ts` tasks on a worker thread, so the event loop keeps answering every
 * other request while a big diff or a huge session line is worked on (issue 14, finding 6:
 * a fully rewritten 7 MiB file held the loop ~1.2 s per request, a 120 MiB line ~1.9 s).
 *
 * One thread by default (the machine this serves is a laptop; the other core answers
 * requests), started on first use and unreferenced while idle, so it never keeps a process
 * alive; tasks queue in order. A task that runs past its deadline, or a thread that dies,
 * fails its tasks (the thread is replaced on the next task). From TypeScript sources
 * (tests, `tsx`) the thread loads tsx's loader first; the built package runs the compiled
 * `cpu-worker.js` next to this module (also from the bundled CLI, which lives beside it).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { ERROR_CODES, WinkError, type ErrorCode } from "../../shared/errors.js";
import type { CpuReply, CpuRequest, CpuTask } from "./cpu-worker.js";
import { collectGarbageSoon } from "../library/memory-pressure.js";

export type { CpuTask } from "./cpu-worker.js";

export interface CpuPoolOptions {
  /** Most time one task may take before its thread is stopped (default 60 s). */
  taskTimeoutMs?: number;
}

interface Pending {
  readonly task: CpuTask;
  readonly transfer: readonly ArrayBuffer[];
  /** Each chunk of the answer, as the worker posts it. */
  readonly onChunk: (chunk: Uint8Array) => void;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** How to start the worker: the compiled module, or the TypeScript one behind tsx's loader. */
function workerSpec(): { source: string | URL; eval: boolean; workerData: unknown } {
  if (!FROM_SOURCE) return { source: new URL("./cpu-worker.js", import.meta.url), eval: false, workerData: null };
  const tsxPackage = createRequire(import.meta.url).resolve("tsx/package.json");
  const exportsMap = (JSON.parse(readFileSync(tsxPackage, "utf8")) as { exports: Record<string, { import: { default: string } }> }).exports;
  const api = pathToFileURL(path.join(path.dirname(tsxPackage), (exportsMap["./esm/api"] as { import: { default: string } }).import.default)).href;
  const entry = new URL("./cpu-worker.ts", import.meta.url).href;
  const boot = `const { workerData } = require("node:worker_threads"); import(workerData.api).then((api) => { api.register(); return import(workerData.entry); });`;
  return { source: boot, eval: true, workerData: { api, entry } };
}

/** An error from the worker as the error the route would have thrown itself. */
function rebuild(error: Extract<CpuReply, { ok: false }>["error"]): Error {
  if (error.code !== null && Object.hasOwn(ERROR_CODES, error.code)) return new WinkError(error.code as ErrorCode, error.message, error.data);
  return new Error(error.message);
}

export class CpuPool {
  readonly #taskTimeoutMs: number;
  #worker: Worker | null = null;
  #current: (Pending & { readonly id: number; readonly timer: NodeJS.Timeout }) | null = null;
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #closed = false;
  /** Tasks run so far (tests check that cached answers cost none). */
  tasksRun = 0;

  constructor(options: CpuPoolOptions = {}) {
    this.#taskTimeoutMs = options.taskTimeoutMs ?? 60_000;
  }

  /**
   * Runs `task` on the worker thread; resolves with its JSON response bytes, in the chunks
   * the worker wrote them in (see {@link stream}).
   */
  async run(task: CpuTask, transfer: readonly ArrayBuffer[] = []): Promise<Uint8Array[]> {
    const chunks: Uint8Array[] = [];
    await this.stream(task, transfer, (chunk) => chunks.push(chunk));
    return chunks;
  }

  /**
   * Runs `task` on the worker thread, handing each chunk of its JSON response bytes to
   * `onChunk` as soon as the worker posts it (a huge answer is then never whole on either
   * thread); resolves when the answer is complete. Its byte arrays are copied, except the
   * buffers in `transfer`, which move to the thread (the caller must own them whole and not
   * use them again).
   */
  stream(task: CpuTask, transfer: readonly ArrayBuffer[], onChunk: (chunk: Uint8Array) => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The server is shutting down"));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ task, transfer, onChunk, resolve, reject });
      this.#next();
    });
  }

  /** Stops the thread; queued tasks fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const failed = new Error("The server is shutting down");
    for (const pending of this.#queue.splice(0)) pending.reject(failed);
    this.#finish(failed);
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  #next(): void {
    if (this.#current !== null || this.#closed) return;
    const pending = this.#queue.shift();
    if (pending === undefined) {
      this.#worker?.unref();
      return;
    }
    const worker = this.#thread();
    worker.ref();
    const id = this.#nextId++;
    const timer = setTimeout(() => this.#fail(new Error(`The task took longer than ${this.#taskTimeoutMs} ms and was stopped`)), this.#taskTimeoutMs);
    this.#current = { ...pending, id, timer };
    this.tasksRun += 1;
    worker.postMessage({ ...pending.task, id } satisfies CpuRequest, [...pending.transfer]);
  }

  #thread(): Worker {
    if (this.#worker !== null) return this.#worker;
    const spec = workerSpec();
    const worker = new Worker(spec.source, { eval: spec.eval, workerData: spec.workerData });
    worker.on("message", (reply: CpuReply) => {
      const current = this.#current;
      if (current?.id !== reply.id) return;
      if ("chunk" in reply) {
        current.onChunk(reply.chunk);
        return;
      }
      // The task's huge input, handed back to be freed here (see cpu-worker.ts).
      if (reply.spent !== undefined) collectGarbageSoon();
      if (reply.ok) this.#finish(null);
      else this.#finish(rebuild(reply.error));
      this.#next();
    });
    worker.on("error", (error) => this.#fail(error));
    worker.on("exit", () => {
      if (this.#worker === worker) this.#fail(new Error("The worker thread stopped"));
    });
    this.#worker = worker;
    return worker;
  }

  /** Fails the running task and drops its thread (a new one starts for the next task). */
  #fail(error: unknown): void {
    const worker = this.#worker;
    this.#worker = null;
    void worker?.terminate();
    this.#finish(error);
    this.#next();
  }

  #finish(error: unknown): void {
    const current = this.#current;
    if (current === null) return;
    this.#current = null;
    clearTimeout(current.timer);
    if (error === null) current.resolve();
    else current.reject(error);
  }
}
