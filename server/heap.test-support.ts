/** Measuring what the server keeps: the heap and the ArrayBuffers after full collections. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** The JS heap and the memory of ArrayBuffers (typed arrays' contents live outside the heap). */
export function heapAndBuffers(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/**
 * A full collection, repeated with turns of the event loop between: ArrayBuffers' memory is
 * given back by V8's sweeper after the collection, concurrently, so one gc() on a loaded
 * machine still counted the file's read buffers (a clean clone's CI saw 176 bytes a line, the
 * file's ~140 plus the index's).
 */
export function collectGarbage(): () => Promise<void> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return async () => {
    for (let round = 0; round < 4; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
}
