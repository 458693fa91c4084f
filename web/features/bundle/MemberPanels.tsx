/**
 * The panels of a bundle's small JSON members, each the member as written in a JSON tree
 * plus what a reader looks for first: the request's input and output; metrics with the
 * budget consumed against its limits; config (and prompt overrides); run context; the eval
 * score; the manifest with every checksum verified (a mismatch listed, never hidden). A
 * member the bundle does not hold is said to be missing, with why WINK leaves it out.
 */
import type { ReactNode } from "react";
import type { BundleMemberKind, BundleSummaryResponse } from "../../api/bundle-api.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatBytes, formatCount, formatDuration, formatTimestamp, plural } from "../../components/format.js";
import { Fact } from "../../components/Fact.js";
import { Icon } from "../../components/Icon.js";
import { useBundleIntegrity, useBundleMember, useBundleMembers, useBundleRequest, useBundleSummary } from "../../queries/hooks.js";
import { visibleText } from "../../components/json-model.js";
import { ValueTree } from "./ValueTree.js";

/** Why WINK leaves a member out, for the "missing" notice. */
function missingReason(member: string, summary: BundleSummaryResponse | undefined): string {
  if (summary?.status === "error" && ["request/output.json", "metrics.json", "config.json"].includes(member)) return `WINK writes no ${member} for a failed run (status "error").`;
  if (member === "run_context.json") return "WINK writes run_context.json from a loop (AgentLoop, EvalLoop); a bundle written directly has none.";
  if (member === "eval.json") return "Only an EvalLoop run has eval.json.";
  if (member === "prompt_overrides.json") return "Written only when the run changed prompt sections (progressive disclosure).";
  return `The bundle does not hold ${member}.`;
}

export function MissingMember({ member, summary }: { member: string; summary: BundleSummaryResponse | undefined }) {
  return (
    <EmptyState title={`No ${member} in this bundle`}>
      <span data-testid="member-missing">{missingReason(member, summary)}</span>
    </EmptyState>
  );
}

/**
 * The scrolling column of a member panel: focusable, so the keyboard can scroll it (axe:
 * scrollable-region-focusable). Named "… panel": its member sections are regions named by
 * their titles, and a section titled like its panel ("Config") made two landmarks of one name.
 */
export function PanelColumn({ label, testId, children }: { label: string; testId: string; children: ReactNode }) {
  return (
    <div className="member-panels" tabIndex={0} role="region" aria-label={`${label} panel`} data-testid={testId}>
      {children}
    </div>
  );
}

function Section({ title, member, children, testId }: { title: string; member?: string; children: ReactNode; testId?: string }) {
  return (
    <section className="card member-card" aria-label={title} data-testid={testId}>
      <header className="card-header">
        <h3>{title}</h3>
        {member !== undefined ? <span className="muted small mono">{member}</span> : null}
      </header>
      {children}
    </section>
  );
}

/** One JSON member: its tree, or the notice that the bundle lacks it. */
function MemberSection({ file, kind, member, title, facts }: { file: string; kind: BundleMemberKind; member: string; title: string; facts?: (value: Record<string, unknown>) => ReactNode }) {
  const summary = useBundleSummary(file);
  // A member the bundle lacks is not asked for (WINK's route would answer 404): the summary lists what it holds.
  const present = summary.data?.members.includes(member);
  const value = useBundleMember(present === true ? file : null, kind);
  return (
    <Section title={title} member={member} testId={`member-${kind}`}>
      {summary.isError ? (
        <ErrorState error={summary.error} title="Could not read the bundle" onRetry={() => void summary.refetch()} />
      ) : present === false ? (
        <MissingMember member={member} summary={summary.data} />
      ) : value.isPending ? (
        <Spinner label={`Reading ${member}…`} />
      ) : value.isError ? (
        <ErrorState error={value.error} title={`Could not read ${member}`} onRetry={() => void value.refetch()} />
      ) : value.data === null ? (
        <MissingMember member={member} summary={summary.data} />
      ) : (
        <>
          {facts !== undefined && isObject(value.data) ? facts(value.data) : null}
          <ValueTree value={value.data} label={member} path={kind} depth={facts === undefined ? 2 : 1} />
        </>
      )}
    </Section>
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const numberOf = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : typeof value === "bigint" ? Number(value) : null);
const count = (value: unknown): string => {
  const number = numberOf(value);
  return number === null ? "—" : formatCount(number);
};

export function RequestPanel({ file }: { file: string }) {
  const request = useBundleRequest(file);
  const summary = useBundleSummary(file);
  if (request.isPending) return <Spinner label="Reading the request…" />;
  if (request.isError) return <ErrorState error={request.error} title="Could not read the request" onRetry={() => void request.refetch()} />;
  return (
    <PanelColumn label="Request" testId="request-panel">
      <Section title="Input" member="request/input.json" testId="request-input">
        {request.data.input === null ? <MissingMember member="request/input.json" summary={summary.data} /> : <ValueTree value={request.data.input} label="input" path="input" />}
      </Section>
      <Section title="Output" member="request/output.json" testId="request-output">
        {request.data.output === null ? <MissingMember member="request/output.json" summary={summary.data} /> : <ValueTree value={request.data.output} label="output" path="output" />}
      </Section>
    </PanelColumn>
  );
}

/** Consumed against a limit: a meter when there is a limit, the number alone otherwise. */
function BudgetRow({ name, consumed, limit }: { name: string; consumed: unknown; limit: unknown }) {
  const used = numberOf(consumed);
  const max = numberOf(limit);
  const share = used !== null && max !== null && max > 0 ? used / max : null;
  return (
    <tr>
      <th scope="row">{name}</th>
      <td className="mono">{count(consumed)}</td>
      <td className="mono">{max === null ? "no limit" : count(limit)}</td>
      <td>
        {share === null ? null : (
          <>
            <meter min={0} max={1} value={Math.min(1, share)} high={0.8} optimum={0} aria-label={`${name}: ${Math.round(share * 100)} % of the limit`} /> <span className={`small${share > 1 ? " text-danger" : ""}`}>{Math.round(share * 100)} %</span>
          </>
        )}
      </td>
    </tr>
  );
}

function MetricsFacts({ metrics }: { metrics: Record<string, unknown> }) {
  const timing = isObject(metrics.timing) ? metrics.timing : {};
  const usage = isObject(metrics.token_usage) ? metrics.token_usage : {};
  const budget = isObject(metrics.budget) ? metrics.budget : null;
  const consumed = budget !== null && isObject(budget.consumed) ? budget.consumed : {};
  const limits = budget !== null && isObject(budget.limits) ? budget.limits : {};
  const duration = numberOf(timing.duration_ms);
  return (
    <>
      <dl className="run-facts" data-testid="metrics-facts">
        <Fact label="Duration" value={duration === null ? "—" : formatDuration(duration)} />
        <Fact label="Started" value={typeof timing.started_at === "string" ? formatTimestamp(timing.started_at) : "—"} />
        <Fact label="Input tokens" value={count(usage.input_tokens)} />
        <Fact label="Output tokens" value={count(usage.output_tokens)} />
        <Fact label="Cached tokens" value={count(usage.cached_tokens)} />
        <Fact label="Total tokens" value={count(usage.total_tokens)} />
        <Fact label="Prompts" value={count(usage.prompt_count)} />
      </dl>
      {budget === null ? (
        <p className="muted small">No budget was set for this run.</p>
      ) : (
        <table className="budget-table" data-testid="budget">
          <caption className="sr-only">Budget consumed against its limits</caption>
          <thead>
            <tr>
              <th scope="col">Budget</th>
              <th scope="col">Consumed</th>
              <th scope="col">Limit</th>
              <th scope="col">Share</th>
            </tr>
          </thead>
          <tbody>
            <BudgetRow name="Input tokens" consumed={consumed.input_tokens} limit={limits.max_input_tokens} />
            <BudgetRow name="Output tokens" consumed={consumed.output_tokens} limit={limits.max_output_tokens} />
            <BudgetRow name="Total tokens" consumed={consumed.total_tokens} limit={limits.max_total_tokens} />
            <tr>
              <th scope="row">Deadline</th>
              <td colSpan={3} className="mono">
                {typeof limits.deadline === "string" ? formatTimestamp(limits.deadline) : isObject(limits.deadline) && typeof limits.deadline.expires_at === "string" ? formatTimestamp(limits.deadline.expires_at) : "none"}
              </td>
            </tr>
          </tbody>
        </table>
      )}
    </>
  );
}

export function MetricsPanel({ file }: { file: string }) {
  return (
    <PanelColumn label="Metrics" testId="metrics-panel">
      <MemberSection file={file} kind="metrics" member="metrics.json" title="Metrics and budget" facts={(metrics) => <MetricsFacts metrics={metrics} />} />
    </PanelColumn>
  );
}

export function ConfigPanel({ file }: { file: string }) {
  return (
    <PanelColumn label="Config" testId="config-panel">
      <MemberSection file={file} kind="config" member="config.json" title="Config" />
      <MemberSection file={file} kind="prompt-overrides" member="prompt_overrides.json" title="Prompt overrides" />
    </PanelColumn>
  );
}

export function RunContextPanel({ file }: { file: string }) {
  return (
    <PanelColumn label="Run context" testId="context-panel">
      <MemberSection
        file={file}
        kind="run-context"
        member="run_context.json"
        title="Run context"
        facts={(context) => (
          <dl className="run-facts">
            {["run_id", "request_id", "session_id", "attempt", "worker_id", "trace_id", "span_id"].map((key) => (
              <Fact key={key} label={key.replace(/_/g, " ")} value={<span className="mono">{context[key] === null || context[key] === undefined ? "—" : String(context[key])}</span>} />
            ))}
          </dl>
        )}
      />
    </PanelColumn>
  );
}

export function EvalPanel({ file }: { file: string }) {
  return (
    <PanelColumn label="Eval" testId="eval-panel">
      <MemberSection
        file={file}
        kind="eval"
        member="eval.json"
        title="Eval"
        facts={(evaluation) => {
          const score = isObject(evaluation.score) ? evaluation.score : {};
          const latency = numberOf(evaluation.latency_ms);
          return (
            <dl className="run-facts">
              <Fact label="Sample" value={<span className="mono">{String(evaluation.sample_id ?? "—")}</span>} />
              <Fact label="Experiment" value={String(evaluation.experiment_name ?? "—")} />
              <Fact label="Score" value={<span data-testid="eval-score">{numberOf(score.value) ?? "—"}</span>} />
              <Fact label="Passed" value={score.passed === true ? <span className="status status-ok">passed</span> : score.passed === false ? <span className="status status-fail">failed</span> : "—"} />
              <Fact label="Latency" value={latency === null ? "—" : formatDuration(latency)} />
              {typeof score.reason === "string" ? <Fact label="Reason" value={visibleText(score.reason)} /> : null}
              {evaluation.error !== undefined && evaluation.error !== null ? <Fact label="Error" value={String(evaluation.error)} danger /> : null}
            </dl>
          );
        }}
      />
    </PanelColumn>
  );
}

export function ManifestPanel({ file }: { file: string }) {
  const integrity = useBundleIntegrity(file);
  const members = useBundleMembers(file);
  const summary = useBundleSummary(file);
  return (
    <PanelColumn label="Manifest" testId="manifest-panel">
      <Section title="Checksums" member="manifest.json" testId="integrity">
        {integrity.isPending ? (
          <Spinner label="Verifying every member's checksum…" />
        ) : integrity.isError ? (
          <ErrorState error={integrity.error} title="Could not verify the checksums" onRetry={() => void integrity.refetch()} />
        ) : (
          <>
            <p className={integrity.data.ok === false ? "integrity-bad" : "integrity-ok"} role={integrity.data.ok === false ? "alert" : undefined} data-testid="integrity-verdict">
              <Icon name={integrity.data.ok === false ? "alert" : "check"} size={14} />{" "}
              {!integrity.data.supported
                ? `Checksums use ${integrity.data.algorithm}, which is not checked (only sha256 is).`
                : integrity.data.ok === true
                  ? `All ${plural(integrity.data.verified, "checksum")} match (${integrity.data.algorithm}).`
                  : `${plural(integrity.data.mismatched.length, "member")} ${integrity.data.mismatched.length === 1 ? "does" : "do"} not match the manifest's checksum, ${integrity.data.missing.length} listed member${integrity.data.missing.length === 1 ? " is" : "s are"} missing (${integrity.data.verified} of ${integrity.data.listed} verified).`}
            </p>
            {integrity.data.mismatched.length > 0 ? (
              <table className="integrity-table" data-testid="integrity-mismatches">
                <caption className="sr-only">Members whose checksum does not match the manifest</caption>
                <thead>
                  <tr>
                    <th scope="col">Member</th>
                    <th scope="col">Manifest says</th>
                    <th scope="col">Read</th>
                  </tr>
                </thead>
                <tbody>
                  {integrity.data.mismatched.map((entry) => (
                    <tr key={entry.member}>
                      <td className="mono">{entry.member}</td>
                      <td className="mono small">{entry.expected}</td>
                      <td className="mono small text-danger">{entry.actual}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {integrity.data.missing.length > 0 ? <p className="text-danger small">Listed but not in the zip: {integrity.data.missing.join(", ")}</p> : null}
            {integrity.data.unlisted.length > 0 ? <p className="muted small">In the zip without a checksum: {integrity.data.unlisted.join(", ")}</p> : null}
          </>
        )}
      </Section>
      <Section title="Members" testId="member-list">
        {members.isPending ? (
          <Spinner label="Listing…" />
        ) : members.isError ? (
          <ErrorState error={members.error} title="Could not list the members" />
        ) : (
          <>
            <p className="muted small">
              {plural(members.data.length, "member")}
              {summary.data !== undefined ? ` · workspace ${plural(summary.data.workspace.files, "file")} (${formatBytes(summary.data.workspace.bytes)})` : ""}
            </p>
            <ul className="member-list mono small">
              {members.data.map((member) => {
                const bad = integrity.data?.mismatched.some((entry) => entry.member === member) ?? false;
                return (
                  <li key={member} className={bad ? "text-danger" : undefined}>
                    {bad ? <Icon name="x" size={11} aria-label="checksum mismatch" /> : null} {member}
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </Section>
      <MemberSection file={file} kind="manifest" member="manifest.json" title="Manifest as written" />
    </PanelColumn>
  );
}
