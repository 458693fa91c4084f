/**
 * The sidebar: the runs of the directory or store (newest first, a page at a time, filtered
 * by name and modification date) with their outcome and duration; the open run's sessions
 * under it, each with its snapshots labelled by turn, and each child session placed in its
 * parent's list where it ran. Every row is a link (deep links, new tabs) to the snapshot it
 * names. A remote store's listing progress and failed polls are shown above the list.
 */
import { Fragment, useEffect, useMemo, useRef, useState } from "react";
import type { ReactElement } from "react";
import type { RunFilter, RunListResponse, RunSessionResponse, RunSnapshotResponse, RunSummaryResponse, SnapshotRef } from "../../api/api.js";
import { EmptyState, ErrorState, Spinner, storeHint } from "../../components/feedback.js";
import { formatCount, formatDuration, formatTimestamp, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { useBundleGroups, useRun, useRunPages, useRunSession } from "../../queries/hooks.js";
import { BundleGroupNote } from "../../components/BundleGroupNote.js";
import { RUN_SESSION_PAGE_LIMIT, outcomeText } from "../../../shared/viewer/browser.js";
import { snapshotPatch } from "../../state/run-links.js";
import { groupedRunOrder } from "./run-order.js";

export function OutcomeBadge({ stats, testId }: { stats: { outcome: string; failed_calls: number; errors: number }; testId?: string }) {
  const failed = stats.outcome !== "ok";
  return (
    <span className={`status ${failed ? "status-fail" : "status-ok"}`} data-testid={testId}>
      {failed ? <Icon name="alert" size={11} /> : <Icon name="check" size={11} />}
      {outcomeText(stats)}
    </span>
  );
}

const NO_FILTER: RunFilter = { q: "", since: "", until: "" };

/** Runs of the list, as the eval counts them: files that are some other JSON document are no runs. */
export function runTotal(list: RunListResponse): number {
  return list.total - list.not_sessions.total;
}

/**
 * "12 runs", or "3 of 12 runs" while a filter hides some; the files that are no session (a
 * `truth.json`) said apart, as the list shows them apart: "12 runs · 1 other file".
 */
export function countText(first: RunListResponse, filtered: boolean): string {
  const runs = runTotal(first);
  const others = filtered ? first.not_sessions.matched : first.not_sessions.total;
  const counted = filtered ? `${formatCount(first.matched - first.not_sessions.matched)} of ${plural(runs, "run")}` : plural(runs, "run");
  return others > 0 ? `${counted} · ${plural(others, "other file")}` : counted;
}

export function RunsPanel({ selected, currentFile }: { selected: SnapshotRef | null; currentFile: string | null }) {
  const [typed, setTyped] = useState("");
  const [filter, setFilter] = useState<RunFilter>(NO_FILTER);
  // Typing filters after a pause, not on every key (a store may hold thousands of runs).
  useEffect(() => {
    const timer = setTimeout(() => setFilter((current) => (current.q === typed ? current : { ...current, q: typed })), 200);
    return () => clearTimeout(timer);
  }, [typed]);
  const runs = useRunPages(filter);
  const pages = runs.data?.pages ?? [];
  const first = pages[0];
  const list = useMemo(() => (runs.data?.pages ?? []).flatMap((page) => page.runs), [runs.data]);
  const groups = useBundleGroups(list.some((run) => run.source.kind === "bundle"));
  const ordered = useMemo(() => {
    const groupOf = new Map<string, string>();
    for (const group of groups.data ?? []) if (group.bundles.length > 1) for (const bundle of group.bundles) groupOf.set(bundle.path, group.group_id);
    return groupedRunOrder(list, (path) => groupOf.get(path) ?? null);
  }, [list, groups.data]);
  const filtered = filter.q !== "" || filter.since !== "" || filter.until !== "";
  const left = first === undefined ? 0 : first.matched - list.length;
  return (
    <nav className="panel runs-panel" aria-labelledby="runs-heading">
      <header className="panel-header">
        <h2 id="runs-heading">Runs</h2>
        <span className="panel-sub" data-testid="runs-count">
          {first === undefined ? "" : `${first.root} · ${countText(first, filtered)}`}
        </span>
        {first !== undefined && (runTotal(first) > 1 || filtered) ? (
          <div className="run-filter" role="search" aria-label="Filter the runs">
            <input type="search" className="panel-filter" value={typed} onChange={(event) => setTyped(event.target.value)} placeholder="Filter by name" aria-label="Filter runs by name" data-testid="run-filter" />
            <span className="run-filter-dates">
              <label>
                <span aria-hidden="true">from</span>
                <input type="date" className="panel-filter" value={filter.since} onChange={(event) => setFilter({ ...filter, since: event.target.value })} aria-label="Modified on or after" data-testid="run-since" />
              </label>
              <label>
                <span aria-hidden="true">to</span>
                <input type="date" className="panel-filter" value={filter.until} onChange={(event) => setFilter({ ...filter, until: event.target.value })} aria-label="Modified on or before" data-testid="run-until" />
              </label>
            </span>
          </div>
        ) : null}
      </header>
      {first === undefined ? null : <StoreState list={first} />}
      {runs.isPending ? (
        <Spinner label="Reading the runs…" />
      ) : runs.isError ? (
        <ErrorState error={runs.error} title="Could not list the runs" onRetry={() => void runs.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState title={filtered ? "No runs match the filter." : "No runs captured yet."} />
      ) : (
        <ul className="run-list" data-testid="run-list">
          {ordered.runs.map((run) => (
            <RunItem key={run.source.path} run={run} current={run.source.path === currentFile} selected={selected} />
          ))}
          {ordered.others.map((run) => (
            <li key={run.source.path} className="run-item not-session muted small" title={`${run.source.path}: ${run.problem ?? ""}`} data-testid="not-session">
              <span className="mono">{run.source.name}</span> · not a session file
            </li>
          ))}
          {runs.hasNextPage ? (
            <li className="pad">
              <button type="button" className="btn btn-small" onClick={() => void runs.fetchNextPage()} disabled={runs.isFetchingNextPage} data-testid="more-runs">
                {runs.isFetchingNextPage ? "Loading…" : `Show ${formatCount(Math.min(left, pages[pages.length - 1]?.runs.length ?? left))} more (${formatCount(left)} left)`}
              </button>
            </li>
          ) : null}
          {pages[pages.length - 1]?.indexing ? <li className="muted small pad">Indexing…</li> : null}
        </ul>
      )}
    </nav>
  );
}

/** A remote store's listing under way, or its last poll failing (the runs shown are from before). */
function StoreState({ list }: { list: RunListResponse }) {
  const { store } = list;
  const health = store.health;
  return (
    <>
      {store.listing.done ? null : (
        <p className="muted small pad" role="status" data-testid="listing-progress">
          Listing {store.location}: {plural(store.listing.objects, "object")} in {plural(store.listing.pages, "page")} so far…
        </p>
      )}
      {store.listing.skipped_folders.length > 0 ? (
        <div className="store-alert small" role="status" data-testid="skipped-folders">
          <strong>
            <Icon name="alert" size={12} /> {plural(store.listing.skipped_folders.length, "folder")} left out of the listing
          </strong>
          {store.listing.skipped_folders.map((skipped) => (
            <span key={skipped.prefix}>{skipped.reason}</span>
          ))}
        </div>
      ) : null}
      {health !== null && !health.ok ? (
        <div className="store-alert small" role="alert" data-testid="store-alert">
          <strong>
            <Icon name="alert" size={12} /> {store.location} could not be read{health.checked_at === null ? "" : ` at ${formatTimestamp(health.checked_at).slice(11)}`}
          </strong>
          <span>{health.detail}</span>
          {storeHint(health.code) === null ? null : <span>{storeHint(health.code)}</span>}
          <span className="muted">The runs below are as last read; the next poll tries again.</span>
        </div>
      ) : null}
    </>
  );
}

function RunItem({ run, current, selected }: { run: RunSummaryResponse; current: boolean; selected: SnapshotRef | null }) {
  const started = run.stats.started_at;
  return (
    <li className={`run-item${current ? " is-current" : ""}`}>
      <Link to={{ file: run.source.path, line: undefined, view: "run", event: undefined, item: undefined, at: undefined, change: undefined, base: undefined, path: undefined }} className="run-row" aria-current={current ? "page" : undefined} data-testid="run-row" title={run.source.path}>
        <span className="run-row-top">
          <span className="run-title">{run.title}</span>
          {run.state === "pending" ? <span className="status">indexing</span> : run.state === "slow" ? <span className="status status-slow">slow</span> : <OutcomeBadge stats={run.stats} />}
        </span>
        {/* When it ran first: runs of one agent share their title, and a name cut at the end hid the time that tells them apart. */}
        <span className="run-meta" data-testid="run-meta">
          {started !== null ? `${formatTimestamp(started)} · ` : ""}
          {run.stats.duration_ms !== null ? `${formatDuration(run.stats.duration_ms)} · ` : ""}
          {run.source.name}
        </span>
        {run.problem !== null ? <span className="session-warning">{run.problem}</span> : null}
        {run.load_errors > 0 ? <span className="session-warning">{plural(run.load_errors, "line")} did not load</span> : null}
      </Link>
      {run.source.kind === "bundle" ? <BundleGroupNote path={run.source.path} /> : null}
      {current ? <RunSessions file={run.source.path} selected={selected} /> : null}
    </li>
  );
}

/** The sessions of the open run, each with its snapshots (exported for its test). */
export function RunSessions({ file, selected }: { file: string; selected: SnapshotRef | null }) {
  const run = useRun(file);
  if (run.isPending) return <Spinner label="Reading the run…" />;
  if (run.isError) return <ErrorState error={run.error} title="Could not read the run" onRetry={() => void run.refetch()} />;
  const byId = new Map(run.data.sessions.map((session) => [session.session_id, session]));
  const roots = run.data.sessions.filter((session) => session.depth === 0);
  return (
    <ul className="session-list" aria-label={`Sessions of ${run.data.title}`} data-testid="session-list">
      {roots.map((session) => (
        <SessionItem key={session.session_id} file={file} session={session} byId={byId} selected={selected} />
      ))}
    </ul>
  );
}

/**
 * Snapshots the run's answer leaves out of a long session (its `truncated`), said where they
 * would be and listed on request, a page of `/api/run/session` at a time (the button says how
 * many); focus goes on to the next page's button, the one pressed being gone.
 */
function OmittedSnapshots({ file, session, offset, count, link, focus = false }: { file: string; session: RunSessionResponse; offset: number; count: number; link: (snapshot: RunSnapshotResponse) => ReactElement; focus?: boolean }) {
  const [asked, setAsked] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focus) button.current?.focus();
  }, [focus]);
  const limit = Math.min(count, RUN_SESSION_PAGE_LIMIT);
  const page = useRunSession(file, session.session_id, asked ? { offset, limit } : null);
  if (asked && page.isSuccess) {
    return (
      <>
        {page.data.snapshots.slice(0, limit).map((snapshot) => (
          <li key={snapshot.line_number}>{link(snapshot)}</li>
        ))}
        {count > limit ? <OmittedSnapshots file={file} session={session} offset={offset + limit} count={count - limit} link={link} focus /> : null}
      </>
    );
  }
  return (
    <li className="session-note small" data-testid="omitted-snapshots">
      … {plural(count, "more snapshot")} not listed here{" "}
      {asked && page.isError ? (
        <span className="text-danger">: could not read them ({page.error.message})</span>
      ) : asked ? (
        <span role="status">reading them…</span>
      ) : (
        <button ref={button} type="button" className="mini-btn" data-testid="more-snapshots" onClick={() => setAsked(true)}>
          {count > limit ? `list the next ${formatCount(limit)}` : `list ${count === 1 ? "it" : `all ${formatCount(count)}`}`}
        </button>
      )}
    </li>
  );
}

function SessionItem({ file, session, byId, selected }: { file: string; session: RunSessionResponse; byId: ReadonlyMap<string, RunSessionResponse>; selected: SnapshotRef | null }) {
  const holdsSelection = selected !== null && selected.file === file && session.snapshots.some((snapshot) => snapshot.line_number === selected.line);
  const [open, setOpen] = useState(holdsSelection);
  useEffect(() => {
    if (holdsSelection) setOpen(true);
  }, [holdsSelection]);
  const children = session.children.map((id) => byId.get(id)).filter((child): child is RunSessionResponse => child !== undefined);
  // Each child goes after the parent's snapshot it ran before (the first line that lists it).
  const placed = new Map<number, RunSessionResponse[]>();
  const unplaced: RunSessionResponse[] = [];
  for (const child of children) {
    const line = child.spawned?.parent_line ?? null;
    if (line === null || !session.snapshots.some((snapshot) => snapshot.line_number === line)) unplaced.push(child);
    else placed.set(line, [...(placed.get(line) ?? []), child]);
  }
  const name = session.title ?? shortId(session.session_id);
  const listId = `snapshots-${session.session_id}`;
  const snapshotLink = (snapshot: RunSnapshotResponse) => {
    const active = selected?.file === file && selected.line === snapshot.line_number;
    return (
      <Link to={snapshotPatch(file, snapshot.line_number)} className={`snapshot-link${active ? " is-active" : ""}`} aria-current={active ? "true" : undefined} data-testid="snapshot-link" data-line={snapshot.line_number}>
        <span className="snapshot-label">{snapshot.label}</span>
        <span className="snapshot-meta">
          line {snapshot.line_number} · {formatTimestamp(snapshot.created_at).slice(11)}
          {snapshot.latest ? " · latest" : ""}
        </span>
      </Link>
    );
  };
  return (
    <li className={`session-item depth-${Math.min(session.depth, 4)}`} data-testid="session-item" data-session={session.session_id}>
      <div className="session-head">
        <button type="button" className="disclosure" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)} aria-label={`${open ? "Hide" : "Show"} the snapshots of ${name}`}>
          <Icon name={open ? "chevronDown" : "chevronRight"} size={13} />
        </button>
        <Link to={snapshotPatch(file, session.latest_line)} className={`session-link${selected?.file === file && selected.line === session.latest_line ? " is-active" : ""}`} title={session.session_id} data-testid="session-row" data-session={session.session_id}>
          <span className="session-name">{session.depth > 0 ? <Icon name="bolt" size={12} /> : null}{name}</span>
          <span className="session-meta">
            {session.depth > 0 ? `level ${session.depth} · ` : ""}
            {plural(session.truncated?.turns.total ?? session.turns.length, "turn")} · {plural(session.truncated?.snapshots.total ?? session.snapshots.length, "snapshot")}
            {session.stats.duration_ms !== null ? ` · ${formatDuration(session.stats.duration_ms)}` : ""}
          </span>
        </Link>
        <OutcomeBadge stats={session.stats} />
      </div>
      {session.spawned !== null && session.spawned.parent_line !== null ? (
        <Link to={snapshotPatch(file, session.spawned.parent_line)} className="spawn-link small" data-testid="parent-link">
          ↑ started by {byId.get(session.spawned.parent_session_id)?.title ?? shortId(session.spawned.parent_session_id)}
          {session.spawned.turn !== null ? ` in turn ${session.spawned.turn}` : ""}
        </Link>
      ) : null}
      {session.validation_error !== null ? <span className="session-warning">{session.validation_error}</span> : null}
      {session.missing_children.length > 0 ? (
        <span className="session-note small" title={session.missing_children.join("\n")}>
          {plural(session.missing_children.length, "child session")} not in this file
        </span>
      ) : null}
      {open ? (
        <ol className="snapshot-list" id={listId} aria-label={`Snapshots of ${name}`}>
          {session.snapshots.map((snapshot, position) => {
            const cut = session.truncated?.snapshots;
            return (
              <Fragment key={snapshot.line_number}>
                {cut !== undefined && cut.omitted > 0 && position === cut.from ? <OmittedSnapshots file={file} session={session} offset={cut.from} count={cut.omitted} link={snapshotLink} /> : null}
                <li>
                  {snapshotLink(snapshot)}
                  {(placed.get(snapshot.line_number) ?? []).length > 0 ? (
                    <ul className="session-list nested">
                      {(placed.get(snapshot.line_number) ?? []).map((child) => (
                        <SessionItem key={child.session_id} file={file} session={child} byId={byId} selected={selected} />
                      ))}
                    </ul>
                  ) : null}
                </li>
              </Fragment>
            );
          })}
        </ol>
      ) : null}
      {!open && children.length > 0 ? (
        <ul className="session-list nested">
          {children.map((child) => (
            <SessionItem key={child.session_id} file={file} session={child} byId={byId} selected={selected} />
          ))}
        </ul>
      ) : unplaced.length > 0 ? (
        <ul className="session-list nested">
          {unplaced.map((child) => (
            <SessionItem key={child.session_id} file={file} session={child} byId={byId} selected={selected} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
