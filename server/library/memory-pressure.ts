/**
 * After a big transient allocation (parsing a 25 MB session line leaves its bytes and its
 * text behind), ask V8 for a full collection at once instead of letting the heap grow
 * around the garbage: the server's peak memory then follows what it keeps, not what it
 * once read. Uses V8's `gc` through a fresh context (the documented `--expose-gc` flag set
 * at run time); when that is unavailable it does nothing.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collect: (() => void) | null | undefined;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    collect = typeof gc === "function" ? (gc as () => void) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Bytes of transient garbage worth an immediate full collection. */
export const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;

let pending: NodeJS.Immediate | null = null;

/** Schedules one full collection after the current work (coalesced). */
export function collectGarbageSoon(): void {
  if (pending !== null) return;
  pending = setImmediate(() => {
    pending = null;
    collector()?.();
  });
}
