/**
 * Reads small files ahead of a consumer that takes them in order (an archive export), so the
 * driver's latency per call — a thread-pool round trip on the host, a request to a container —
 * overlaps the consumer's work instead of adding to it. Bounded by a byte budget and a count,
 * so a tree of any size holds at most that much read ahead.
 */
export interface ReadAheadOptions {
  /** Files larger than this are not read ahead (the consumer streams them itself). */
  readonly maxFileBytes: number;
  /** Bytes read ahead and not yet taken, at most (one file may exceed it when nothing is pending). */
  readonly budgetBytes: number;
  /** Reads in flight or waiting, at most. */
  readonly maxPending: number;
}

export class ReadAhead<T extends { readonly kind: string; readonly size: number }> {
  private readonly pending = new Map<number, Promise<Uint8Array>>();
  private pendingBytes = 0;
  private scanned = 0;

  constructor(
    private readonly items: readonly T[],
    private readonly read: (item: T) => Promise<Uint8Array>,
    private readonly options: ReadAheadOptions,
  ) {}

  /** Whether item `index` is read whole by `take` (a small, non-empty file) rather than streamed. */
  isSmall(index: number): boolean {
    const item = this.items[index];
    return item !== undefined && item.kind === "file" && item.size > 0 && item.size <= this.options.maxFileBytes;
  }

  /** The content of small file `index`, and reads of the small files after it started. */
  async take(index: number): Promise<Uint8Array> {
    const item = this.items[index];
    if (item === undefined || !this.isSmall(index)) throw new RangeError(`item ${index} is not a small file`);
    let read = this.pending.get(index);
    if (read === undefined) {
      read = this.read(item);
    } else {
      this.pending.delete(index);
      this.pendingBytes -= item.size;
    }
    this.scanned = Math.max(this.scanned, index + 1);
    this.fill();
    return read;
  }

  private fill(): void {
    const { budgetBytes, maxPending } = this.options;
    while (this.scanned < this.items.length && this.pending.size < maxPending) {
      const index = this.scanned;
      const item = this.items[index] as T;
      if (this.isSmall(index)) {
        if (this.pending.size > 0 && this.pendingBytes + item.size > budgetBytes) return;
        const read = this.read(item);
        // A read nobody takes (the consumer failed first) must not surface as unhandled.
        read.catch(() => undefined);
        this.pending.set(index, read);
        this.pendingBytes += item.size;
      }
      this.scanned++;
    }
  }
}
