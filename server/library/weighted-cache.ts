/**
 * A least-recently-used cache bounded by total weight (bytes, entries…), so what the
 * server keeps in memory stays bounded whatever the directory holds. Values heavier than
 * the whole budget are never stored.
 */
export class WeightedCache<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #total = 0;

  constructor(
    private readonly budget: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

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
  }
}
