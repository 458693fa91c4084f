export interface WeightedCacheOptions {
  /**
   * Store a value only when its key was offered before, among the last `secondUseOf` keys
   * offered (default 0: store at once). A scan that reads every file once (a search, a
   * viewer paging through a big tree) then neither flushes what is used again nor keeps
   * megabytes alive for nothing — that churn had the collector run for every request.
   */
  secondUseOf?: number;
}

/**
 * A least-recently-used cache bounded by total weight (bytes, entries…), so what the
 * server keeps in memory stays bounded whatever the directory holds. Values heavier than
 * the whole budget are never stored.
 */
export class WeightedCache<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #total = 0;
  /** Keys offered once and not stored yet (oldest first), when storing waits for a second use. */
  readonly #offered = new Set<K>();
  readonly #secondUseOf: number;

  constructor(
    private readonly budget: number,
    private readonly onEvict?: (key: K, value: V) => void,
    options: WeightedCacheOptions = {},
  ) {
    this.#secondUseOf = options.secondUseOf ?? 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  get weight(): number {
    return this.#total;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, weight: number): void {
    if (this.#secondUseOf > 0 && !this.#entries.has(key)) {
      if (!this.#offered.delete(key)) {
        this.#offered.add(key);
        if (this.#offered.size > this.#secondUseOf) this.#offered.delete(this.#offered.values().next().value as K);
        return;
      }
    }
    this.delete(key);
    if (weight > this.budget) {
      this.onEvict?.(key, value);
      return;
    }
    this.#entries.set(key, { value, weight });
    this.#total += weight;
    for (const [oldKey, old] of this.#entries) {
      if (this.#total <= this.budget) break;
      this.#entries.delete(oldKey);
      this.#total -= old.weight;
      this.onEvict?.(oldKey, old.value);
    }
  }

  /** Evicts least recently used entries until `weight` more would fit (call before building a big value). */
  makeRoom(weight: number): void {
    for (const [oldKey, old] of this.#entries) {
      if (this.#total + weight <= this.budget) break;
      this.#entries.delete(oldKey);
      this.#total -= old.weight;
      this.onEvict?.(oldKey, old.value);
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#total -= entry.weight;
    this.onEvict?.(key, entry.value);
  }

  /** Removes every entry whose key matches. */
  deleteWhere(match: (key: K) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (match(key)) this.delete(key);
  }

  clear(): void {
    this.deleteWhere(() => true);
    this.#offered.clear();
  }
}
