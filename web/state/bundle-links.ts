/** Where the bundle views link to: a bundle's default line, two runs compared, a run named by its place in its request. */
import type { BundleSummaryResponse } from "../api/bundle-api.js";
import type { ViewPatch } from "./view-state.js";

/** The line a bundle opens on: after the run when it loads, else before (a failed run). */
export function bundleLine(summary: Pick<BundleSummaryResponse, "session">): number {
  return summary.session.default_line ?? 1;
}

/** The compare view with `base` against `target` (workspace and slices; metrics and status above them). */
export function compareBundlesPatch(base: BundleSummaryResponse, target: BundleSummaryResponse): ViewPatch {
  return { view: "compare", file: target.path, line: bundleLine(target), base: { file: base.path, line: bundleLine(base) }, path: undefined, slice: undefined, at: undefined, side: undefined, panel: undefined, entry: undefined, facets: undefined };
}

/** `iteration 2`, `attempt 3`, else the bundle's creation time: what tells runs of one request apart. */
export function runLabel(summary: Pick<BundleSummaryResponse, "iteration" | "attempt" | "created_at">): string {
  if (summary.iteration !== null) return `iteration ${summary.iteration}`;
  if (summary.attempt !== null && summary.attempt > 1) return `attempt ${summary.attempt}`;
  const time = /T(\d{2}:\d{2}:\d{2})/.exec(summary.created_at);
  return time === null ? summary.created_at : `run at ${time[1]}`;
}
