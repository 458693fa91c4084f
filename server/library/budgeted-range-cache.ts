/**
 * The remote sources' block cache counted in the server's one memory budget (`--memory`):
 * blocks of remote objects compete with parsed lines, archive indexes and file contents,
 * the least recently used going first whatever cache holds it, instead of having a cap of
 * their own beside the budget.
 */
import { ByteGate, RangeCache } from "../../shared/remote/index.js";
import type { MemoryBudget } from "./weighted-cache.js";
import { WeightedCache } from "./weighted-cache.js";

export class BudgetedRangeCache extends RangeCache {
  readonly #blocks: WeightedCache<string, Uint8Array>;
  #hits = 0;
  #misses = 0;

  constructor(memory: MemoryBudget) {
    super({ maxBytes: memory.bytes });
    this.#blocks = new WeightedCache(memory);
  }

  override get(entry: string): Uint8Array | undefined {
    const bytes = this.#blocks.get(entry);
    if (bytes === undefined) this.#misses++;
    else this.#hits++;
    return bytes;
  }

  override has(entry: string): boolean {
    return this.#blocks.has(entry);
  }

  override set(entry: string, bytes: Uint8Array): void {
    this.#blocks.set(entry, bytes, bytes.byteLength);
  }

  override forget(source: string, key: string): void {
    const prefix = RangeCache.objectPrefix(source, key);
    this.#blocks.deleteWhere((entry) => entry.startsWith(prefix));
  }

  override clear(): void {
    this.#blocks.clear();
  }

  override get stats(): { readonly bytes: number; readonly blocks: number; readonly hits: number; readonly misses: number } {
    return { bytes: this.#blocks.weight, blocks: this.#blocks.size, hits: this.#hits, misses: this.#misses };
  }
}

/** The share of the budget that store reads in flight may hold at once (see {@link budgetedReadGate}). */
export const READ_GATE_SHARE = 1 / 8;

/**
 * How long a read in flight may keep others waiting at the gate: past it the store is taken
 * to have stopped answering that read (a 64 KiB block takes milliseconds on a working store,
 * 12 MiB a second at ~100 Mbit/s), and the reads behind it go while it waits for its deadline.
 */
export const STALLED_READ_MS = 2_000;

/**
 * A gate for a remote source's reads within the same budget: at most {@link READ_GATE_SHARE}
 * of it in flight (12 MiB of the default 96), and what is in flight held in the budget, so
 * the caches make room for it instead of the process holding both. A stalled read stops
 * holding the others after {@link STALLED_READ_MS}.
 */
export function budgetedReadGate(memory: MemoryBudget): ByteGate {
  return new ByteGate(Math.max(1024 * 1024, Math.floor(memory.bytes * READ_GATE_SHARE)), { onHold: (bytes) => memory.hold(bytes), stallMs: STALLED_READ_MS });
}
