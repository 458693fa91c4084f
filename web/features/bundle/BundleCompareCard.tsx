/**
 * Two debug bundles side by side, above the compare view's workspace and slice diffs: which
 * run each side is (iteration, attempt, time), their status, and every numeric metric with
 * its change (duration and tokens first; the rest folded). Shown when both sides of a
 * comparison are bundles.
 */
import type { ReactNode } from "react";
import type { BundleCompareResponse } from "../../api/bundle-api.js";
import { ErrorState, Spinner } from "../../components/feedback.js";
import { formatCount, formatDuration } from "../../components/format.js";
import { Link } from "../../components/Link.js";
import { useBundleCompare } from "../../queries/hooks.js";
import { compareBundlesPatch, runLabel } from "../../state/bundle-links.js";

/** The metrics shown without unfolding: what changes between attempts that a reader asks first. */
const HEADLINE = ["timing.duration_ms", "token_usage.input_tokens", "token_usage.output_tokens", "token_usage.total_tokens"];

type Metric = BundleCompareResponse["metrics"][number];

function value(metric: Metric, side: number | null): string {
  if (side === null) return "—";
  return metric.metric.endsWith("duration_ms") || metric.metric.endsWith("latency_ms") ? formatDuration(side) : formatCount(side);
}

function delta(metric: Metric): string {
  if (metric.delta === null || metric.delta === 0) return metric.delta === 0 ? "=" : "";
  const sign = metric.delta > 0 ? "+" : "−";
  const size = Math.abs(metric.delta);
  return `${sign}${metric.metric.endsWith("_ms") ? formatDuration(size) : formatCount(size)}`;
}

function MetricRow({ metric }: { metric: Metric }) {
  return (
    <tr data-testid="metric-row" data-metric={metric.metric}>
      <th scope="row" className="mono">
        {metric.metric}
      </th>
      <td>{value(metric, metric.base)}</td>
      <td>{value(metric, metric.target)}</td>
      <td className={metric.delta === null || metric.delta === 0 ? "muted" : metric.delta > 0 ? "delta-up" : "delta-down"}>{delta(metric)}</td>
    </tr>
  );
}

/** Base, target and change side by side, one row per fact. */
function CompareTable({ first, children }: { first: string; children: ReactNode }) {
  return (
    <table className="bundle-compare-table">
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">Base</th>
          <th scope="col">Target</th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

export function BundleCompareCard({ base, target }: { base: string; target: string }) {
  const compare = useBundleCompare(target, base);
  if (compare.isPending) return <Spinner label="Comparing the two runs…" />;
  if (compare.isError) return <ErrorState error={compare.error} title="Could not compare the two runs" />;
  const data = compare.data;
  const headline = data.metrics.filter((metric) => HEADLINE.includes(metric.metric));
  const rest = data.metrics.filter((metric) => !HEADLINE.includes(metric.metric));

  const headlineText = headline
    .filter((metric) => metric.metric === "timing.duration_ms" || metric.metric === "token_usage.total_tokens")
    .map((metric) => `${metric.metric.endsWith("duration_ms") ? "duration" : "tokens"} ${delta(metric) || "—"}`)
    .join(" · ");
  return (
    <section className="card bundle-compare" aria-label="The two runs side by side" data-testid="bundle-compare">
      {/* Folded on short screens, where the diff below needs the height. */}
      <details open={typeof window === "undefined" || window.innerHeight >= 860}>
        <summary className="bundle-compare-summary">
          <strong>Runs side by side</strong>
          <span>
            {runLabel(data.base)} <span className={`status ${data.status.base === "success" ? "status-ok" : "status-fail"}`}>{data.status.base}</span> → {runLabel(data.target)}{" "}
            <span className={`status ${data.status.target === "success" ? "status-ok" : "status-fail"}`}>{data.status.target}</span>
          </span>
          {headlineText !== "" ? <span className="muted small">{headlineText}</span> : null}
          <span className="muted small">{data.same_group ? "same request" : "different requests"}</span>
        </summary>
        <CompareTable first="Run">
          <tr>
            <th scope="row">which</th>
            <td title={data.base.path}>{runLabel(data.base)}</td>
            <td title={data.target.path}>{runLabel(data.target)}</td>
            <td>
              <Link to={compareBundlesPatch(data.target, data.base)} className="mini-btn" title="Swap base and target">
                swap
              </Link>
            </td>
          </tr>
          <tr data-testid="status-row">
            <th scope="row">status</th>
            <td>
              <span className={`status ${data.status.base === "success" ? "status-ok" : "status-fail"}`}>{data.status.base}</span>
            </td>
            <td>
              <span className={`status ${data.status.target === "success" ? "status-ok" : "status-fail"}`}>{data.status.target}</span>
            </td>
            <td className={data.status.changed ? "delta-up" : "muted"}>{data.status.changed ? "changed" : "="}</td>
          </tr>
          <tr>
            <th scope="row">workspace</th>
            <td colSpan={3} className="small">
              {data.files.added} added · {data.files.modified} modified · {data.files.deleted} deleted
              {data.files.renamed > 0 ? ` · ${data.files.renamed} renamed` : ""} · {data.slices.filter((slice) => slice.status !== "unchanged").length} slices changed
            </td>
          </tr>
          {headline.map((metric) => (
            <MetricRow key={metric.metric} metric={metric} />
          ))}
        </CompareTable>
        {data.metrics.length === 0 ? <p className="muted small">Neither run has metrics.json.</p> : null}
        {rest.length > 0 ? (
          <details className="bundle-compare-more">
            <summary className="small">All {rest.length + headline.length} metrics</summary>
            <CompareTable first="Metric">
              {rest.map((metric) => (
                <MetricRow key={metric.metric} metric={metric} />
              ))}
            </CompareTable>
          </details>
        ) : null}
      </details>
    </section>
  );
}
