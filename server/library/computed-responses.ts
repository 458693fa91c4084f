/**
 * Responses that cost real CPU to compute (a big file diff, a huge line as strict JSON),
 * kept as their JSON bytes (in the chunks the worker wrote them in): the same request again costs a lookup, and requests for the
 * same answer while it is being computed share that one computation (ten tabs asking for a
 * 7 MiB diff start one worker task, not ten). Counted in the server's memory budget; an
 * answer larger than the whole budget is computed for each request, on the worker, never on
 * the event loop.
 */
import type { MemoryBudget } from "./weighted-cache.js";
import { WeightedCache } from "./weighted-cache.js";

export class ComputedResponses {
  readonly #done: WeightedCache<string, readonly Uint8Array[]>;
  readonly #running = new Map<string, Promise<readonly Uint8Array[]>>();

  /** `budget`: the server's memory budget, shared with its other caches (default: 64 MiB of its own). */
  constructor(budget: MemoryBudget | number = 64 * 1024 * 1024) {
    this.#done = new WeightedCache(budget);
  }

  /** The answer for `key`: kept, being computed, or computed now by `compute`. */
  get(key: string, compute: () => Promise<readonly Uint8Array[]>): Promise<readonly Uint8Array[]> {
    const done = this.#done.get(key);
    if (done !== undefined) return Promise.resolve(done);
    const running = this.#running.get(key);
    if (running !== undefined) return running;
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
