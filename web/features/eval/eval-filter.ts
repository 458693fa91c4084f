/** Which runs and groups the eval view lists, for the filters in the URL (pure: tested without a browser). */
import type { EvalRunResponse, EvalSummaryResponse, FailureGroupResponse } from "../../api/api.js";

export interface EvalFilter {
  /** A group's signature: its runs only. */
  readonly group?: string | undefined;
  readonly outcome?: "ok" | "failed" | "error" | undefined;
  readonly tag?: string | undefined;
  /** Dates (`YYYY-MM-DD`) or date-times; `until` as a date includes that whole day. */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  /** Text the group's signature or example, or the run's path, contains (case-insensitive). */
  readonly q?: string | undefined;
}

function bound(text: string | undefined, endOfDay: boolean): number | null {
  if (text === undefined || text === "") return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const ms = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) return null;
  return dateOnly && endOfDay ? ms + 86_400_000 - 1 : ms;
}

/** The runs the filter keeps, in the answer's order (newest first). */
export function filterRuns(summary: EvalSummaryResponse, filter: EvalFilter): EvalRunResponse[] {
  const groupIndex = filter.group === undefined ? -1 : summary.groups.findIndex((group) => group.signature === filter.group);
  const since = bound(filter.since, false);
  const until = bound(filter.until, true);
  const q = (filter.q ?? "").trim().toLowerCase();
  return summary.runs.filter((run) => {
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

/** The groups the filter's text keeps (all without one), sorted by runs affected as the answer is. */
export function filterGroups(summary: EvalSummaryResponse, q: string | undefined): FailureGroupResponse[] {
  const text = (q ?? "").trim().toLowerCase();
  if (text === "") return summary.groups;
  return summary.groups.filter((group) => group.signature.toLowerCase().includes(text) || group.example.message.toLowerCase().includes(text));
}
