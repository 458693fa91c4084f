export interface WeightedCacheOptions {
  /**
   * Store a value only when its key was offered before, among the last `secondUseOf` keys
   * offered (default 0: store at once). A scan that reads every file once (a search, a
   * viewer paging through a big tree) then neither flushes what is used again nor keeps
   * megabytes alive for nothing — that churn had the collector run for every request.
   */
  secondUseOf?: number;
}

interface Node<K, V> {
  readonly key: K;
  value: V;
  weight: number;
  older: Node<K, V> | null;
  newer: Node<K, V> | null;
}

/**
 * A least-recently-used cache bounded by total weight (bytes, entries…), so what the
 * server keeps in memory stays bounded whatever the directory holds. Values heavier than
 * the whole budget are never stored.
 *
 * Recency is a linked list rather than a Map's insertion order: evicting the oldest entries
 * of a Map means iterating from its start, past the deleted slots that every move to the
 * back leaves there until the next rehash — thousands of them on a busy file route.
 */
export class WeightedCache<K, V> {
  readonly #entries = new Map<K, Node<K, V>>();
  /** Least recently used end of the list, and the most recently used end. */
  #oldest: Node<K, V> | null = null;
  #newest: Node<K, V> | null = null;
  #total = 0;
  /** Keys offered once and not stored yet, with the number of their offer. */
  readonly #offeredAt = new Map<K, number>();
  /** The last `secondUseOf` offers, by offer number modulo its length, to forget the oldest. */
  readonly #offerRing: (K | undefined)[];
  #offers = 0;
  readonly #secondUseOf: number;

  constructor(
    private readonly budget: number,
    private readonly onEvict?: (key: K, value: V) => void,
    options: WeightedCacheOptions = {},
  ) {
    this.#secondUseOf = options.secondUseOf ?? 0;
    this.#offerRing = new Array<K | undefined>(this.#secondUseOf);
  }

  get size(): number {
    return this.#entries.size;
  }

  get weight(): number {
    return this.#total;
  }

  get(key: K): V | undefined {
    const node = this.#entries.get(key);
    if (node === undefined) return undefined;
    this.#unlink(node);
    this.#append(node);
    return node.value;
  }

  set(key: K, value: V, weight: number): void {
    if (this.#secondUseOf > 0 && !this.#entries.has(key) && !this.#takeOffer(key)) return;
    this.delete(key);
    if (weight > this.budget) {
      this.onEvict?.(key, value);
      return;
    }
    const node: Node<K, V> = { key, value, weight, older: null, newer: null };
    this.#entries.set(key, node);
    this.#append(node);
    this.#total += weight;
    this.#evictUntil(0);
  }

  /** Evicts least recently used entries until `weight` more would fit (call before building a big value). */
  makeRoom(weight: number): void {
    this.#evictUntil(weight);
  }

  delete(key: K): void {
    const node = this.#entries.get(key);
    if (node === undefined) return;
    this.#remove(node);
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

  #evictUntil(room: number): void {
    while (this.#oldest !== null && this.#total + room > this.budget) this.#remove(this.#oldest);
  }

  #remove(node: Node<K, V>): void {
    this.#entries.delete(node.key);
    this.#unlink(node);
    this.#total -= node.weight;
    this.onEvict?.(node.key, node.value);
  }

  #append(node: Node<K, V>): void {
    node.older = this.#newest;
    node.newer = null;
    if (this.#newest === null) this.#oldest = node;
    else this.#newest.newer = node;
    this.#newest = node;
  }

  #unlink(node: Node<K, V>): void {
    if (node.older === null) this.#oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === null) this.#newest = node.older;
    else node.newer.older = node.older;
    node.older = null;
    node.newer = null;
  }
}
