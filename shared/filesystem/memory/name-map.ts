/**
 * The children of a directory: a persistent hash array mapped trie (32-way) keyed by name.
 *
 * A plain `Map` would make the first write below a directory after a snapshot copy every
 * entry of that directory (O(width)); here it copies only the trie nodes on the key's path
 * (O(log32 width)), so a directory with 100k entries costs the same to change as one with
 * ten. Trie nodes carry the same ownership tokens as tree directories: a node owned by the
 * map's token is edited in place, any other node is copied first. `forEachDifference`
 * skips the trie nodes two versions share, so diffs stay proportional to the changes.
 * Iteration order is the trie's hash order, not insertion order.
 */
/** Identity of one mutable tree version; a fresh `symbol` is unique across drivers too. */
export type OwnerToken = symbol;

const BITS = 5;
const MASK = (1 << BITS) - 1;

interface Entry<V> {
  readonly kind: "entry";
  readonly key: string;
  readonly hash: number;
  readonly value: V;
}

interface Branch<V> {
  readonly kind: "branch";
  readonly owner: OwnerToken;
  bitmap: number;
  readonly slots: Slot<V>[];
}

/** Keys whose 32-bit hashes are equal. */
interface Collision<V> {
  readonly kind: "collision";
  readonly owner: OwnerToken;
  readonly hash: number;
  readonly entries: Entry<V>[];
}

type Slot<V> = Entry<V> | Branch<V> | Collision<V>;

/** FNV-1a over UTF-16 code units. */
export function hashName(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

function fragment(hash: number, shift: number): number {
  return (hash >>> shift) & MASK;
}

function editableBranch<V>(node: Branch<V>, owner: OwnerToken): Branch<V> {
  return node.owner === owner ? node : { kind: "branch", owner, bitmap: node.bitmap, slots: node.slots.slice() };
}

/** A branch at `shift` holding two slots whose hashes differ somewhere at or below `shift`. */
function mergeSlots<V>(a: Entry<V> | Collision<V>, b: Entry<V>, shift: number, owner: OwnerToken): Slot<V> {
  if (a.hash === b.hash) {
    const entries = a.kind === "entry" ? [a, b] : [...a.entries, b];
    return { kind: "collision", owner, hash: a.hash, entries };
  }
  const fa = fragment(a.hash, shift);
  const fb = fragment(b.hash, shift);
  if (fa === fb) return { kind: "branch", owner, bitmap: 1 << fa, slots: [mergeSlots(a, b, shift + BITS, owner)] };
  return { kind: "branch", owner, bitmap: (1 << fa) | (1 << fb), slots: fa < fb ? [a, b] : [b, a] };
}

interface Change {
  sizeDelta: number;
}

function setIn<V>(node: Branch<V>, owner: OwnerToken, entry: Entry<V>, shift: number, change: Change): Branch<V> {
  const bit = 1 << fragment(entry.hash, shift);
  const index = bitCount(node.bitmap & (bit - 1));
  const target = editableBranch(node, owner);
  if ((node.bitmap & bit) === 0) {
    target.slots.splice(index, 0, entry);
    target.bitmap |= bit;
    change.sizeDelta = 1;
    return target;
  }
  const slot = target.slots[index] as Slot<V>;
  if (slot.kind === "branch") {
    target.slots[index] = setIn(slot, owner, entry, shift + BITS, change);
  } else if (slot.kind === "entry" && slot.key === entry.key) {
    target.slots[index] = entry;
  } else if (slot.kind === "collision" && slot.hash === entry.hash) {
    const entries = slot.owner === owner ? slot.entries : slot.entries.slice();
    const at = entries.findIndex((candidate) => candidate.key === entry.key);
    if (at >= 0) entries[at] = entry;
    else {
      entries.push(entry);
      change.sizeDelta = 1;
    }
    target.slots[index] = slot.owner === owner ? slot : { kind: "collision", owner, hash: slot.hash, entries };
  } else {
    target.slots[index] = mergeSlots(slot, entry, shift + BITS, owner);
    change.sizeDelta = 1;
  }
  return target;
}

/** The branch without `key`; a branch left with a single entry or collision is replaced by it in its parent. */
function deleteIn<V>(node: Branch<V>, owner: OwnerToken, key: string, hash: number, shift: number, change: Change): Branch<V> {
  const bit = 1 << fragment(hash, shift);
  if ((node.bitmap & bit) === 0) return node;
  const index = bitCount(node.bitmap & (bit - 1));
  const slot = node.slots[index] as Slot<V>;
  let replacement: Slot<V> | null;
  if (slot.kind === "entry") {
    if (slot.key !== key) return node;
    replacement = null;
  } else if (slot.kind === "collision") {
    const at = slot.entries.findIndex((candidate) => candidate.key === key);
    if (at < 0) return node;
    const entries = slot.entries.filter((_, i) => i !== at);
    replacement = entries.length === 1 ? (entries[0] as Entry<V>) : { kind: "collision", owner, hash: slot.hash, entries };
  } else {
    const child = deleteIn(slot, owner, key, hash, shift + BITS, change);
    if (change.sizeDelta === 0) return node;
    const only = child.slots[0];
    if (only === undefined) replacement = null;
    else replacement = child.slots.length === 1 && only.kind !== "branch" ? only : child;
  }
  change.sizeDelta = -1;
  const target = editableBranch(node, owner);
  if (replacement === null) {
    target.slots.splice(index, 1);
    target.bitmap &= ~bit;
  } else {
    target.slots[index] = replacement;
  }
  return target;
}

function* slotEntries<V>(slot: Slot<V>): Generator<Entry<V>> {
  if (slot.kind === "entry") yield slot;
  else if (slot.kind === "collision") yield* slot.entries;
  else for (const child of slot.slots) yield* slotEntries(child);
}

function differences<V>(a: Branch<V>, b: Branch<V>, onDifference: (key: string, a: V | undefined, b: V | undefined) => void): void {
  if (a === b) return;
  const bits = a.bitmap | b.bitmap;
  for (let position = 0; position <= MASK; position++) {
    const bit = 1 << position;
    if ((bits & bit) === 0) continue;
    const sa = (a.bitmap & bit) === 0 ? undefined : a.slots[bitCount(a.bitmap & (bit - 1))];
    const sb = (b.bitmap & bit) === 0 ? undefined : b.slots[bitCount(b.bitmap & (bit - 1))];
    if (sa === sb) continue;
    if (sa?.kind === "branch" && sb?.kind === "branch") {
      differences(sa, sb, onDifference);
      continue;
    }
    // The common shapes after an edit: one entry replaced, added or removed.
    if ((sa === undefined || sa.kind === "entry") && (sb === undefined || sb.kind === "entry")) {
      if (sa !== undefined && sb !== undefined && sa.key === sb.key) {
        if (sa.value !== sb.value) onDifference(sa.key, sa.value, sb.value);
      } else {
        if (sa !== undefined) onDifference(sa.key, sa.value, undefined);
        if (sb !== undefined) onDifference(sb.key, undefined, sb.value);
      }
      continue;
    }
    // Different shapes at this position: compare the (few) entries below it by key.
    const inB = new Map<string, V>();
    if (sb !== undefined) for (const entry of slotEntries(sb)) inB.set(entry.key, entry.value);
    if (sa !== undefined) {
      for (const entry of slotEntries(sa)) {
        const other = inB.get(entry.key);
        if (other !== entry.value) onDifference(entry.key, entry.value, other);
        inB.delete(entry.key);
      }
    }
    for (const [key, value] of inB) onDifference(key, undefined, value);
  }
}

/** Read-only view of a `NameMap`. */
export interface ReadonlyNameMap<V> extends Iterable<[string, V]> {
  readonly size: number;
  get(key: string): V | undefined;
  has(key: string): boolean;
  /**
   * Calls `onDifference` for every key whose value differs (by identity) between this map
   * and `other`, with `undefined` on the side where the key is absent. Trie nodes the two
   * maps share are skipped without being visited.
   */
  forEachDifference(other: ReadonlyNameMap<V>, onDifference: (key: string, mine: V | undefined, theirs: V | undefined) => void): void;
}

export class NameMap<V> implements ReadonlyNameMap<V> {
  private constructor(
    private root: Branch<V>,
    private count: number,
    private readonly owner: OwnerToken,
  ) {}

  static empty<V>(owner: OwnerToken): NameMap<V> {
    return new NameMap<V>({ kind: "branch", owner, bitmap: 0, slots: [] }, 0, owner);
  }

  /** A map with the same entries for version `owner`, sharing every trie node (O(1)). */
  fork(owner: OwnerToken): NameMap<V> {
    return new NameMap(this.root, this.count, owner);
  }

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    const hash = hashName(key);
    let node: Branch<V> = this.root;
    for (let shift = 0; ; shift += BITS) {
      const bit = 1 << fragment(hash, shift);
      if ((node.bitmap & bit) === 0) return undefined;
      const slot = node.slots[bitCount(node.bitmap & (bit - 1))] as Slot<V>;
      if (slot.kind === "branch") node = slot;
      else if (slot.kind === "entry") return slot.key === key ? slot.value : undefined;
      else return slot.entries.find((entry) => entry.key === key)?.value;
    }
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets `key`, editing in place the trie nodes this map's version owns and copying the others. */
  set(key: string, value: V): this {
    const change: Change = { sizeDelta: 0 };
    this.root = setIn(this.root, this.owner, { kind: "entry", key, hash: hashName(key), value }, 0, change);
    this.count += change.sizeDelta;
    return this;
  }

  delete(key: string): boolean {
    const change: Change = { sizeDelta: 0 };
    this.root = deleteIn(this.root, this.owner, key, hashName(key), 0, change);
    this.count += change.sizeDelta;
    return change.sizeDelta !== 0;
  }

  *[Symbol.iterator](): Iterator<[string, V]> {
    for (const entry of slotEntries(this.root)) yield [entry.key, entry.value];
  }

  forEachDifference(other: ReadonlyNameMap<V>, onDifference: (key: string, mine: V | undefined, theirs: V | undefined) => void): void {
    if (other instanceof NameMap) {
      differences(this.root, (other as NameMap<V>).root, onDifference);
      return;
    }
    for (const [key, value] of this) if (other.get(key) !== value) onDifference(key, value, other.get(key));
    for (const [key, value] of other) if (!this.has(key)) onDifference(key, undefined, value);
  }
}
