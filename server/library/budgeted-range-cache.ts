/**
 * The remote sources' block cache counted in the server's one memory budget (`--memory`):
 * blocks of remote objects compete with parsed lines, archive indexes and file contents,
 * the least recently used going first whatever cache holds it, instead of having a cap of
 * their own beside the budget.
 */
import { RangeCache } from "../../shared/remote/index.js";
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
