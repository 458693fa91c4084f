/**
 * Two bundles side by side — attempts and iterations of one request, or any two runs: their
 * status, every numeric metric with its change, the workspace diff (sizes and CRC-32s from
 * the zips' central directories, nothing inflated) and the slice changes between their
 * sessions. File and slice details come from the usual diff routes with the two bundles as
 * the two sides.
 */
import type { JsonValue } from "../session/json-value.js";
import { isJsonObject } from "../session/json-value.js";
import type { SessionSnapshot } from "../session/snapshot-line.js";
import { diffFileLists, diffSliceSummaries } from "../viewer/snapshot-diff.js";
import type { DebugBundle } from "./bundle.js";
import type { BundleCompareView, MetricComparisonView } from "./types.js";

const MAX_METRIC_DEPTH = 8;

/** Numeric leaves of a metrics object by dotted path, in document order. */
function numericLeaves(value: JsonValue | null, prefix: string, depth: number, into: Map<string, number>): void {
  if (depth > MAX_METRIC_DEPTH || !isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const child = value[key] ?? null;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (typeof child === "number") into.set(path, child);
    else if (typeof child === "bigint") into.set(path, Number(child));
    else numericLeaves(child, path, depth + 1, into);
  }
}

/** Every numeric metric of either side (base order first), with target − base. */
export function compareMetrics(base: unknown, target: unknown): MetricComparisonView[] {
  const before = new Map<string, number>();
  const after = new Map<string, number>();
  numericLeaves((base ?? null) as JsonValue, "", 0, before);
  numericLeaves((target ?? null) as JsonValue, "", 0, after);
  const metrics = [...new Set([...before.keys(), ...after.keys()])];
  return metrics.map((metric) => {
    const a = before.get(metric) ?? null;
    const b = after.get(metric) ?? null;
    return { metric, base: a, target: b, delta: a !== null && b !== null && Number.isFinite(a) && Number.isFinite(b) ? b - a : null };
  });
}

async function defaultSnapshot(bundle: DebugBundle): Promise<Pick<SessionSnapshot, "slices">> {
  const session = await bundle.session();
  return (session.defaultLine === null ? undefined : session.snapshot(session.defaultLine)) ?? { slices: [] };
}

/** `base` and `target` compared. */
export async function compareBundles(base: DebugBundle, target: DebugBundle): Promise<BundleCompareView> {
  const [baseSummary, targetSummary] = await Promise.all([base.summary(), target.summary()]);
  const baseFiles = base.workspace();
  const targetFiles = target.workspace();
  const [baseEntries, targetEntries] = await Promise.all([baseFiles?.list() ?? [], targetFiles?.list() ?? []]);
  const { diff: _diff, ...files } = diffFileLists({ kind: baseFiles?.kind ?? null, entries: baseEntries }, { kind: targetFiles?.kind ?? null, entries: targetEntries });
  const baseSnapshot = await defaultSnapshot(base);
  const targetSnapshot = await defaultSnapshot(target);
  return {
    base: baseSummary,
    target: targetSummary,
    same_group: baseSummary.group_id === targetSummary.group_id,
    status: { base: baseSummary.status, target: targetSummary.status, changed: baseSummary.status !== targetSummary.status },
    metrics: compareMetrics(baseSummary.metrics, targetSummary.metrics),
    files,
    slices: diffSliceSummaries(baseSnapshot, targetSnapshot),
  };
}
