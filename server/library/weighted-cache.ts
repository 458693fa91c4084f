export interface WeightedCacheOptions {
  /**
   * Store a value only when its key was offered before, among the last `secondUseOf` keys
   * offered (default 0: store at once). A scan that reads every file once (a search, a
   * viewer paging through a big tree) then neither flushes what is used again nor keeps
   * megabytes alive for nothing — that churn had the collector run for every request.
   */
  secondUseOf?: number;
}

interface Node {
  weight: number;
  older: Node | null;
  newer: Node | null;
  /** Removes the node from the cache that holds it (and tells that cache's listener). */
  readonly drop: () => void;
}

/**
 * One budget shared by several caches: what they hold together is counted here and kept
 * under `bytes`, the least recently used entry of any of them going first. The server has
 * one (`--memory`), so parsed session lines, archive indexes, file contents and rendered
 * answers compete for the same memory instead of each having a cap of its own.
 *
 * Recency is a linked list rather than a Map's insertion order: evicting the oldest entries
 * of a Map means iterating from its start, past the deleted slots that every move to the
 * back leaves there until the next rehash — thousands of them on a busy file route.
 */
export class MemoryBudget {
  /** Least recently used end of the list, and the most recently used end. */
  #oldest: Node | null = null;
  #newest: Node | null = null;
  #used = 0;
  /** Weight held outside the caches (`hold`): counted, never evicted. */
  #held = 0;

  constructor(readonly bytes: number) {
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`A memory budget must be a non-negative number of bytes, got ${bytes}`);
  }

  /** Weight held by every cache of this budget, and held outside them. */
  get used(): number {
    return this.#used + this.#held;
  }

  /** Weight held outside the caches (see `hold`). */
  get held(): number {
    return this.#held;
  }

  /** Evicts least recently used entries until `weight` more would fit (call before building a big value). */
  makeRoom(weight: number): void {
    while (this.#oldest !== null && this.used + weight > this.bytes) this.#oldest.drop();
  }

  /**
   * Counts `weight` that must stay in memory (the index of the file a viewer has open): the
   * caches make room for it, it is never evicted; the function given back lets it go.
   */
  hold(weight: number): () => void {
    this.#held += weight;
    this.makeRoom(0);
    let held = true;
    return () => {
      if (held) this.#held -= weight;
      held = false;
    };
  }

  /** @internal Adds a node as the most recently used. */
  add(node: Node): void {
    this.#used += node.weight;
    this.#append(node);
  }

  /** @internal Marks a node as the most recently used. */
  touch(node: Node): void {
    this.#unlink(node);
    this.#append(node);
  }

  /** @internal Forgets a node. */
  remove(node: Node): void {
    this.#unlink(node);
    this.#used -= node.weight;
  }

  #append(node: Node): void {
    node.older = this.#newest;
    node.newer = null;
    if (this.#newest === null) this.#oldest = node;
    else this.#newest.newer = node;
    this.#newest = node;
  }

  #unlink(node: Node): void {
    if (node.older === null) this.#oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === null) this.#newest = node.older;
    else node.newer.older = node.older;
    node.older = null;
    node.newer = null;
  }
}

interface Entry<K, V> extends Node {
  readonly key: K;
  readonly value: V;
}

/**
 * A least-recently-used cache bounded by weight (estimated bytes), so what the server keeps
 * in memory stays bounded whatever the directory holds. Its budget is its own (a number) or
 * shared with other caches (a {@link MemoryBudget}). Values heavier than the whole budget
 * are never stored.
 */
export class WeightedCache<K, V> {
  readonly #entries = new Map<K, Entry<K, V>>();
  readonly #budget: MemoryBudget;
  #total = 0;
  /** Keys offered once and not stored yet, with the number of their offer. */
  readonly #offeredAt = new Map<K, number>();
  /** The last `secondUseOf` offers, by offer number modulo its length, to forget the oldest. */
  readonly #offerRing: (K | undefined)[];
  #offers = 0;
  readonly #secondUseOf: number;

  constructor(
    budget: number | MemoryBudget,
    private readonly onEvict?: (key: K, value: V) => void,
    options: WeightedCacheOptions = {},
  ) {
    this.#budget = typeof budget === "number" ? new MemoryBudget(budget) : budget;
    this.#secondUseOf = options.secondUseOf ?? 0;
    this.#offerRing = new Array<K | undefined>(this.#secondUseOf);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Weight held by this cache (its budget may be shared: see {@link MemoryBudget.used}). */
  get weight(): number {
    return this.#total;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#budget.touch(entry);
    return entry.value;
  }

  /** Whether `key` is held (without marking it used). */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  set(key: K, value: V, weight: number): void {
    if (this.#secondUseOf > 0 && !this.#entries.has(key) && !this.#takeOffer(key)) return;
    this.delete(key);
    if (weight > this.#budget.bytes) {
      this.onEvict?.(key, value);
      return;
    }
    const entry: Entry<K, V> = { key, value, weight, older: null, newer: null, drop: () => this.#remove(entry) };
    this.#entries.set(key, entry);
    this.#total += weight;
    this.#budget.add(entry);
    this.#budget.makeRoom(0);
  }

  /** Evicts least recently used entries (of every cache sharing the budget) until `weight` more would fit. */
  makeRoom(weight: number): void {
    this.#budget.makeRoom(weight);
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#remove(entry);
  }

  /** Removes every entry whose key matches. */
  deleteWhere(match: (key: K) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (match(key)) this.delete(key);
  }

  clear(): void {
    this.deleteWhere(() => true);
    this.#offeredAt.clear();
    this.#offerRing.fill(undefined);
  }

  /** True when `key` was offered among the last `secondUseOf` offers (and forgets that offer); else records the offer. */
  #takeOffer(key: K): boolean {
    if (this.#offeredAt.delete(key)) return true;
    const slot = this.#offers % this.#secondUseOf;
    const forgotten = this.#offerRing[slot];
    // The slot's key may since have been taken, or offered again later: forget only that offer.
    if (forgotten !== undefined && this.#offeredAt.get(forgotten) === this.#offers - this.#secondUseOf) this.#offeredAt.delete(forgotten);
    this.#offerRing[slot] = key;
    this.#offeredAt.set(key, this.#offers++);
    return false;
  }

  #remove(entry: Entry<K, V>): void {
    this.#entries.delete(entry.key);
    this.#budget.remove(entry);
    this.#total -= entry.weight;
    this.onEvict?.(entry.key, entry.value);
  }
}
