/**
 * Long synchronous work cut into slices: `due()` says when a slice has run its time, and
 * `pause()` lets the event loop answer what waits (timers, sockets) before the next one.
 * Indexing a 290 MB session file ran 17 s with every other request of the server waiting:
 * its reads were awaited, but a read of a file in the page cache completes at once, so the
 * loop's other callbacks never got their turn.
 */
export const DEFAULT_SLICE_MS = 20;

/** How many `due()` calls pass between two looks at the clock (a clock read per line would cost more than the line). */
const CALLS_PER_CLOCK_READ = 256;

export class EventLoopSlices {
  readonly #sliceMs: number;
  #sliceStart = performance.now();
  #calls = 0;

  constructor(sliceMs: number = DEFAULT_SLICE_MS) {
    this.#sliceMs = sliceMs;
  }

  /** True when the current slice has run `sliceMs` (checked every few calls). */
  due(): boolean {
    if (++this.#calls < CALLS_PER_CLOCK_READ) return false;
    this.#calls = 0;
    return performance.now() - this.#sliceStart >= this.#sliceMs;
  }

  /** Waits for the event loop's next turn (after its I/O callbacks), then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#sliceStart = performance.now();
    this.#calls = 0;
  }
}
