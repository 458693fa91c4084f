/**
 * A bound on the bytes of store reads held at once (`SourceOptions.gate`). Each `Source.read`
 * holds its whole range in one buffer until the caller has it: 200 users opening runs at once
 * had that many buffers filling together, beside the caches of the memory budget. Reads wait
 * their turn in order (first come, first served: a small read never overtakes a large one
 * forever), and a read larger than the whole bound still goes, alone. A read that holds its
 * turn past `stallMs` (a store that stopped answering) stops counting against the others: it
 * keeps its bytes until its own deadline ends it, but the reads behind it, which have no
 * deadline while they wait, are not held for as long. Browser-safe.
 */
export interface ReadGate {
  /** Waits until `bytes` more may be held; the function given back lets them go (once). */
  acquire(bytes: number, signal?: AbortSignal): Promise<() => void>;
}

export interface ByteGateOptions {
  /** Called for each admitted read with its bytes; what it gives back is called when they go (the server counts them in `--memory`). */
  readonly onHold?: (bytes: number) => () => void;
  /**
   * After this long an admitted read no longer blocks those waiting (default: never). Its
   * bytes stay told to `onHold` until it is let go; only the gate stops waiting for them.
   */
  readonly stallMs?: number;
}

interface Waiter {
  readonly bytes: number;
  readonly admit: () => void;
}

export class ByteGate implements ReadGate {
  #held = 0;
  #readers = 0;
  #stalled = 0;
  readonly #queue: Waiter[] = [];
  readonly #onHold: ((bytes: number) => () => void) | undefined;
  readonly #stallMs: number | undefined;

  constructor(
    readonly maxBytes: number,
    options: ByteGateOptions = {},
  ) {
    if (!(maxBytes > 0)) throw new RangeError(`A read gate needs a positive number of bytes, got ${maxBytes}`);
    this.#onHold = options.onHold;
    if (options.stallMs !== undefined && !(options.stallMs > 0)) throw new RangeError(`A read gate's stallMs must be positive, got ${options.stallMs}`);
    this.#stallMs = options.stallMs;
  }

  /** Bytes of the reads admitted and not yet let go. */
  get held(): number {
    return this.#held;
  }

  /** Admitted reads held past `stallMs`, no longer counted in `held`. */
  get stalled(): number {
    return this.#stalled;
  }

  /** Reads waiting for their turn. */
  get waiting(): number {
    return this.#queue.length;
  }

  acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#queue.length === 0 && this.#fits(bytes)) return Promise.resolve(this.#admit(bytes));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        admit: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#admit(bytes));
        },
      };
      const onAbort = (): void => {
        const at = this.#queue.indexOf(waiter);
        if (at !== -1) this.#queue.splice(at, 1);
        // The head may have been the one that did not fit: the next may fit now.
        this.#drain();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #fits(bytes: number): boolean {
    return this.#readers === 0 || this.#held + bytes <= this.maxBytes;
  }

  #admit(bytes: number): () => void {
    this.#held += bytes;
    this.#readers++;
    const unhold = this.#onHold?.(bytes);
    let counted = true;
    let released = false;
    // Out of the gate's count (not the budget's): the waiters go as if this read were done.
    const uncount = (): void => {
      if (!counted) return;
      counted = false;
      this.#held -= bytes;
      this.#readers--;
      this.#drain();
    };
    const stall =
      this.#stallMs === undefined
        ? null
        : setTimeout(() => {
            this.#stalled++;
            uncount();
          }, this.#stallMs);
    // A timer for a read in flight must not keep a finished process alive (Node), if the host has unref.
    (stall as { unref?: () => void } | null)?.unref?.();
    return () => {
      if (released) return;
      released = true;
      if (stall !== null) clearTimeout(stall);
      if (!counted) this.#stalled--;
      unhold?.();
      uncount();
    };
  }

  #drain(): void {
    for (let next = this.#queue[0]; next !== undefined && this.#fits(next.bytes); next = this.#queue[0]) {
      this.#queue.shift();
      next.admit();
    }
  }
}
