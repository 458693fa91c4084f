/**
 * Bundles of one request belong together: retries share a `request_id`, iterations of one
 * task share a `trace_id` (WINK's `run_context`), and an EvalLoop writes its bundles under
 * `{target}/{request_id}/` even when the manifest's own request id is empty.
 */
import type { BundleGroupView, BundleSummaryView } from "./types.js";

export interface GroupKeyInput {
  /** The bundle's path (`/`-separated). */
  readonly path: string;
  readonly bundleId: string;
  readonly requestId: string;
  readonly traceId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The group a bundle belongs to, and what its bundles share. */
export function groupIdOf(input: GroupKeyInput): { id: string; key: BundleGroupView["key"] } {
  if (input.traceId !== null && input.traceId !== "") return { id: `trace:${input.traceId}`, key: "trace_id" };
  if (input.requestId !== "") return { id: `request:${input.requestId}`, key: "request_id" };
  const slash = input.path.lastIndexOf("/");
  const folder = slash === -1 ? "" : input.path.slice(0, slash);
  const folderName = folder.slice(folder.lastIndexOf("/") + 1);
  if (UUID.test(folderName)) return { id: `folder:${folder}`, key: "folder" };
  return { id: `bundle:${input.path}`, key: "bundle" };
}

/** Run order within a group: iteration, then attempt, then start time. */
function runOrder(a: BundleSummaryView, b: BundleSummaryView): number {
  const number = (value: number | null) => value ?? Number.POSITIVE_INFINITY;
  return number(a.iteration) - number(b.iteration) || number(a.attempt) - number(b.attempt) || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) || (a.path < b.path ? -1 : 1);
}

/** Groups bundles by request; groups ordered newest first, bundles in run order. */
export function groupBundles(summaries: readonly BundleSummaryView[]): BundleGroupView[] {
  const groups = new Map<string, BundleGroupView>();
  for (const summary of summaries) {
    let group = groups.get(summary.group_id);
    if (group === undefined) {
      const key = summary.group_id.slice(0, summary.group_id.indexOf(":"));
      group = { group_id: summary.group_id, key: key === "trace" ? "trace_id" : key === "request" ? "request_id" : key === "folder" ? "folder" : "bundle", bundles: [] };
      groups.set(summary.group_id, group);
    }
    group.bundles.push(summary);
  }
  const newest = (group: BundleGroupView) => group.bundles.reduce((latest, bundle) => (bundle.created_at > latest ? bundle.created_at : latest), "");
  for (const group of groups.values()) group.bundles.sort(runOrder);
  return [...groups.values()].sort((a, b) => (newest(a) > newest(b) ? -1 : newest(a) < newest(b) ? 1 : a.group_id < b.group_id ? -1 : 1));
}

/** The bundle run just before `path` in its request's group, or null when it is the first (or alone). */
export function previousRun(summaries: readonly BundleSummaryView[], path: string): string | null {
  for (const group of groupBundles(summaries)) {
    const position = group.bundles.findIndex((bundle) => bundle.path === path);
    if (position !== -1) return group.bundles[position - 1]?.path ?? null;
  }
  return null;
}

/** The paths of the bundles in the same request's group as `path` (itself included). */
export function sameRequest(summaries: readonly BundleSummaryView[], path: string): Set<string> {
  const group = summaries.find((summary) => summary.path === path)?.group_id;
  return new Set(summaries.filter((summary) => summary.group_id === group).map((summary) => summary.path));
}
