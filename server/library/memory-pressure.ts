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

/**
 * How much V8 lets the old generation grow past what the last full collection kept, in
 * percent (V8's own choice, by allocation rate, goes up to 4×). The server keeps its caches
 * within `--memory`, and what it allocates beyond them is answers and parses that die young
 * or soon after — 200 users walking 1,000 runs made ~15 MiB of it a second — so V8 grew
 * the heap to about twice what lived (heap 190–216 MiB for ~90 kept), and the process
 * kept those pages: RSS 345–392 MiB (docs/benchmarks.md, served mode). At 20% the heap
 * stays near what lives (131 MiB) and ArrayBuffers are freed sooner (external memory
 * 48 MiB, was 87–108); the extra collections did not show in the walk's latency.
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * How much V8 grows the young generation each time it finds it too small: 1, it does not
 * grow. It starts at 2 semi-spaces of 1 MiB; under a server's load V8 grew it to its
 * 2 × 16 MiB maximum, and the process kept those 32 MiB (its size is otherwise fixed at
 * start, `--max-semi-space-size` being a node flag). Kept at its start the young generation
 * is 4 MiB: RSS 230–239 MiB against 255–277 MiB at 200 users (docs/benchmarks.md, served
 * mode), the walk no slower at that load; objects that outlive a smaller young generation
 * are promoted sooner, and the bounded old generation collects them.
 */
export const SEMI_SPACE_GROWTH_FACTOR = 1;

/**
 * The growth a command that reads thousands of runs once (`failures`, `index`) allows: what
 * lives is small there (a digest per run, the caches within the default `--memory`), and
 * nearly all it allocates is each run's parse, dropped once its digest is made. Left to
 * itself V8 grew the heap to ~140 MiB for ~35 MiB that lived at the end of 10,000 runs (peak
 * RSS 275–336 MiB against the 256); at 100% the same index peaked at 201 MiB.
 * Not the server's 20%: a command's collections are time its user waits, and at 20% the
 * index took ~40% more CPU. A bound on growth, not a cap: a run bigger than any before still
 * loads (the heap grows around it), where `--max-old-space-size` would crash on it.
 */
export const COMMAND_HEAP_GROWING_PERCENT = 100;

/**
 * For a long-running server: holds the heap's growth to {@link HEAP_GROWING_PERCENT} and the
 * young generation to its starting size ({@link SEMI_SPACE_GROWTH_FACTOR}) for the whole
 * process (worker threads too: V8's flags are the process's). Call it before the heap grows:
 * V8 reads the flags at each collection, and a young generation grown already does not
 * shrink back.
 */
export function boundHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  setFlagsFromString(`--semi-space-growth-factor=${SEMI_SPACE_GROWTH_FACTOR}`);
}

/**
 * For a command that reads every run once and exits: the heap's growth held to
 * {@link COMMAND_HEAP_GROWING_PERCENT}, the young generation left to V8 (a smaller one would
 * promote each run's parse and cost full collections the user waits for).
 */
export function boundCommandHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${COMMAND_HEAP_GROWING_PERCENT}`);
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

