/**
 * Responses that cost real CPU to compute (a big file diff, a huge line as strict JSON),
 * kept as their JSON bytes (in the chunks the worker wrote them in): the same request again costs a lookup, and requests for the
 * same answer while it is being computed share that one computation (ten tabs asking for a
 * 7 MiB diff start one worker task, not ten). Counted in the server's memory budget; an
 * answer larger than the whole budget is computed for each request, on the worker, never on
 * the event loop.
 *
 * A streamed answer (`stream`: a huge line's `/api/raw`) is sent while the worker writes it.
 * Its chunks are kept while it could still be kept whole; one larger than the budget (or
 * past it) drops each chunk as soon as every request sending it has passed it (a 101 MiB
 * answer held whole cost its size on top of the line's bytes), and a request that comes
 * after the first drop starts its own.
 */
import { COLLECT_AFTER_BYTES, collectGarbageSoon } from "./memory-pressure.js";
import type { MemoryBudget } from "./weighted-cache.js";
import { WeightedCache } from "./weighted-cache.js";

/** Chunks to send: a kept answer whole, or a streamed one as it is written. */
export type JsonAnswer = readonly Uint8Array[] | AsyncIterable<Uint8Array>;

export class ComputedResponses {
  /** Answers found kept (or joined while computed), and computed anew, since it was made (the metrics read them). */
  readonly counts = { hits: 0, misses: 0 };
  readonly #done: WeightedCache<string, readonly Uint8Array[]>;
  readonly #running = new Map<string, Promise<readonly Uint8Array[]>>();
  readonly #writing = new Map<string, AnswerInProgress>();
  /** The most an answer may weigh to be kept (the whole budget). */
  readonly #keepBytes: number;

  /** `budget`: the server's memory budget, shared with its other caches (default: 64 MiB of its own). */
  constructor(budget: MemoryBudget | number = 64 * 1024 * 1024) {
    this.#done = new WeightedCache(budget);
    this.#keepBytes = typeof budget === "number" ? budget : budget.bytes;
  }

  /**
   * The answer for `key`: kept, being written (joined while none of it was dropped), or
   * written now by `write`, which hands each chunk to `push` in order. `expectedBytes`
   * (about its size) says whether it may be kept: one larger than the budget drops each
   * chunk once sent, from the start. Resolves once the answer has its first chunk (or is
   * complete), so an error before that is the request's error; one after it ends the sending.
   */
  async stream(key: string, expectedBytes: number, write: (push: (chunk: Uint8Array) => void) => Promise<void>): Promise<JsonAnswer> {
    const done = this.#done.get(key);
    if (done !== undefined) {
      this.counts.hits++;
      return done;
    }
    let answer = this.#writing.get(key);
    if (answer === undefined || !answer.joinable) {
      this.counts.misses++;
      const started = new AnswerInProgress(expectedBytes > this.#keepBytes ? 0 : this.#keepBytes);
      answer = started;
      this.#writing.set(key, started);
      write((chunk) => started.push(chunk)).then(
        () => {
          started.finish();
          const whole = started.whole();
          if (whole !== null) this.#done.set(key, whole, started.bytes);
        },
        (error: unknown) => started.finish(error),
      ).finally(() => {
        if (this.#writing.get(key) === started) this.#writing.delete(key);
      });
    }
    const reader = answer.reader();
    await answer.started;
    return reader;
  }

  /** The answer for `key`: kept, being computed, or computed now by `compute`. */
  get(key: string, compute: () => Promise<readonly Uint8Array[]>): Promise<readonly Uint8Array[]> {
    const done = this.#done.get(key);
    const running = this.#running.get(key);
    if (done !== undefined || running !== undefined) this.counts.hits++;
    if (done !== undefined) return Promise.resolve(done);
    if (running !== undefined) return running;
    this.counts.misses++;
    const task = compute()
      .then((json) => {
        this.#done.set(key, json, json.reduce((total, chunk) => total + chunk.byteLength, 0));
        return json;
      })
      .finally(() => this.#running.delete(key));
    this.#running.set(key, task);
    return task;
  }

  clear(): void {
    this.#done.clear();
  }
}

/** An answer the worker is writing, and the requests sending it meanwhile. */
class AnswerInProgress {
  /** The chunks so far; null where every reader had passed one past the keep limit. */
  readonly #chunks: (Uint8Array | null)[] = [];
  /** Chunks dropped from the start. */
  #dropped = 0;
  /** Bytes dropped since the last collection was asked for. */
  #droppedBytes = 0;
  bytes = 0;
  #finished = false;
  #error: unknown = undefined;
  /** Each reader's next chunk. */
  readonly #readers = new Set<{ at: number }>();
  #wake: (() => void)[] = [];
  /** Settles with the first chunk or the end; rejects when the answer failed before any chunk. */
  readonly started: Promise<void>;
  #start!: (error?: unknown) => void;

  constructor(private readonly keepBytes: number) {
    this.started = new Promise<void>((resolve, reject) => {
      this.#start = (error?: unknown) => (error === undefined ? resolve() : reject(error));
    });
    this.started.catch(() => {}); // a failure is also each reader's to handle
  }

  /** False once a chunk was dropped: a new request cannot be sent the answer from its start. */
  get joinable(): boolean {
    return this.#dropped === 0;
  }

  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.bytes += chunk.byteLength;
    this.#start();
    this.#trim();
    this.#notify();
  }

  finish(error?: unknown): void {
    this.#finished = true;
    this.#error = error;
    this.#start(error);
    this.#notify();
  }

  /** All the chunks of a complete answer that kept them, or null. */
  whole(): readonly Uint8Array[] | null {
    return this.#finished && this.#error === undefined && this.#dropped === 0 ? (this.#chunks as Uint8Array[]) : null;
  }

  /**
   * The answer from its start, read as it is written. Registered now, so nothing is dropped
   * before it reads; let go when it ends or is closed (a client gone before it read at all).
   */
  reader(): AsyncIterable<Uint8Array> {
    const position = { at: this.#dropped };
    this.#readers.add(position);
    const release = (): void => {
      this.#readers.delete(position);
      this.#trim();
    };
    const next = async (): Promise<IteratorResult<Uint8Array, undefined>> => {
      for (;;) {
        if (position.at < this.#chunks.length) {
          const chunk = this.#chunks[position.at++] as Uint8Array;
          this.#trim();
          return { done: false, value: chunk };
        }
        if (this.#finished) {
          release();
          if (this.#error !== undefined) throw this.#error;
          return { done: true, value: undefined };
        }
        await new Promise<void>((resolve) => this.#wake.push(resolve));
      }
    };
    const close = async (): Promise<IteratorResult<Uint8Array, undefined>> => {
      release();
      return { done: true, value: undefined };
    };
    return { [Symbol.asyncIterator]: () => ({ next, return: close }) };
  }

  /** Past the keep limit, drops the chunks every reader has passed. */
  #trim(): void {
    if (this.bytes <= this.keepBytes) return;
    let passed = this.#chunks.length;
    for (const reader of this.#readers) passed = Math.min(passed, reader.at);
    for (; this.#dropped < passed; this.#dropped++) {
      this.#droppedBytes += (this.#chunks[this.#dropped] as Uint8Array).byteLength;
      this.#chunks[this.#dropped] = null;
    }
    // The chunks came from the worker as young objects over external memory V8 does not
    // weigh: without a collection, a 100 MiB answer's sent chunks stayed in memory.
    if (this.#droppedBytes >= COLLECT_AFTER_BYTES) {
      this.#droppedBytes = 0;
      collectGarbageSoon("minor");
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }
}
