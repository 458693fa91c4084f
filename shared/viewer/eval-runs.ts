/**
 * The eval's run list, filtered and paged: what `/api/failures/runs` answers (the server, and
 * the in-page API for dropped files, from the same overview). Pure and browser-safe.
 */
import type { EvalOverview } from "./eval-summary.js";
import type { EvalRunPageView, EvalRunView } from "./types.js";

export interface EvalFilter {
  /** A group's signature: its runs only. */
  readonly group?: string | undefined;
  readonly outcome?: "ok" | "failed" | "error" | undefined;
  readonly tag?: string | undefined;
  /** Dates (`YYYY-MM-DD`) or date-times; `until` as a date includes that whole day. */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  /** Text the run's path contains (case-insensitive); with `group`, it filters the groups instead. */
  readonly q?: string | undefined;
}

/** Runs one answer lists when the request says no `limit`. */
export const EVAL_RUN_PAGE = 200;

function bound(text: string | undefined, endOfDay: boolean): number | null {
  if (text === undefined || text === "") return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const ms = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return null;
  return dateOnly && endOfDay ? ms + 86_400_000 - 1 : ms;
}

/** The runs the filter keeps, in the overview's order (newest first). */
export function filterRuns(overview: Pick<EvalOverview, "runs" | "groups">, filter: EvalFilter): EvalRunView[] {
  const groupIndex = filter.group === undefined ? -1 : overview.groups.findIndex((group) => group.signature === filter.group);
  const since = bound(filter.since, false);
  const until = bound(filter.until, true);
  const q = (filter.q ?? "").trim().toLowerCase();
  return overview.runs.filter((run) => {
    if (filter.group !== undefined && !run.groups.includes(groupIndex)) return false;
    if (filter.outcome !== undefined && run.outcome !== filter.outcome) return false;
    if (filter.tag !== undefined && !run.tags.includes(filter.tag)) return false;
    const time = Date.parse(run.ended_at ?? run.started_at ?? run.modified_at);
    if (since !== null && !(time >= since)) return false;
    if (until !== null && !(time <= until)) return false;
    if (q !== "" && filter.group === undefined && !run.run.toLowerCase().includes(q)) return false;
    return true;
  });
}

/**
 * `limit` runs (default EVAL_RUN_PAGE) from `offset` of those the filter keeps, each failed
 * one with the newest passing run of the same sample and target (`peer`), out of every run.
 */
export function evalRunPage(overview: Pick<EvalOverview, "runs" | "groups">, filter: EvalFilter, offset = 0, limit = EVAL_RUN_PAGE): EvalRunPageView {
  const kept = filterRuns(overview, filter);
  const page = kept.slice(offset, offset + limit);
  const peers = new Map<string, string>();
  if (page.some((run) => run.outcome === "failed" && run.sample !== null)) {
    // Newest first: the first passing run of a sample is its newest.
    for (const run of overview.runs) {
      if (run.outcome !== "ok" || run.sample === null) continue;
      const key = `${run.target ?? ""}\u0000${run.sample}`;
      if (!peers.has(key)) peers.set(key, run.run);
    }
  }
  return {
    offset,
    total: kept.length,
    runs: page.map((run) => ({ ...run, peer: run.outcome === "failed" && run.sample !== null ? (peers.get(`${run.target ?? ""}\u0000${run.sample}`) ?? null) : null })),
  };
}
