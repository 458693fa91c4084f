/**
 * Which groups the eval view lists, for the filter's text in the URL (pure: tested without a
 * browser). Its runs are filtered by the server (`/api/failures/runs`, shared/viewer/eval-runs.ts).
 */
import type { EvalSummaryResponse, FailureGroupResponse } from "../../api/api.js";

/** The groups the filter's text keeps (all without one), sorted by runs affected as the answer is. */
export function filterGroups(summary: EvalSummaryResponse, q: string | undefined): FailureGroupResponse[] {
  const text = (q ?? "").trim().toLowerCase();
  if (text === "") return summary.groups;
  return summary.groups.filter((group) => group.signature.toLowerCase().includes(text) || group.example.message.toLowerCase().includes(text));
}
