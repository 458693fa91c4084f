/**
 * A failed run against a passing run of the same sample: the two tool-call sequences aligned
 * side by side (shared/viewer/call-alignment.ts), the first divergence marked, and a link to
 * the two final workspaces in the compare view.
 */
import { useMemo } from "react";
import type { RunResponse, SnapshotRef, TimelineResponse } from "../../api/api.js";
import { alignCalls } from "../../../shared/viewer/index.js";
import type { AlignableCall } from "../../../shared/viewer/index.js";
import { ErrorState, Spinner } from "../../components/feedback.js";
import { Link } from "../../components/Link.js";
import { useRun, useTimeline } from "../../queries/hooks.js";

const LEAVE_EVAL = { group: undefined, outcome: undefined, tag: undefined, since: undefined, until: undefined, q: undefined, pair: undefined, against: undefined } as const;

function finalRef(run: RunResponse | undefined): SnapshotRef | null {
  const root = run?.sessions[0];
  return run === undefined || root === undefined ? null : { file: run.source.path, line: root.latest_line };
}

type Call = AlignableCall & { readonly index: number };

function callsOf(timeline: TimelineResponse | undefined): Call[] {
  return (timeline?.events ?? []).filter((event) => event.kind === "tool_call").map((event) => ({ tool: event.title, argument: event.argument?.value ?? null, success: event.success, index: event.index }));
}

const MARK: Record<string, string> = { same: " ", result: "≠", changed: "~", left: "−", right: "+" };

export function PairView({ failed, passing }: { failed: string; passing: string }) {
  const left = useRun(failed);
  const right = useRun(passing);
  const leftRef = finalRef(left.data);
  const rightRef = finalRef(right.data);
  const leftTimeline = useTimeline(leftRef);
  const rightTimeline = useTimeline(rightRef);
  const leftCalls = useMemo(() => callsOf(leftTimeline.data), [leftTimeline.data]);
  const rightCalls = useMemo(() => callsOf(rightTimeline.data), [rightTimeline.data]);
  const alignment = useMemo(() => alignCalls(leftCalls, rightCalls), [leftCalls, rightCalls]);
  const error = left.error ?? right.error ?? leftTimeline.error ?? rightTimeline.error;
  if (error !== null) return <ErrorState error={error} title="Could not align the two runs" />;
  if (leftTimeline.data === undefined || rightTimeline.data === undefined || leftRef === null || rightRef === null) return <Spinner label="Reading both runs' tool calls…" />;
  const cell = (call: Call | undefined, ref: SnapshotRef) =>
    call === undefined ? (
      <td />
    ) : (
      <td>
        <Link to={{ ...LEAVE_EVAL, file: ref.file, line: ref.line, view: "timeline", event: call.index, change: undefined }} className="mono" title="Open the call in its timeline">
          {call.tool}
          {call.argument === null ? "" : ` ${call.argument}`}
        </Link>
        {call.success === false ? <span className="eval-badge-failed"> failed</span> : null}
      </td>
    );
  return (
    <section className="eval-pair" aria-labelledby="eval-pair-title" data-testid="eval-pair">
      <h3 id="eval-pair-title">
        Failed against passed <span className="muted">· {alignment.firstDivergence === null ? "the calls agree" : `first divergence at step ${alignment.firstDivergence + 1}`}</span>
      </h3>
      <p>
        <Link to={{ ...LEAVE_EVAL, file: leftRef.file, line: leftRef.line, view: "compare", base: rightRef, path: undefined, slice: undefined, at: undefined, side: undefined }} className="btn btn-small" data-testid="eval-pair-compare">
          Compare the final workspaces
        </Link>{" "}
        <Link to={{ pair: undefined, against: undefined }} className="btn btn-small">
          Close
        </Link>
      </p>
      <div className="eval-scroll eval-pair-scroll">
        <table className="eval-pair-table">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" aria-label="Difference" />
              <th scope="col">Failed: {failed}</th>
              <th scope="col">Passed: {passing}</th>
            </tr>
          </thead>
          <tbody>
            {alignment.rows.map((row, index) => (
              <tr key={index} className={`eval-pair-${row.kind}${index === alignment.firstDivergence ? " is-divergence" : ""}`} data-testid={index === alignment.firstDivergence ? "eval-pair-divergence" : "eval-pair-row"}>
                <td>{index + 1}</td>
                <td aria-label={row.kind}>{MARK[row.kind]}</td>
                {cell(row.left === null ? undefined : leftCalls[row.left], leftRef)}
                {cell(row.right === null ? undefined : rightCalls[row.right], rightRef)}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
