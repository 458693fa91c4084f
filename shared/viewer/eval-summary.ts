/**
 * The eval view's answers, from run digests: the outcomes (overall and per target and
 * attempt), each run with the failure groups it is in, and a group's occurrences. Pure and
 * browser-safe: the server answers `/api/failures` with it and the in-page API (dropped files)
 * computes the same answer from the same digests.
 */
import { failureSignature, groupFailures } from "./failure-groups.js";
import { compareTimes } from "./times.js";
import type { EvalRunView, EvalSummaryView, FailureOccurrencesView, IndexProgressView, RunDigestView } from "./types.js";

/**
 * The whole eval: `/api/failures`'s answer and every run, newest first (what
 * `/api/failures/runs` pages through, `evalRunPage`).
 */
export interface EvalOverview extends EvalSummaryView {
  readonly runs: EvalRunView[];
}

/** `/api/failures`'s answer: the overview without its runs. */
export function summaryOf(overview: EvalOverview): EvalSummaryView {
  const { runs: _runs, ...summary } = overview;
  return summary;
}

/** What a digest may say about its place in an eval (a run index that read the bundle's manifest does). */
export interface EvalPlace {
  readonly target?: string | null;
  readonly request_id?: string | null;
  readonly sample_id?: string | null;
  readonly attempt?: number | null;
  readonly tags?: readonly string[];
}

export type EvalDigest = RunDigestView & EvalPlace;

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Where a run sits in an EvalLoop folder, `{target}/{request_id}/{bundle}.zip`: with two
 * folders or more, the last is the sample and the rest the target; with one, it is the target.
 */
export function placeFromPath(run: string): { target: string | null; sample: string | null } {
  const folders = run.split("/").slice(0, -1);
  if (folders.length >= 2) return { target: folders.slice(0, -1).join("/"), sample: folders[folders.length - 1] as string };
  if (folders.length === 1) return { target: folders[0] as string, sample: null };
  return { target: null, sample: null };
}

/** When a run happened, for ordering: its end, else its start, else its file's time. */
function runTime(digest: RunDigestView): string {
  return digest.ended_at ?? digest.started_at ?? digest.modified_at;
}

/** Newest first, then by path (the same order on every machine). */
function newestFirst(a: { run: string; time: string }, b: { run: string; time: string }): number {
  return compareTimes(b.time, a.time) || byText(a.run, b.run);
}

/**
 * The eval of `digests` (every run of the target; `.json` files that are not sessions are
 * listed apart). A run's attempt is its own when it says one, else its place in time among
 * the runs of its sample (1 for the earliest) when the sample has more than one run. `index`:
 * how far the digests cover the target (default: they are all of it).
 */
export function evalSummary(root: string, digests: readonly EvalDigest[], index: IndexProgressView = { indexed: digests.length, total: digests.length, complete: true }): EvalOverview {
  const runs = digests.filter((digest) => digest.outcome !== "not_session");
  const groups = groupFailures(runs);
  const groupIndex = new Map(groups.map((group, index) => [group.signature, index]));

  const places = runs.map((digest) => {
    const fromPath = placeFromPath(digest.run);
    const sample = digest.sample_id ?? (digest.request_id === "" ? null : (digest.request_id ?? null)) ?? fromPath.sample;
    return { target: digest.target ?? fromPath.target, sample, attempt: digest.attempt ?? null };
  });
  // Attempts the runs do not say: their order in time within the sample.
  const bySample = new Map<string, number[]>();
  places.forEach((place, index) => {
    if (place.sample === null || place.attempt !== null) return;
    const key = `${place.target ?? ""}\u0000${place.sample}`;
    const list = bySample.get(key);
    if (list === undefined) bySample.set(key, [index]);
    else list.push(index);
  });
  for (const indexes of bySample.values()) {
    if (indexes.length < 2) continue;
    indexes.sort((a, b) => compareTimes(runTime(runs[a] as RunDigestView), runTime(runs[b] as RunDigestView)) || byText((runs[a] as RunDigestView).run, (runs[b] as RunDigestView).run));
    indexes.forEach((runIndex, order) => {
      (places[runIndex] as { attempt: number | null }).attempt = order + 1;
    });
  }

  const tags = new Set<string>();
  const rows = runs.map((digest, index): EvalRunView & { time: string } => {
    const place = places[index] as { target: string | null; sample: string | null; attempt: number | null };
    for (const tag of digest.tags ?? []) tags.add(tag);
    const inGroups = new Set<number>();
    for (const failure of digest.failures) {
      const at = groupIndex.get(failureSignature(failure));
      if (at !== undefined) inGroups.add(at);
    }
    return {
      run: digest.run,
      kind: digest.kind,
      outcome: digest.outcome === "not_loaded" ? "error" : digest.outcome === "failed" ? "failed" : "ok",
      reason: digest.reason,
      modified_at: digest.modified_at,
      started_at: digest.started_at,
      ended_at: digest.ended_at,
      tool_calls: digest.tool_calls,
      failures: digest.failures.length,
      failed_calls: digest.failed_calls,
      errors: digest.errors,
      target: place.target,
      sample: place.sample,
      attempt: place.attempt,
      tags: [...(digest.tags ?? [])],
      groups: [...inGroups].sort((a, b) => a - b),
      time: runTime(digest),
    };
  });
  rows.sort(newestFirst);

  const count = (list: readonly EvalRunView[]) => ({ runs: list.length, ok: list.filter((run) => run.outcome === "ok").length, failed: list.filter((run) => run.outcome === "failed").length, error: list.filter((run) => run.outcome === "error").length });
  const cells = new Map<string, EvalRunView[]>();
  for (const row of rows) {
    if (row.target === null && row.attempt === null) continue;
    const key = `${row.target ?? ""}\u0000${row.attempt ?? ""}`;
    // Pushed, not copied: one target of 10,000 runs is one cell.
    const list = cells.get(key);
    if (list === undefined) cells.set(key, [row]);
    else list.push(row);
  }
  const breakdown = [...cells.values()]
    .map((list) => ({ target: (list[0] as EvalRunView).target, attempt: (list[0] as EvalRunView).attempt, ...count(list) }))
    .sort((a, b) => byText(a.target ?? "", b.target ?? "") || (a.attempt ?? 0) - (b.attempt ?? 0));

  return {
    root,
    index: { ...index },
    outcomes: count(rows),
    breakdown,
    runs: rows.map(({ time: _time, ...row }) => row),
    groups,
    tags: [...tags].sort(byText),
    not_sessions: digests.filter((digest) => digest.outcome === "not_session").map((digest) => digest.run).sort(byText),
  };
}

/** The occurrences of the group `signature` among `digests`: earliest first (unknown times last), then by run. */
export function failureOccurrences(digests: readonly RunDigestView[], signature: string): FailureOccurrencesView {
  const occurrences: FailureOccurrencesView["occurrences"] = [];
  for (const digest of digests) {
    for (const failure of digest.failures) {
      if (failureSignature(failure) !== signature) continue;
      occurrences.push({ run: digest.run, kind: failure.kind, tool: failure.tool, argument: failure.argument, message: failure.message, session_id: failure.session_id, turn: failure.turn, call_id: failure.call_id, created_at: failure.created_at });
    }
  }
  occurrences.sort((a, b) => compareTimes(a.created_at ?? "", b.created_at ?? "") || byText(a.run, b.run) || (a.turn ?? 0) - (b.turn ?? 0));
  return { signature, occurrences };
}
