/**
 * The landing view: the run's latest state, failures first. What the agent did (turns, tool
 * calls, sub-agents), where it failed (each failed call with its tool, the path or other key
 * argument, its message, turn and time, and one link to the call in its timeline), and what
 * that did to the workspace (the files changed between the first and the latest snapshot).
 * A run-level error (a bundle's error.json) is shown first, with its traceback.
 */
import { Fragment, Suspense, lazy, useEffect, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { RunFailureResponse, RunResponse, RunSessionResponse, TurnResponse } from "../../api/api.js";
import { EmptyState, ErrorState, Kbd, Spinner } from "../../components/feedback.js";
import { formatCount, formatDuration, formatTimestamp, plural, shortId } from "../../components/format.js";
import { Fact } from "../../components/Fact.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { useDiff, useFiles, useRun, useRunFailures, useRunSession } from "../../queries/hooks.js";
import { RUN_FAILURE_PAGE_LIMIT, RUN_SESSION_PAGE_LIMIT } from "../../../shared/viewer/browser.js";
import { visibleText } from "../../components/json-model.js";
import { OutcomeBadge } from "../runs/RunsPanel.js";
import { failurePatch, snapshotPatch, turnDiffPatch } from "../../state/run-links.js";
import { noFailuresText } from "./failures-heading.js";

// Only bundle runs need it: loaded with the first one.
const BundleRunCards = lazy(() => import("../bundle/BundleRunCards.js").then((module) => ({ default: module.BundleRunCards })));

export function RunOverview({ file }: { file: string }) {
  const run = useRun(file);
  if (run.isPending) return <Spinner label="Reading the run…" />;
  if (run.isError) return <ErrorState error={run.error} title={`Could not read the run ${file}`} onRetry={() => void run.refetch()} />;
  return <RunBody run={run.data} />;
}

function offsetText(ms: number | null): string {
  if (ms === null) return "";
  return `+${formatDuration(ms)}`;
}

function RunBody({ run }: { run: RunResponse }) {
  const file = run.source.path;
  const root = run.sessions[0];
  const byId = new Map(run.sessions.map((session) => [session.session_id, session]));
  return (
    <div className="run-overview" data-testid="run-overview">
      <section className="card run-head" aria-labelledby="run-title">
        <div className="run-head-top">
          <h2 id="run-title">{run.title}</h2>
          <OutcomeBadge stats={run.stats} testId="run-outcome" />
          <span className="muted small mono" title={file}>
            {run.source.name}
          </span>
        </div>
        <dl className="run-facts">
          <Fact label="Started" value={run.stats.started_at === null ? "—" : formatTimestamp(run.stats.started_at)} />
          <Fact label="Duration" value={run.stats.duration_ms === null ? "—" : formatDuration(run.stats.duration_ms)} />
          <Fact label="Sessions" value={String(run.session_count)} />
          <Fact label="Turns" value={formatCount(root?.truncated?.turns.total ?? root?.turns.length ?? 0)} />
          <Fact label="Tool calls" value={formatCount(run.stats.tool_calls)} />
          <Fact label="Failed calls" value={String(run.stats.failed_calls)} danger={run.stats.failed_calls > 0} />
          <Fact label="Events" value={formatCount(run.stats.events)} />
        </dl>
        {run.error !== null ? (
          <div className="run-error" role="alert" data-testid="run-error">
            <strong>
              {run.error.type !== null ? `${run.error.type}: ` : ""}
              {visibleText(run.error.message)}
            </strong>
            {run.error.traceback !== null ? <Traceback text={run.error.traceback} /> : null}
          </div>
        ) : null}
        {run.load_errors > 0 ? <LineErrors file={file} count={run.load_errors} /> : null}
      </section>

      <FailuresCard run={run} byId={byId} />

      {run.source.kind === "bundle" ? (
        <Suspense fallback={<Spinner label="Reading the bundle…" />}>
          <BundleRunCards file={file} panels={run.panels} />
          {/* A bundle's turns come from its prompts (after.jsonl); before.jsonl alone has none to show. */}
          {root !== undefined && root.turn_source === "prompts" ? <TurnsCard file={file} session={root} byId={byId} /> : null}
        </Suspense>
      ) : (
        <div className="run-grid">
          {root !== undefined ? <TurnsCard file={file} session={root} byId={byId} /> : null}
          <WorkspaceCard run={run} />
        </div>
      )}
    </div>
  );
}

/** A traceback scrolled to its end, where Python puts the frame that raised. */
function Traceback({ text }: { text: string }) {
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (box.current !== null) box.current.scrollTop = box.current.scrollHeight;
  }, [text]);
  return (
    <pre className="traceback" ref={box} tabIndex={0} aria-label="Traceback (most recent call last)" data-testid="traceback">
      {visibleText(text)}
    </pre>
  );
}

/** The lines of the run's file that did not load, with their reasons. */
function LineErrors({ file, count }: { file: string; count: number }) {
  const files = useFiles();
  const errors = files.data?.files.find((candidate) => candidate.path === file)?.errors ?? [];
  return (
    <details className="line-errors inline-warning" data-testid="line-errors">
      <summary>
        <Icon name="alert" size={14} /> {plural(count, "line")} did not load
      </summary>
      <ul className="line-error-list">
        {errors.map((error) => (
          <li key={`${error.line_number}-${error.kind}`}>
            <span className="mono">line {error.line_number}</span> <span className="tag tag-muted">{error.kind}</span> {visibleText(error.reason)}
          </li>
        ))}
      </ul>
    </details>
  );
}

function FailuresCard({ run, byId }: { run: RunResponse; byId: ReadonlyMap<string, RunSessionResponse> }) {
  const file = run.source.path;
  // The count is the run's, not the listed rows': `/api/run` lists at most RUN_FAILURE_LIMIT.
  const cut = run.truncated?.failures;
  const count = cut?.total ?? run.failures.length;
  const head = cut === undefined ? run.failures : run.failures.slice(0, cut.from);
  const tail = cut === undefined ? [] : run.failures.slice(cut.from);
  const row = (failure: RunFailureResponse) => (
    <FailureRow key={`${failure.session_id}:${failure.event_index ?? `t${failure.transcript_rowid ?? ""}`}`} file={file} failure={failure} session={byId.get(failure.session_id)} />
  );
  return (
    <section className={`card failures-card${count === 0 ? " is-clear" : ""}`} aria-labelledby="failures-heading" data-testid="failures">
      <header className="card-header">
        <h3 id="failures-heading">
          {count === 0 ? noFailuresText(run.error).heading : `Failures`} {count > 0 ? <span className="status status-fail">{formatCount(count)}</span> : null}
        </h3>
        {count > 0 ? (
          <span className="muted small">
            <Kbd>N</Kbd> / <Kbd>Shift+N</Kbd> next / previous failure, from any view
          </span>
        ) : null}
      </header>
      {count === 0 ? (
        <p className="muted small">{noFailuresText(run.error).text}</p>
      ) : (
        <table className="failure-table">
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">On</th>
              <th scope="col">Message</th>
              <th scope="col">Turn</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {head.map(row)}
            {cut !== undefined && cut.omitted > 0 ? <OmittedFailures file={file} offset={cut.from} count={cut.omitted} total={cut.total} row={row} /> : null}
            {tail.map(row)}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Failures the run's answer leaves out of a run of many (its `truncated.failures`), said as
 * such: listed on request, a page of `/api/run/failures` at a time, each page's button saying
 * how many it lists. A page listed by the keyboard or the mouse moves focus on to the next
 * page's button (the one pressed is gone), so a keyboard user keeps their place.
 */
function OmittedFailures({ file, offset, count, total, row, focus = false }: { file: string; offset: number; count: number; total: number; row: (failure: RunFailureResponse) => ReactElement; focus?: boolean }) {
  const [asked, setAsked] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focus) button.current?.focus();
  }, [focus]);
  const limit = Math.min(count, RUN_FAILURE_PAGE_LIMIT);
  const page = useRunFailures(file, asked ? { offset, limit } : null);
  if (asked && page.isSuccess) {
    return (
      <Fragment>
        {page.data.failures.slice(0, limit).map(row)}
        {count > limit ? <OmittedFailures file={file} offset={offset + limit} count={count - limit} total={total} row={row} focus /> : null}
      </Fragment>
    );
  }
  return (
    <tr data-testid="omitted-failures">
      <td colSpan={5} className="muted small">
        … and {plural(count, "more failure")} not listed here (failures {formatCount(offset + 1)}–{formatCount(offset + count)} of {formatCount(total)}; each is in its session&apos;s timeline){" "}
        {asked && page.isError ? (
          <span className="text-danger">: could not read them ({page.error.message})</span>
        ) : asked ? (
          <span role="status">reading them…</span>
        ) : (
          <button ref={button} type="button" className="mini-btn" data-testid="more-failures" onClick={() => setAsked(true)}>
            {count > limit ? `list the next ${formatCount(limit)}` : `list ${count === 1 ? "it" : `all ${formatCount(count)}`}`}
          </button>
        )}
      </td>
    </tr>
  );
}

/**
 * The browser reports when each failure's message is painted (Element Timing), which is what
 * bench/web.bench.ts measures the landing page by. Spread: React's types lack the attribute.
 */
const FAILURE_PAINT_TIMING = { elementtiming: "failure-message" } as Record<string, string>;

function FailureRow({ file, failure, session }: { file: string; failure: RunFailureResponse; session: RunSessionResponse | undefined }) {
  return (
    <tr data-testid="failure-row">
      <td>
        <Link to={failurePatch(file, failure)} className="failure-link" data-testid="failure-link" title={failure.event_index === null ? "Open the call in the transcript" : "Open the call in its timeline"}>
          <Icon name="tool" size={13} />
          <span className="mono">{visibleText(failure.title)}</span>
        </Link>
        {session !== undefined && session.depth > 0 ? <span className="tag tag-muted">{session.title ?? shortId(session.session_id)}</span> : null}
        {failure.call_id !== null ? <span className="call-id mono">{visibleText(failure.call_id)}</span> : null}
      </td>
      <td className="mono failure-argument" title={failure.argument === null ? undefined : `${failure.argument.name}: ${failure.argument.value}`} data-testid="failure-argument">
        {failure.argument === null ? "—" : visibleText(failure.argument.value)}
      </td>
      <td className="failure-message" {...FAILURE_PAINT_TIMING}>
        {visibleText(failure.message)}
      </td>
      <td data-testid="failure-turn">{failure.turn === null ? "—" : `turn ${failure.turn}`}</td>
      <td className="mono small" title={formatTimestamp(failure.created_at)}>
        {offsetText(failure.offset_ms)}
      </td>
    </tr>
  );
}

function TurnsCard({ file, session, byId }: { file: string; session: RunSessionResponse; byId: ReadonlyMap<string, RunSessionResponse> }) {
  const spawnedIn = new Map<number, RunSessionResponse[]>();
  for (const id of session.children) {
    const child = byId.get(id);
    const turn = child?.spawned?.turn;
    if (child !== undefined && turn !== null && turn !== undefined) spawnedIn.set(turn, [...(spawnedIn.get(turn) ?? []), child]);
  }
  const cut = session.truncated?.turns;
  const row = (turn: TurnResponse) => <TurnRow key={turn.number} file={file} session={session} turn={turn} spawned={spawnedIn.get(turn.number) ?? []} />;
  return (
    <section className="card turns-card" aria-labelledby="turns-heading">
      <header className="card-header">
        <h3 id="turns-heading">What the agent did</h3>
        <span className="muted small">{session.turn_source === "prompts" ? "turns from its prompts" : session.turn_source === "snapshots" ? "turns from its snapshot lines" : ""}</span>
      </header>
      {session.turns.length === 0 ? (
        <EmptyState title="This session records no events." />
      ) : (
        <table className="turn-table">
          <thead>
            <tr>
              <th scope="col">Turn</th>
              <th scope="col">Calls</th>
              <th scope="col">Took</th>
              <th scope="col">Workspace</th>
            </tr>
          </thead>
          <tbody>
            {cut === undefined || cut.omitted === 0 ? (
              session.turns.map(row)
            ) : (
              <>
                {session.turns.slice(0, cut.from).map(row)}
                <OmittedTurns file={file} session={session} offset={cut.from} count={cut.omitted} row={row} />
                {session.turns.slice(cut.from).map(row)}
              </>
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Turns the run's answer leaves out of a long session (its `truncated`), said as such: listed
 * on request, a page of `/api/run/session` at a time.
 */
function OmittedTurns({ file, session, offset, count, row }: { file: string; session: RunSessionResponse; offset: number; count: number; row: (turn: TurnResponse) => ReactElement }) {
  const [asked, setAsked] = useState(false);
  const limit = Math.min(count, RUN_SESSION_PAGE_LIMIT);
  const page = useRunSession(file, session.session_id, asked ? { offset, limit } : null);
  if (asked && page.isSuccess) {
    return (
      <Fragment>
        {page.data.turns.map(row)}
        {count > limit ? <OmittedTurns file={file} session={session} offset={offset + limit} count={count - limit} row={row} /> : null}
      </Fragment>
    );
  }
  return (
    <tr className="omitted-turns" data-testid="omitted-turns">
      <td colSpan={4} className="muted small">
        {formatCount(count)} more {count === 1 ? "turn" : "turns"} (turns {formatCount(offset + 1)}–{formatCount(offset + count)}) not listed here{" "}
        {asked && page.isError ? (
          <span className="text-danger">: could not read them ({page.error.message})</span>
        ) : asked ? (
          <span role="status">reading them…</span>
        ) : (
          <button type="button" className="mini-btn" onClick={() => setAsked(true)}>
            list {count > limit ? `the next ${formatCount(limit)}` : "them"}
          </button>
        )}
      </td>
    </tr>
  );
}

function TurnRow({ file, session, turn, spawned }: { file: string; session: RunSessionResponse; turn: TurnResponse; spawned: readonly RunSessionResponse[] }) {
  const diff = turnDiffPatch(file, session, turn);
  const took = turn.started_at !== null && turn.ended_at !== null ? Date.parse(turn.ended_at) - Date.parse(turn.started_at) : null;
  return (
    <tr className={turn.failed_calls + turn.errors > 0 ? "has-failure" : undefined}>
      <td>
        <Link to={{ view: "timeline", file, line: session.latest_line, event: turn.first_event ?? undefined, change: undefined }}>turn {turn.number}</Link>
        {turn.prompt !== null ? <span className="muted small"> · {visibleText(turn.prompt)}</span> : null}
        {spawned.map((child) => (
          <Link key={child.session_id} to={snapshotPatch(file, child.latest_line)} className="tag tag-accent sub-agent-tag">
            <Icon name="bolt" size={11} /> {child.title ?? shortId(child.session_id)}
          </Link>
        ))}
      </td>
      <td>
        {turn.tool_calls}
        {turn.failed_calls > 0 ? <span className="text-danger"> · {turn.failed_calls} failed</span> : null}
      </td>
      <td className="small">{took === null || Number.isNaN(took) ? "—" : formatDuration(took)}</td>
      <td className="small">{diff === null ? (turn.snapshot_line === null ? "—" : <Link to={snapshotPatch(file, turn.snapshot_line)}>line {turn.snapshot_line}</Link>) : <Link to={diff}>diff</Link>}</td>
    </tr>
  );
}

function WorkspaceCard({ run }: { run: RunResponse }) {
  const file = run.source.path;
  const snapshots = run.sessions[0]?.snapshots ?? [];
  const first = snapshots[0];
  const latest = snapshots[snapshots.length - 1];
  const sides = first !== undefined && latest !== undefined && first.line_number !== latest.line_number ? { base: { file, line: first.line_number }, target: { file, line: latest.line_number } } : null;
  const diff = useDiff(sides?.base ?? null, sides?.target ?? null);
  return (
    <section className="card workspace-card" aria-labelledby="workspace-heading">
      <header className="card-header">
        <h3 id="workspace-heading">What it did to the workspace</h3>
        {sides !== null && first !== undefined && latest !== undefined ? (
          <span className="muted small">
            {first.label} → {latest.label}
          </span>
        ) : null}
      </header>
      {sides === null ? (
        <p className="muted small">{snapshots.length === 0 ? "The run has no snapshot." : "One snapshot only: nothing to compare."}</p>
      ) : diff.isPending ? (
        <Spinner label="Comparing the first and the latest snapshot…" />
      ) : diff.isError ? (
        <ErrorState error={diff.error} title="Could not compare the snapshots" />
      ) : (
        <>
          <p className="small">
            {diff.data.files.base_source === null && diff.data.files.target_source === null ? (
              "No workspace recorded."
            ) : (
              <>
                {plural(diff.data.files.added, "file")} added · {diff.data.files.modified} modified · {diff.data.files.deleted} deleted · {diff.data.files.renamed} renamed
                {diff.data.files.copied > 0 ? ` · ${diff.data.files.copied} copied` : ""}
              </>
            )}
          </p>
          <ul className="change-items compact">
            {diff.data.files.changes.slice(0, 12).map((change) => (
              <li key={`${change.status}:${change.path}`}>
                <Link to={{ view: "compare", file, line: sides.target.line, base: sides.base, path: change.path, slice: undefined, at: undefined }} className="change-item">
                  <span className={`change-badge badge-${change.status}`}>{change.status[0]?.toUpperCase()}</span>
                  <span className="change-path mono">{change.old_path !== null ? `${change.old_path} → ${change.path}` : change.path}</span>
                </Link>
              </li>
            ))}
          </ul>
          {diff.data.files.changes.length > 12 ? (
            <Link to={{ view: "compare", file, line: sides.target.line, base: sides.base, path: undefined, slice: undefined }} className="small">
              all {diff.data.files.changes.length} changes
            </Link>
          ) : null}
        </>
      )}
    </section>
  );
}
