/**
 * A run's (or a session's) outcome as its badge says it: in the sidebar, on the run page and in
 * the eval's list of runs alike. The eval once counted its own way (failed calls plus the run's
 * `error.json`) and said "7 failed" beside a sidebar saying "6 failed" for the same run; both
 * now say this. The run's error is not a failed call: it has its own box on the run page and
 * its own failure group in the eval.
 */

/** What a badge counts: a run's or session's stats (`RunStats`), or an eval row carrying them. */
export interface OutcomeFigures {
  readonly outcome: string;
  readonly failed_calls: number;
  readonly errors: number;
}

/** `ok`, `2 failed` (tool calls), `1 error` (events carrying one), else `error` (a run error, a line that did not load). */
export function outcomeText(figures: OutcomeFigures): string {
  if (figures.outcome === "ok") return "ok";
  if (figures.failed_calls > 0) return `${figures.failed_calls} failed`;
  if (figures.errors > 0) return `${figures.errors} error${figures.errors === 1 ? "" : "s"}`;
  return "error";
}
