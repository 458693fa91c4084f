/**
 * After a big transient allocation (parsing a 25 MB session line leaves its bytes and its
 * text behind), ask V8 for a full collection at once instead of letting the heap grow
 * around the garbage: the server's peak memory then follows what it keeps, not what it
 * once read. Uses V8's `gc` through a fresh context (the documented `--expose-gc` flag set
 * at run time); when that is unavailable it does nothing.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** V8's `gc`: a full collection, or with `{ type: "minor" }` only the young generation (~1 ms). */
type Collect = (options?: { type: "minor" | "major" }) => void;

let collect: Collect | null | undefined;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    collect = typeof gc === "function" ? (gc as Collect) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Bytes of transient garbage worth an immediate full collection. */
export const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;

let pending: NodeJS.Immediate | null = null;
let pendingType: "minor" | "major" = "minor";

/**
 * Schedules one collection after the current work (coalesced; a full one when any caller
 * asked for it). `minor`: only the young generation, for short-lived objects that hold
 * big buffers (the chunks of an answer sent as the worker writes it).
 */
export function collectGarbageSoon(type: "minor" | "major" = "major"): void {
  if (type === "major") pendingType = "major";
  if (pending !== null) return;
  pending = setImmediate(() => {
    const options = { type: pendingType };
    pending = null;
    pendingType = "minor";
    collector()?.(options);
  });
}

