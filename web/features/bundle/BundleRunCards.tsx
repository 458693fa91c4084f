/**
 * What the run overview adds for a debug bundle, under the error and the failed calls: the
 * bundle at a glance (status, trigger, request, attempt or iteration, prompt, build, the
 * checksums read so far), its panels, the other runs of the same request (retries,
 * iterations) with a link to compare each with this one, and the workspace WINK captured.
 */
import type { BundleSummaryResponse } from "../../api/bundle-api.js";
import { ErrorState, Spinner } from "../../components/feedback.js";
import { Fact } from "../../components/Fact.js";
import { formatBytes, formatDuration, formatTimestamp, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { useBundleGroups, useBundleSummary, useLogs, useTranscript } from "../../queries/hooks.js";
import { panelPatch } from "../../state/view-state.js";
import { visibleText } from "../../components/json-model.js";
import { bundleLine, compareBundlesPatch, runLabel } from "../../state/bundle-links.js";
import { integrityText } from "./integrity-text.js";

export function BundleRunCards({ file, panels }: { file: string; panels: readonly { id: string; title: string }[] }) {
  const summary = useBundleSummary(file);
  if (summary.isPending) return <Spinner label="Reading the bundle…" />;
  if (summary.isError) return <ErrorState error={summary.error} title="Could not read the bundle" onRetry={() => void summary.refetch()} />;
  return (
    <>
      <BundleFacts summary={summary.data} panels={panels} />
      <div className="run-grid">
        <SameRequest summary={summary.data} />
        <CapturedWorkspace summary={summary.data} />
      </div>
    </>
  );
}

function BundleFacts({ summary, panels }: { summary: BundleSummaryResponse; panels: readonly { id: string; title: string }[] }) {
  const logs = useLogs(summary.path, { offset: 0, limit: 1 });
  const transcript = useTranscript(summary.path, { offset: 0, limit: 1 });
  const checks = integrityText(summary.integrity);
  const counts: Record<string, string | undefined> = {
    logs: logs.data === undefined ? undefined : plural(logs.data.total, "record"),
    transcript: transcript.data === undefined ? undefined : plural(transcript.data.total, "entry", "entries"),
  };
  return (
    <section className="card bundle-card" aria-labelledby="bundle-heading" data-testid="bundle-facts">
      <header className="card-header">
        <h3 id="bundle-heading">Debug bundle</h3>
        <span className="muted small mono" title={summary.bundle_id}>
          {summary.bundle_id}
        </span>
      </header>
      <dl className="run-facts">
        <Fact label="Status" value={<span className={`status ${summary.status === "success" ? "status-ok" : "status-fail"}`} data-testid="bundle-status">{summary.status}</span>} />
        <Fact label="Trigger" value={summary.trigger || "—"} />
        <Fact label="Request" value={<span className="mono" title={summary.request_id}>{summary.request_id === "" ? "—" : shortId(summary.request_id)}</span>} />
        {summary.iteration !== null ? <Fact label="Iteration" value={String(summary.iteration)} /> : null}
        {summary.attempt !== null ? <Fact label="Attempt" value={String(summary.attempt)} /> : null}
        <Fact label="Prompt" value={`${summary.prompt.ns}${summary.prompt.ns !== "" && summary.prompt.key !== "" ? " / " : ""}${summary.prompt.key}` || "—"} />
        <Fact label="Adapter" value={summary.prompt.adapter || "—"} />
        <Fact label="Duration" value={summary.duration_ms === null ? "—" : formatDuration(summary.duration_ms)} />
        <Fact label="Written" value={formatTimestamp(summary.created_at)} />
        <Fact label="WINK" value={summary.build.version || "—"} />
        <Fact label="Checksums" value={<span data-testid="bundle-checksums">{checks.text}</span>} danger={checks.bad} />
      </dl>
      {summary.warnings.length > 0 ? (
        <ul className="inline-warning bundle-warnings">
          {summary.warnings.map((warning) => (
            <li key={warning}>{visibleText(warning)}</li>
          ))}
        </ul>
      ) : null}
      <nav className="panel-links" aria-label="The bundle's panels">
        {panels.map((panel) => (
          <Link key={panel.id} to={panelPatch(panel.id)} className="pill pill-link" data-testid={`open-panel-${panel.id}`}>
            {panel.title}
            {counts[panel.id] !== undefined ? <span className="muted"> · {counts[panel.id]}</span> : null}
          </Link>
        ))}
      </nav>
    </section>
  );
}

function SameRequest({ summary }: { summary: BundleSummaryResponse }) {
  const groups = useBundleGroups();
  const group = groups.data?.find((candidate) => candidate.group_id === summary.group_id);
  const runs = group?.bundles ?? [];
  const position = runs.findIndex((run) => run.path === summary.path);
  const previous = position > 0 ? runs[position - 1] : undefined;
  return (
    <section className="card" aria-labelledby="same-request-heading" data-testid="same-request">
      <header className="card-header">
        <h3 id="same-request-heading">Same request</h3>
        <span className="muted small">{group === undefined ? "" : group.key === "trace_id" ? "shared trace id" : group.key === "request_id" ? "shared request id" : group.key === "folder" ? "EvalLoop folder" : ""}</span>
      </header>
      {groups.isPending ? (
        <Spinner label="Grouping the bundles…" />
      ) : groups.isError ? (
        <ErrorState error={groups.error} title="Could not group the bundles" />
      ) : runs.length <= 1 ? (
        <p className="muted small">The only run of its request in this folder. Any two runs can be compared in the Compare view (5).</p>
      ) : (
        <>
          {previous !== undefined ? (
            <p className="small">
              <Link to={compareBundlesPatch(previous, summary)} className="btn btn-small" data-testid="compare-previous">
                <Icon name="compare" size={13} /> Compare with {runLabel(previous)}
              </Link>
            </p>
          ) : null}
          <ol className="same-request-list">
            {runs.map((run) => {
              const current = run.path === summary.path;
              return (
                <li key={run.path} className={current ? "is-current" : undefined} data-testid="same-request-run">
                  <span className={`status ${run.status === "success" ? "status-ok" : "status-fail"}`}>{run.status}</span>{" "}
                  {current ? (
                    <strong>{runLabel(run)} (this run)</strong>
                  ) : (
                    <Link to={{ file: run.path, line: bundleLine(run), view: "run", panel: undefined, entry: undefined, facets: undefined }}>{runLabel(run)}</Link>
                  )}
                  <span className="muted small"> · {formatTimestamp(run.created_at)}</span>
                  {current ? null : (
                    <Link to={compareBundlesPatch(run, summary)} className="mini-btn" title={`Compare ${runLabel(run)} (base) with this run`}>
                      compare
                    </Link>
                  )}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </section>
  );
}

function CapturedWorkspace({ summary }: { summary: BundleSummaryResponse }) {
  const { workspace } = summary;
  const line = bundleLine(summary);
  return (
    <section className="card workspace-card" aria-labelledby="captured-heading" data-testid="captured-workspace">
      <header className="card-header">
        <h3 id="captured-heading">Workspace captured</h3>
        <span className="muted small mono">filesystem/</span>
      </header>
      {workspace.files === 0 ? (
        <p className="muted small" data-testid="no-workspace">
          {summary.status === "error" ? "None: WINK captures no filesystem/ for a failed run." : "None: the bundle holds no filesystem/ capture."}
        </p>
      ) : (
        <>
          <p className="small">
            <Link to={{ view: "files", file: summary.path, line, path: undefined, at: undefined, base: undefined, panel: undefined }} data-testid="browse-workspace">
              {plural(workspace.files, "file")}
            </Link>{" "}
            ({formatBytes(workspace.bytes)}), as the run left them
          </p>
          {workspace.notes.map((note) => (
            <p key={note} className="muted small">
              {visibleText(note)}
            </p>
          ))}
        </>
      )}
    </section>
  );
}
