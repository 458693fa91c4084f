/**
 * The eval: every run of the target counted (passed, failed, did not load; per target and
 * attempt where the runs say so), the failure groups sorted by runs affected, a group's
 * occurrences (each one click from the call in context), and the runs the filters keep.
 * Filters and the opened group live in the URL; j/k move through the groups, Enter opens
 * one, / focuses the filter. Both lists are virtualised (10,000 runs, 500 groups).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";
import type { EvalFilter, EvalRunRowResponse, EvalSummaryResponse, FailureGroupResponse, FailureOccurrenceResponse, RunResponse } from "../../api/api.js";
import { useApi } from "../../api/context.js";
import { keys } from "../../api/keys.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatTimestamp } from "../../components/format.js";
import { Link } from "../../components/Link.js";
import { routeQuery } from "../../queries/route-query.js";
import { EVAL_RUN_PAGE_SIZE } from "../../queries/options.js";
import { useEvalRunPages, useFailureOccurrences, useFailures } from "../../queries/hooks.js";
import { outcomeText } from "../../../shared/viewer/browser.js";
import { failurePatch } from "../../state/run-links.js";
import { useKeymap } from "../../state/shortcuts.js";
import { showToast } from "../../state/toasts.js";
import { navigate } from "../../state/url-store.js";
import type { ViewState } from "../../state/view-state.js";
import { filterGroups } from "./eval-filter.js";
import { PairView } from "./PairView.js";

const GROUP_ROW = 76;
const RUN_ROW = 34;
/**
 * Rows of the by-target-and-attempt table drawn before "show all": an EvalLoop folder of
 * 10,000 samples with one run each is 10,000 targets, and drawing them all held the page's
 * first paint for seconds.
 */
export const BREAKDOWN_ROWS = 20;

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;
const time = (iso: string | null) => (iso === null ? "–" : formatTimestamp(iso));

/** The run's root session at its latest line: where its final workspace is. */
function finalLine(run: RunResponse): number | null {
  return run.sessions[0]?.latest_line ?? null;
}

export function EvalView({ state }: { state: ViewState }) {
  const failures = useFailures();
  if (failures.isError) return <ErrorState error={failures.error} title="Could not count the runs" onRetry={() => void failures.refetch()} />;
  if (failures.data === undefined) return <Spinner label="Reading every run of the target…" />;
  return <EvalPage summary={failures.data} state={state} />;
}

function EvalPage({ summary, state }: { summary: EvalSummaryResponse; state: ViewState }) {
  const filterInput = useRef<HTMLInputElement | null>(null);
  const groups = useMemo(() => filterGroups(summary, state.q), [summary, state.q]);
  const [cursor, setCursor] = useState(() => Math.max(0, groups.findIndex((group) => group.signature === state.group)));
  const groupScroller = useRef<HTMLDivElement | null>(null);
  const groupList = useVirtualizer({ count: groups.length, getScrollElement: () => groupScroller.current, estimateSize: () => GROUP_ROW, overscan: 8 });
  const open = groups.find((group) => group.signature === state.group) ?? null;

  const move = (delta: number) => {
    if (groups.length === 0) return;
    const next = Math.min(groups.length - 1, Math.max(0, cursor + delta));
    setCursor(next);
    groupList.scrollToIndex(next, { align: "auto" });
  };
  useKeymap({
    j: () => move(1),
    k: () => move(-1),
    enter: () => {
      const group = groups[cursor];
      if (group !== undefined) navigate({ group: group.signature === state.group ? undefined : group.signature });
    },
    "/": () => {
      filterInput.current?.focus();
      return true;
    },
  });

  const { outcomes } = summary;
  const [wholeBreakdown, setWholeBreakdown] = useState(false);
  const breakdown = wholeBreakdown ? summary.breakdown : summary.breakdown.slice(0, BREAKDOWN_ROWS);
  return (
    <div className="eval-view" data-testid="eval-view">
      <h2 className="eval-title">
        Eval of {summary.root} <span className="muted">· {outcomes.runs} runs</span>
      </h2>
      {summary.index.complete ? null : (
        <p className="eval-indexing" role="status" data-testid="eval-indexing">
          Indexing {summary.index.indexed} of {summary.index.total} runs…
        </p>
      )}
      <section aria-label="Outcomes" className="eval-outcomes">
        <OutcomeLink label="passed" count={outcomes.ok} outcome="ok" state={state} />
        <OutcomeLink label="failed" count={outcomes.failed} outcome="failed" state={state} />
        <OutcomeLink label="did not load" count={outcomes.error} outcome="error" state={state} />
        {summary.breakdown.length > 0 ? (
          <table className="eval-breakdown" data-testid="eval-breakdown">
            <caption>By target and attempt</caption>
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Attempt</th>
                <th scope="col">Runs</th>
                <th scope="col">Passed</th>
                <th scope="col">Failed</th>
                <th scope="col">Did not load</th>
              </tr>
            </thead>
            <tbody>
              {breakdown.map((row) => (
                <tr key={`${row.target ?? ""}:${row.attempt ?? ""}`}>
                  <td className="mono">{row.target ?? "–"}</td>
                  <td>{row.attempt ?? "–"}</td>
                  <td>{row.runs}</td>
                  <td>{row.ok}</td>
                  <td>{row.failed}</td>
                  <td>{row.error}</td>
                </tr>
              ))}
            </tbody>
            {breakdown.length < summary.breakdown.length ? (
              <tfoot>
                <tr>
                  <td colSpan={6}>
                    <button type="button" className="btn btn-small" onClick={() => setWholeBreakdown(true)} data-testid="eval-breakdown-all">
                      Show all {summary.breakdown.length} rows
                    </button>
                  </td>
                </tr>
              </tfoot>
            ) : null}
          </table>
        ) : null}
      </section>

      <div className="eval-filters" role="search" aria-label="Filter the eval">
        <label>
          Filter <kbd>/</kbd>
          <input ref={filterInput} type="search" value={state.q ?? ""} placeholder="signature, message or run path" onChange={(event) => navigate({ q: event.target.value === "" ? undefined : event.target.value }, { replace: true })} data-testid="eval-filter" />
        </label>
        <label>
          Tag
          <select value={state.tag ?? ""} onChange={(event) => navigate({ tag: event.target.value === "" ? undefined : event.target.value })} disabled={summary.tags.length === 0}>
            <option value="">any</option>
            {summary.tags.map((tag) => (
              <option key={tag} value={tag}>
                {tag}
              </option>
            ))}
          </select>
        </label>
        <label>
          Since
          <input type="date" value={state.since ?? ""} onChange={(event) => navigate({ since: event.target.value === "" ? undefined : event.target.value }, { replace: true })} />
        </label>
        <label>
          Until
          <input type="date" value={state.until ?? ""} onChange={(event) => navigate({ until: event.target.value === "" ? undefined : event.target.value }, { replace: true })} />
        </label>
      </div>

      {state.pair !== undefined && state.against !== undefined ? <PairView failed={state.pair} passing={state.against} /> : null}
      <div className="eval-columns">
        <section className="eval-groups" aria-labelledby="eval-groups-title">
          <h3 id="eval-groups-title">
            Failure groups <span className="muted">· {groups.length} · by runs affected · j/k, Enter</span>
          </h3>
          {groups.length === 0 ? (
            <EmptyState title="No failure groups">{summary.groups.length === 0 ? "No run of the target has a failed call or an error." : "No group matches the filter."}</EmptyState>
          ) : (
            <div className="eval-scroll" ref={groupScroller} data-testid="eval-groups">
              <ul style={{ height: groupList.getTotalSize(), position: "relative" }}>
                {groupList.getVirtualItems().map((item) => {
                  const group = groups[item.index] as FailureGroupResponse;
                  return (
                    <li key={group.signature} style={{ position: "absolute", top: 0, left: 0, right: 0, height: GROUP_ROW, transform: `translateY(${item.start}px)` }}>
                      <GroupRow group={group} active={item.index === cursor} open={group.signature === state.group} />
                    </li>
                  );
                })}
              </ul>
            </div>
          )}
        </section>
        <section className="eval-side" aria-label={open === null ? "Runs" : "Occurrences and runs of the group"}>
          {open === null ? null : <Occurrences group={open} indexed={summary.index.indexed} />}
          <RunList state={state} summary={summary} />
        </section>
      </div>
      {summary.not_sessions.length > 0 ? <p className="muted">Not runs (no session line): {summary.not_sessions.join(", ")}</p> : null}
    </div>
  );
}

function OutcomeLink({ label, count, outcome, state }: { label: string; count: number; outcome: "ok" | "failed" | "error"; state: ViewState }) {
  const active = state.outcome === outcome;
  return (
    <Link to={{ outcome: active ? undefined : outcome }} className={`eval-outcome eval-outcome-${outcome}${active ? " is-active" : ""}`} aria-current={active ? "true" : undefined} data-testid={`eval-outcome-${outcome}`}>
      <strong>{count}</strong> {label}
    </Link>
  );
}

function GroupRow({ group, active, open }: { group: FailureGroupResponse; active: boolean; open: boolean }) {
  return (
    <Link to={{ group: open ? undefined : group.signature }} className={`eval-group${active ? " is-cursor" : ""}${open ? " is-open" : ""}`} aria-current={open ? "true" : undefined} data-testid="eval-group">
      <span className="eval-group-head">
        <span className="mono eval-signature">{group.signature}</span>
        <span className="eval-counts">
          <strong>{group.runs}</strong> {group.runs === 1 ? "run" : "runs"} ({percent(group.run_share)}) · {group.occurrences}×
        </span>
      </span>
      <span className="eval-example">e.g. {group.example.message}</span>
      <span className="eval-meta muted">
        {time(group.first_seen)} → {time(group.last_seen)}
        {group.tools.length > 0 ? ` · ${group.tools.map((tool) => tool.name).join(", ")}` : ""}
        {group.arguments.length > 0 ? ` · ${group.arguments.map((argument) => argument.value).join(", ")}` : ""}
      </span>
    </Link>
  );
}

/** Opens an occurrence's call in its run's timeline (the run's failure with the same call), else the run. */
function useOpenOccurrence() {
  const api = useApi();
  const client = useQueryClient();
  return async (occurrence: FailureOccurrenceResponse) => {
    try {
      const run = await client.fetchQuery(routeQuery(api, "run", { file: occurrence.run }));
      const failure =
        occurrence.kind === "call"
          ? run.failures.find((candidate) => (occurrence.call_id !== null ? candidate.call_id === occurrence.call_id : candidate.message === occurrence.message && candidate.turn === occurrence.turn && candidate.session_id === occurrence.session_id))
          : undefined;
      if (failure !== undefined) navigate({ ...failurePatch(run.source.path, failure), group: undefined, outcome: undefined, tag: undefined, since: undefined, until: undefined, q: undefined });
      else navigate({ file: run.source.path, line: finalLine(run) ?? undefined, view: "run", group: undefined, outcome: undefined, tag: undefined, since: undefined, until: undefined, q: undefined });
    } catch (error) {
      showToast(`Could not open ${occurrence.run}: ${error instanceof Error ? error.message : String(error)}`, "error");
    }
  };
}

function Occurrences({ group, indexed }: { group: FailureGroupResponse; indexed: number }) {
  const occurrences = useFailureOccurrences(group.signature);
  const client = useQueryClient();
  // While the run index grows, the group's occurrences grow with it: asked again as the summary is.
  const shownAt = useRef(indexed);
  useEffect(() => {
    if (shownAt.current === indexed) return;
    shownAt.current = indexed;
    void client.invalidateQueries({ queryKey: keys.route("failureOccurrences", { signature: group.signature }) });
  }, [client, group.signature, indexed]);
  const openOccurrence = useOpenOccurrence();
  const scroller = useRef<HTMLDivElement | null>(null);
  const list = occurrences.data?.occurrences ?? [];
  const virtual = useVirtualizer({ count: list.length, getScrollElement: () => scroller.current, estimateSize: () => RUN_ROW, overscan: 10 });
  return (
    <div className="eval-occurrences" data-testid="eval-occurrences">
      <h3>
        Occurrences <span className="muted">· {group.occurrences}</span>
      </h3>
      {occurrences.isError ? <ErrorState error={occurrences.error} title="Could not list the occurrences" /> : null}
      {occurrences.data === undefined && !occurrences.isError ? <Spinner label="Listing the occurrences…" /> : null}
      <div className="eval-scroll eval-scroll-short" ref={scroller}>
        <ul style={{ height: virtual.getTotalSize(), position: "relative" }}>
          {virtual.getVirtualItems().map((item) => {
            const occurrence = list[item.index] as FailureOccurrenceResponse;
            return (
              <li key={item.index} style={{ position: "absolute", top: 0, left: 0, right: 0, height: RUN_ROW, transform: `translateY(${item.start}px)` }}>
                <button type="button" className="eval-occurrence" onClick={() => void openOccurrence(occurrence)} data-testid="eval-occurrence" title={occurrence.message}>
                  <span className="mono">{occurrence.run}</span>
                  <span>{occurrence.turn === null ? "" : `turn ${occurrence.turn}`}</span>
                  <span className="mono">{occurrence.argument?.value ?? ""}</span>
                  <span className="eval-occurrence-message">{occurrence.message}</span>
                </button>
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}

/**
 * The runs the filters keep, virtualised over their count: the first page is always asked (it
 * says the count), then the pages under the rows on screen; a row of a page not here yet is
 * drawn as a placeholder. While the run index grows they are asked again with the summary.
 */
function RunList({ state, summary }: { state: ViewState; summary: EvalSummaryResponse }) {
  const client = useQueryClient();
  const { group, outcome, tag, since, until, q } = state;
  const filter = useMemo((): EvalFilter => ({ group, outcome, tag, since, until, q }), [group, outcome, tag, since, until, q]);
  const shownAt = useRef(summary.index.indexed);
  useEffect(() => {
    if (shownAt.current === summary.index.indexed) return;
    shownAt.current = summary.index.indexed;
    void client.invalidateQueries({ queryKey: keys.routeName("evalRuns") });
  }, [client, summary.index.indexed]);
  const scroller = useRef<HTMLDivElement | null>(null);
  // Another filter is another list, drawn from its top.
  useEffect(() => {
    scroller.current?.scrollTo(0, 0);
  }, [filter]);
  // The count of the last answer stays while a new filter's first page is asked.
  const counted = useRef(0);
  const [firstPage] = useEvalRunPages(filter, [0]);
  const first = firstPage?.data;
  if (first !== undefined) counted.current = first.total;
  const total = first?.total ?? counted.current;
  const virtual = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => RUN_ROW, overscan: 12 });
  const items = virtual.getVirtualItems();
  // Only pages within this filter's count: until its first page says it (and the scroll is
  // back at the top), the rows on screen may be the last filter's.
  const offsets = first === undefined ? [] : [...new Set(items.map((item) => Math.floor(item.index / EVAL_RUN_PAGE_SIZE) * EVAL_RUN_PAGE_SIZE))].filter((offset) => offset !== 0 && offset < first.total);
  const later = useEvalRunPages(filter, offsets);
  const pages = [firstPage, ...later];
  const rowAt = (index: number): EvalRunRowResponse | undefined => {
    const offset = Math.floor(index / EVAL_RUN_PAGE_SIZE) * EVAL_RUN_PAGE_SIZE;
    const page = offset === 0 ? first : later[offsets.indexOf(offset)]?.data;
    return page?.offset === offset ? page.runs[index - offset] : undefined;
  };
  const error = pages.find((page) => page?.isError === true)?.error ?? null;
  const filtered = total !== summary.outcomes.runs;
  return (
    <div className="eval-runs">
      <h3>
        Runs <span className="muted">· {filtered ? `${total} of ${summary.outcomes.runs}` : total}</span>
      </h3>
      {error !== null ? <ErrorState error={error} title="Could not list the runs" /> : null}
      {first === undefined && error === null && total === 0 ? <Spinner label="Listing the runs…" /> : null}
      {first !== undefined && total === 0 ? <EmptyState title="No run matches the filters" /> : null}
      <div className="eval-scroll" ref={scroller} data-testid="eval-runs">
        <ul style={{ height: virtual.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const run = rowAt(item.index);
            const place = { position: "absolute", top: 0, left: 0, right: 0, height: RUN_ROW, transform: `translateY(${item.start}px)` } as const;
            if (run === undefined) {
              return (
                <li key={`row-${item.index}`} className="eval-run is-pending muted" style={place} data-testid="eval-run-pending">
                  …
                </li>
              );
            }
            return (
              <li key={run.run} className="eval-run" style={place} data-testid="eval-run">
                <span className={`tag eval-badge-${run.outcome}`}>{run.outcome === "ok" ? "passed" : run.outcome === "error" ? "did not load" : outcomeText(run)}</span>
                <Link to={{ file: run.run, line: undefined, view: "run", group: undefined, outcome: undefined, tag: undefined, since: undefined, until: undefined, q: undefined }} className="mono eval-run-path" title={run.reason ?? run.run}>
                  {run.run}
                </Link>
                <span className="muted">{run.attempt === null ? "" : `attempt ${run.attempt}`}</span>
                {run.peer !== null ? (
                  <Link to={{ pair: run.run, against: run.peer }} className="btn btn-small" title={`Align the tool calls with ${run.peer}, a passing run of the same sample`} data-testid="eval-compare-passing">
                    vs passing
                  </Link>
                ) : null}
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
