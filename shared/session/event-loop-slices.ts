/**
 * Long work cut into slices, so a server answers others while it runs: `due()` says when a
 * slice has run its time, `pause()` gives the event loop a turn (timers, sockets) before the
 * next one, `pace()` does both. Indexing a 290 MB session file ran 17 s with every other
 * request waiting (a read of a file in the page cache completes at once, so awaiting it never
 * let the loop's other callbacks in), and a regular expression search over megabytes held
 * `/api/meta` as long. Browser-safe: the in-browser API runs the same searches.
 */
export const DEFAULT_SLICE_MS = 20;

export interface EventLoopSlicesOptions {
  /** How long a slice runs before the loop gets a turn (default {@link DEFAULT_SLICE_MS}). */
  readonly sliceMs?: number;
  /**
   * How many `due()` calls pass between two looks at the clock: 256 for work done a line at
   * a time (a clock read per line would cost more than the line), 1 where each call is big.
   */
  readonly callsPerClockRead?: number;
}

// Node's setImmediate runs after the loop's I/O callbacks; a browser has only timers.
const nextTurn: (resolve: () => void) => unknown =
  (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate ?? ((resolve) => setTimeout(resolve, 0));

export class EventLoopSlices {
  readonly #sliceMs: number;
  readonly #callsPerClockRead: number;
  #sliceStart = performance.now();
  #calls = 0;

  constructor(options: EventLoopSlicesOptions = {}) {
    this.#sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
    this.#callsPerClockRead = options.callsPerClockRead ?? 256;
  }

  /**
   * True when the current slice has run `sliceMs` (the clock read every `callsPerClockRead`
   * calls). `work` counts one call as that many: a step over a whole session's lines weighs
   * its lines, so the clock is read as often as the lines go by, however they are grouped.
   */
  due(work = 1): boolean {
    this.#calls += work;
    if (this.#calls < this.#callsPerClockRead) return false;
    this.#calls = 0;
    return performance.now() - this.#sliceStart >= this.#sliceMs;
  }

  /** Waits for the event loop's next turn, then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => nextTurn(resolve));
    this.#sliceStart = performance.now();
    this.#calls = 0;
  }

  /** Gives the loop a turn when the slice is due; resolves at once otherwise. */
  async pace(): Promise<void> {
    if (this.due()) await this.pause();
  }
}

/** The slices of a user's search: each step (an item, a 256 KiB piece of a file) is big enough to look at the clock. */
export function searchSlices(): EventLoopSlices {
  return new EventLoopSlices({ sliceMs: 25, callsPerClockRead: 1 });
}

/**
 * Says when a sliced step has worked long enough to give the event loop a turn; `work` is how
 * many items the step just done went over (see {@link EventLoopSlices.due}).
 */
export type Due = (work?: number) => boolean;

/** Runs work written as steps that pause (a generator's `yield`) to its end at once: the in-browser API and tests build without slices. */
export function atOnce<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Runs work written as steps that pause, giving the event loop a turn at each pause. */
export async function inSlices<T>(steps: Generator<void, T, void>, slices: EventLoopSlices): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await slices.pause();
  }
}
