/**
 * The open run index (`wink-debug index`, docs/eval.md "The Parquet index") as rows: one per
 * run and one per failure, from the same digests `wink-debug failures` and the eval view
 * count, so that a query over the file gives their counts. A run's place (target, sample,
 * attempt, tags) is the eval view's (`evalSummary`), a failure's signature the groups'
 * (`failureSignature`).
 *
 * One table, not two: Parquet holds one schema per file, and engines that query a bucket
 * (Athena, Spark, DuckDB's globs) take one schema per folder of files; `row_kind` tells the
 * rows apart, and a failure row repeats its run's place, so counting by group and target
 * needs no join. Browser-safe.
 */
import { evalSummary } from "./eval-summary.js";
import type { EvalDigest } from "./eval-summary.js";
import { failureSignature } from "./failure-groups.js";
import type { RunFailureDigestView } from "./types.js";

export const RUN_INDEX_FORMAT = "wink-debug-run-index";
/**
 * Changes when a column changes meaning or goes, or when the viewer needs a new column to read
 * the digests back (2: `size_bytes`, `stats_failed_calls`, `stats_errors`, the `*_text` times,
 * `run_target`, `run_attempt`); other new columns may appear without it.
 */
export const RUN_INDEX_VERSION = 2;

export type RunIndexRowKind = "run" | "failure" | "not_session";

/** One row of the index; which columns a row kind fills is docs/eval.md's table. */
export interface RunIndexRow {
  readonly row_kind: RunIndexRowKind;
  readonly run: string;
  readonly run_kind: "session_file" | "bundle";
  /** `ok`, `failed`, `not_loaded`; null for a `not_session` row. On a failure row: its run's. */
  readonly outcome: "ok" | "failed" | "not_loaded" | null;
  readonly reason: string | null;
  /** Microseconds since the epoch (UTC); null when unknown or not a time. */
  readonly modified_at: bigint | null;
  readonly started_at: bigint | null;
  readonly ended_at: bigint | null;
  readonly duration_ms: number | null;
  readonly tool_calls: number | null;
  readonly failed_calls: number | null;
  /** The run's error (`error.json`) on its run row and on its `run_error` failure row. */
  readonly error_type: string | null;
  readonly error_message: string | null;
  readonly target: string | null;
  readonly sample: string | null;
  readonly request_id: string | null;
  readonly sample_id: string | null;
  readonly attempt: number | null;
  readonly tags: readonly string[];
  readonly failure_kind: "call" | "run_error" | null;
  readonly signature: string | null;
  readonly tool: string | null;
  readonly argument_name: string | null;
  readonly argument_value: string | null;
  readonly message: string | null;
  readonly session_id: string | null;
  readonly turn: number | null;
  readonly failed_at: bigint | null;
  readonly call_id: string | null;
  /** The file's size in bytes (run and not_session rows): with `modified_at`, what tells the viewer the file is unchanged. */
  readonly size_bytes: bigint | null;
  /** The run's own `stats.failed_calls` and `stats.errors` (its badge's counts; `failed_calls` counts `call` failures). */
  readonly stats_failed_calls: number | null;
  readonly stats_errors: number | null;
  /** The times as the run wrote them (offset and digits kept, or text that is no time): what the viewer shows. */
  readonly started_at_text: string | null;
  readonly ended_at_text: string | null;
  readonly failed_at_text: string | null;
  /** What the run's digest itself says of its target and attempt (`target`, `attempt`: its place in the eval). */
  readonly run_target: string | null;
  readonly run_attempt: number | null;
}

const ISO_SECONDS = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO 8601 time as microseconds since the epoch: Python writes microseconds, which a
 * `Date` would cut to milliseconds. A time without an offset is UTC (as WINK writes them);
 * null when the text is not a time.
 */
export function epochMicros(iso: string | null): bigint | null {
  if (iso === null) return null;
  const match = ISO_SECONDS.exec(iso.trim());
  if (match === null) {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? null : BigInt(ms) * 1000n;
  }
  const [, seconds, fraction, offset] = match as unknown as [string, string, string | undefined, string | undefined];
  const zone = offset === undefined || offset.toUpperCase() === "Z" ? "Z" : offset.length === 3 ? `${offset}:00` : offset.includes(":") ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const ms = Date.parse(`${seconds.replace(" ", "T")}${zone}`);
  if (Number.isNaN(ms)) return null;
  return BigInt(ms) * 1000n + BigInt((fraction ?? "").padEnd(6, "0").slice(0, 6));
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Milliseconds from `started` to `ended`, or null when either is unknown. */
function durationMs(started: bigint | null, ended: bigint | null): number | null {
  return started === null || ended === null ? null : Number(ended - started) / 1000;
}

const NO_FAILURE = {
  failure_kind: null,
  signature: null,
  tool: null,
  argument_name: null,
  argument_value: null,
  message: null,
  session_id: null,
  turn: null,
  failed_at: null,
  call_id: null,
  failed_at_text: null,
} as const;

const NO_RUN_FIGURES = {
  reason: null,
  modified_at: null,
  started_at: null,
  ended_at: null,
  duration_ms: null,
  tool_calls: null,
  failed_calls: null,
  size_bytes: null,
  stats_failed_calls: null,
  stats_errors: null,
  started_at_text: null,
  ended_at_text: null,
  run_target: null,
  run_attempt: null,
} as const;

/**
 * The rows of `digests` (every run of the target, as `readRunDigests` gives them): runs by
 * path, each followed by its failures in the digest's order (failed calls in time order, then
 * the run error); `.json` files that are not sessions as `not_session` rows. `sizes` are the
 * files' sizes by run (`size_bytes`; null for a run it does not name). The same digests give
 * the same rows on any machine; `server/library/parquet-index-read.ts` reads them back.
 */
export function runIndexRows(root: string, digests: readonly EvalDigest[], sizes: ReadonlyMap<string, number> = new Map()): RunIndexRow[] {
  const places = new Map(evalSummary(root, digests).runs.map((run) => [run.run, run]));
  const rows: RunIndexRow[] = [];
  for (const digest of [...digests].sort((a, b) => byText(a.run, b.run))) {
    if (digest.outcome === "not_session") {
      rows.push({
        row_kind: "not_session",
        run: digest.run,
        run_kind: digest.kind,
        outcome: null,
        ...NO_RUN_FIGURES,
        // Its reason too ("not a session file"): the row is all the viewer keeps of it.
        reason: digest.reason,
        modified_at: epochMicros(digest.modified_at),
        size_bytes: sizeOf(sizes, digest.run),
        error_type: null,
        error_message: null,
        target: null,
        sample: null,
        request_id: null,
        sample_id: null,
        attempt: null,
        tags: [],
        ...NO_FAILURE,
      });
      continue;
    }
    const place = places.get(digest.run);
    const runError = digest.failures.find((failure) => failure.kind === "run_error") ?? null;
    const shared = {
      run: digest.run,
      run_kind: digest.kind,
      outcome: digest.outcome,
      target: place?.target ?? null,
      sample: place?.sample ?? null,
      request_id: digest.request_id ?? null,
      sample_id: digest.sample_id ?? null,
      attempt: place?.attempt ?? null,
      tags: [...(digest.tags ?? [])],
    };
    const startedAt = epochMicros(digest.started_at);
    const endedAt = epochMicros(digest.ended_at);
    rows.push({
      row_kind: "run",
      ...shared,
      reason: digest.reason,
      modified_at: epochMicros(digest.modified_at),
      started_at: startedAt,
      ended_at: endedAt,
      duration_ms: durationMs(startedAt, endedAt),
      tool_calls: digest.tool_calls,
      failed_calls: digest.failures.filter((failure) => failure.kind === "call").length,
      error_type: runError?.error_type ?? null,
      error_message: runError?.message ?? null,
      ...NO_FAILURE,
      size_bytes: sizeOf(sizes, digest.run),
      stats_failed_calls: digest.failed_calls,
      stats_errors: digest.errors,
      started_at_text: digest.started_at,
      ended_at_text: digest.ended_at,
      run_target: digest.target ?? null,
      run_attempt: digest.attempt ?? null,
    });
    for (const failure of digest.failures) rows.push(failureRow(shared, failure));
  }
  return rows;
}

function failureRow(run: Pick<RunIndexRow, "run" | "run_kind" | "outcome" | "target" | "sample" | "request_id" | "sample_id" | "attempt" | "tags">, failure: RunFailureDigestView): RunIndexRow {
  return {
    row_kind: "failure",
    ...run,
    ...NO_RUN_FIGURES,
    error_type: failure.kind === "run_error" ? failure.error_type : null,
    error_message: null,
    failure_kind: failure.kind,
    signature: failureSignature(failure),
    tool: failure.tool,
    argument_name: failure.argument?.name ?? null,
    argument_value: failure.argument?.value ?? null,
    message: failure.message,
    session_id: failure.session_id,
    turn: failure.turn,
    failed_at: epochMicros(failure.created_at),
    call_id: failure.call_id,
    failed_at_text: failure.created_at,
  };
}

function sizeOf(sizes: ReadonlyMap<string, number>, run: string): bigint | null {
  const size = sizes.get(run);
  return size === undefined ? null : BigInt(size);
}
