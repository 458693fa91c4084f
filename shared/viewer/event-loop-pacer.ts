/**
 * Lets a long search give the event loop a turn: `pace()` resolves at once until `sliceMs`
 * of work have gone by since the last turn, then waits one timer tick, so other requests (a
 * page, `/api/meta`) answer while a search over megabytes runs. A timer, not `setImmediate`,
 * so the same code runs in the browser.
 */
export interface EventLoopPacer {
  pace(): Promise<void>;
}

export function createPacer(sliceMs = 25, now: () => number = () => Date.now()): EventLoopPacer {
  let last = now();
  return {
    async pace() {
      if (now() - last < sliceMs) return;
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      last = now();
    },
  };
}
