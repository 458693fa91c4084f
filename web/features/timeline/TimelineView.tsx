/**
 * A session's timeline, grouped by turn: each turn a collapsible header (its prompt, calls,
 * failures, duration), its events below with duration bars on the turn's time axis (a
 * waterfall), and the sub-agents it started inline where they ran. Virtualised, so 10,000
 * events scroll like 10. The selected event opens beside the list with its arguments and
 * result; where the session's undo store is served with it, its changed files and their
 * diffs. J/K (or ↑/↓ in the list) move, Enter opens the item in its slice, O collapses or
 * expands the turn.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { KeyboardEvent } from "react";
import type { RunSessionResponse, SnapshotRef, TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";
import { EmptyState, ErrorState, Kbd, Spinner } from "../../components/feedback.js";
import { CutPath } from "../../components/CutPath.js";
import { elapsedMs, formatCount, formatDuration, formatOffset, formatTimestamp, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import type { IconName } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { PaneResizer } from "../../components/PaneResizer.js";
import { useApi } from "../../api/context.js";
import { useRun, useTimeline } from "../../queries/hooks.js";
import { diffRequest } from "../../queries/options.js";
import { routeQuery } from "../../queries/route-query.js";
import { DETAIL_WIDTH, usePreferences } from "../../state/preferences.js";
import { doubleKey, isTyping, useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import { showToast } from "../../state/toasts.js";
import { OutcomeBadge } from "../runs/RunsPanel.js";
import { sessionOfLine, snapshotPatch } from "../../state/run-links.js";
import { visibleText } from "../../components/json-model.js";
import { calledPath, changeOfPath, noChangesReason } from "./change-shortcut.js";
import { EventDetail, nearestSnapshots } from "./EventDetail.js";
import { timelineRows } from "./timeline-rows.js";
import type { Span, TimelineRow } from "./timeline-rows.js";
import { ChangesMarker, ToolCallDiffModal } from "./ToolCallChanges.js";

const ROW_HEIGHT = { turn: 34, event: 40, agent: 40 } as const;
const SCROLL_CONTEXT = ROW_HEIGHT.event * 1.5;
/** The event panel's width: the reader's, down to what leaves the list 420 px (not under 280 px). */
const detailColumn = (width: number) => `min(${width}px, max(280px, 100% - 420px))`;

export function TimelineView({ snapshot, selectedEvent, change }: { snapshot: SnapshotRef; selectedEvent: number | undefined; change?: string | undefined }) {
  const timeline = useTimeline(snapshot);
  const run = useRun(snapshot.file);
  if (timeline.isPending) return <Spinner label="Building the timeline…" />;
  if (timeline.isError) return <ErrorState error={timeline.error} title="Could not build the timeline" onRetry={() => void timeline.refetch()} />;
  const session = run.data === undefined ? null : sessionOfLine(run.data.sessions, snapshot.line);
  const children = session === null || run.data === undefined ? [] : run.data.sessions.filter((candidate) => candidate.parent_session_id === session.session_id);
  return <TimelineBody snapshot={snapshot} timeline={timeline.data} session={session} childSessions={children} selectedEvent={selectedEvent} change={change} />;
}

function kindIcon(event: TimelineEventResponse): IconName {
  return event.kind === "tool_call" ? "tool" : event.kind === "prompt" ? "message" : "bolt";
}

function Bar({ span, failed, agent = false }: { span: Span | null; failed: boolean; agent?: boolean }) {
  return (
    <span className="waterfall" aria-hidden="true">
      {span === null ? null : <span className={`waterfall-bar${failed ? " is-failed" : ""}${agent ? " is-agent" : ""}`} style={{ left: `${span.left * 100}%`, width: `${span.width * 100}%` }} />}
    </span>
  );
}

interface BodyProps {
  snapshot: SnapshotRef;
  timeline: TimelineResponse;
  session: RunSessionResponse | null;
  childSessions: readonly RunSessionResponse[];
  selectedEvent: number | undefined;
  change: string | undefined;
}

function TimelineBody({ snapshot, timeline, session, childSessions, selectedEvent, change }: BodyProps) {
  const navigate = useNavigate();
  const preferences = usePreferences();
  const [filter, setFilter] = useState<"all" | "tool_call" | "failed">("all");
  const [text, setText] = useState("");
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(() => new Set());
  const filterInput = useRef<HTMLInputElement>(null);
  const needle = text.trim().toLowerCase();
  const filtering = filter !== "all" || needle !== "";
  const matches = useCallback(
    (event: TimelineEventResponse) => {
      if (filter === "tool_call" && event.kind !== "tool_call") return false;
      if (filter === "failed" && event.error === null && event.success !== false) return false;
      return needle === "" || `${event.title} ${event.argument?.value ?? ""} ${event.summary ?? ""} ${event.error ?? ""}`.toLowerCase().includes(needle);
    },
    [filter, needle],
  );
  const rows = useMemo(() => timelineRows(timeline, childSessions, { collapsed, matches, filtering }), [timeline, childSessions, collapsed, matches, filtering]);
  const eventRows = useMemo(() => rows.flatMap((row, position) => (row.kind === "event" ? [{ position, index: row.event.index }] : [])), [rows]);
  const changesByEvent = useMemo(() => new Map<number, ToolCallChangesResponse>((timeline.changes?.tool_calls ?? []).map((call) => [call.event_index, call])), [timeline.changes]);
  const selected = selectedEvent === undefined ? undefined : timeline.events[selectedEvent];
  const selectedChanges = selectedEvent === undefined ? undefined : changesByEvent.get(selectedEvent);

  const position = selectedEvent === undefined ? -1 : rows.findIndex((row) => row.kind === "event" && row.event.index === selectedEvent);

  // A newly selected event (a deep link, N) in a collapsed turn opens its turn; folding the
  // selected event's own turn afterwards (O) is left alone.
  const revealed = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (selected === undefined || revealed.current === selected.index) return;
    revealed.current = selected.index;
    if (position !== -1) return;
    const turn = timeline.turns.find((candidate) => candidate.first_event !== null && candidate.last_event !== null && selected.index >= candidate.first_event && selected.index <= candidate.last_event);
    if (turn !== undefined && collapsed.has(turn.number)) setCollapsed((previous) => new Set([...previous].filter((number) => number !== turn.number)));
  }, [selected, position, timeline.turns, collapsed]);

  const select = useCallback((index: number | undefined) => navigate({ event: index, change: undefined }, { replace: true }), [navigate]);
  const openChange = useCallback((path: string | undefined) => navigate({ change: path }, { replace: true }), [navigate]);
  const toggleTurn = useCallback((number: number) => setCollapsed((previous) => (previous.has(number) ? new Set([...previous].filter((entry) => entry !== number)) : new Set([...previous, number]))), []);
  // After folding from the keyboard, the turn's header is kept in view.
  const [keepTurn, setKeepTurn] = useState<number | null>(null);
  const [centered, setCentered] = useState<{ index: number } | null>(null);
  useEffect(() => {
    if (keepTurn === null) return;
    const at = rows.findIndex((row) => row.kind === "turn" && row.turn.number === keepTurn);
    if (at !== -1) setCentered({ index: at });
    setKeepTurn(null);
  }, [keepTurn, rows]);
  const openItem = useCallback((event: TimelineEventResponse) => navigate({ view: "slices", slice: event.slice_type, item: event.item_index }), [navigate]);
  const step = (delta: number) => {
    const at = eventRows.findIndex((entry) => entry.index === selectedEvent);
    const next = eventRows[at === -1 ? (delta > 0 ? 0 : eventRows.length - 1) : Math.min(eventRows.length - 1, Math.max(0, at + delta))];
    if (next !== undefined) select(next.index);
  };

  // Without an undo store, the file a call names, in the workspace diff across the call.
  const api = useApi();
  const client = useQueryClient();
  const openCalledFile = async (event: TimelineEventResponse, named: string) => {
    const { before, after } = nearestSnapshots(timeline.snapshots, event.created_at);
    if (before === null || after === null || before === after) {
      showToast(`No file changes are known for ${event.title}: no workspace snapshot was written ${before === null ? "before" : "after"} it, and the session's undo store is not served with it`);
      return;
    }
    const base = { file: snapshot.file, line: before };
    const target = { file: snapshot.file, line: after };
    try {
      const diff = await client.fetchQuery(routeQuery(api, "diff", diffRequest(base, target)));
      const change = changeOfPath(diff.files.changes, named);
      if (change === undefined) {
        showToast(`${event.title}: ${named} is not among the files that differ between the workspace before it (line ${before}) and after it (line ${after})`);
        return;
      }
      navigate({ ...target, view: "compare", base, path: change.path, slice: undefined, at: undefined, side: undefined, event: undefined, change: undefined });
    } catch (error) {
      showToast(`Could not compare the workspace around ${event.title}: ${error instanceof Error ? error.message : String(error)}`, "error");
    }
  };

  const toFirst = useMemo(() => doubleKey(() => eventRows[0] !== undefined && select(eventRows[0].index)), [eventRows, select]);
  useKeymap({
    g: toFirst,
    "shift+g": () => {
      const last = eventRows[eventRows.length - 1];
      if (last !== undefined) select(last.index);
    },
    j: () => step(1),
    k: () => step(-1),
    o: () => {
      const turn = timeline.turns.find((candidate) => selected !== undefined && candidate.first_event !== null && candidate.last_event !== null && selected.index >= candidate.first_event && selected.index <= candidate.last_event);
      if (turn === undefined) return false;
      toggleTurn(turn.number);
      setKeepTurn(turn.number);
      return true;
    },
    enter: (key) => {
      // A focused control of the timeline takes its own Enter.
      if (key.target instanceof HTMLElement && key.target.closest(".timeline a, .timeline button, .timeline input") !== null) return false;
      if (selected === undefined) return false;
      navigate({ view: "slices", slice: selected.slice_type, item: selected.item_index });
      return true;
    },
    "/": () => filterInput.current?.focus(),
    c: () => {
      const first = selectedChanges?.files[0];
      if (first !== undefined) {
        openChange(first.path);
        return true;
      }
      const named = selected === undefined ? null : calledPath(selected);
      if (selected !== undefined && named !== null && (timeline.changes === null || timeline.changes === undefined)) {
        void openCalledFile(selected, named);
        return true;
      }
      showToast(noChangesReason(selected, timeline.changes, selectedChanges) ?? "No changed files");
      return true;
    },
  });

  const duration = elapsedMs(timeline.started_at, timeline.ended_at);
  return (
    <section className="timeline" aria-label="Timeline">
      <div className="timeline-summary">
        <span className="stat">
          <span className="stat-label">Started</span> <span className="mono">{timeline.started_at === null ? "—" : formatTimestamp(timeline.started_at)}</span>
        </span>
        <span className="stat">
          <span className="stat-label">Duration</span> {duration === null ? "—" : formatDuration(duration)}
        </span>
        <span className="stat">
          <span className="stat-label">Turns</span> {timeline.turns.length}
        </span>
        <span className="stat">
          <span className="stat-label">Events</span> {formatCount(timeline.events.length)}
        </span>
        <span className="stat">
          <span className="stat-label">Tool calls</span> {formatCount(timeline.tool_calls.total)}
          {timeline.tool_calls.failed > 0 ? <span className="status status-fail">{timeline.tool_calls.failed} failed</span> : null}
        </span>
        <span className="stat muted small">
          <Kbd>N</Kbd> next failure · <Kbd>O</Kbd> fold turn
        </span>
      </div>

      <div className="timeline-grid" style={selected !== undefined ? { gridTemplateColumns: `minmax(0, 1fr) 8px ${detailColumn(preferences.detailWidth)}` } : undefined}>
        <div className="timeline-main card">
          <div className="toolbar">
            <div className="segmented" role="group" aria-label="Show">
              {(["all", "tool_call", "failed"] as const).map((value) => (
                <button key={value} type="button" className={filter === value ? "is-on" : ""} aria-pressed={filter === value} onClick={() => setFilter(value)}>
                  {value === "all" ? "All events" : value === "tool_call" ? "Tool calls" : "Failures"}
                </button>
              ))}
            </div>
            <label className="field">
              <span className="sr-only">Filter events</span>
              <input ref={filterInput} type="search" placeholder="Filter events" value={text} onChange={(event) => setText(event.target.value)} />
            </label>
            <button type="button" className="mini-btn" onClick={() => setCollapsed(collapsed.size > 0 ? new Set() : new Set(timeline.turns.map((turn) => turn.number)))}>
              {collapsed.size > 0 ? "Expand all turns" : "Collapse all turns"}
            </button>
            <span className="muted small">{plural(eventRows.length, "event")} shown</span>
          </div>
          {rows.length === 0 ? (
            <EmptyState title={timeline.events.length === 0 ? "This snapshot records no events." : "No event matches."} />
          ) : (
            <TimelineList
              rows={rows}
              startedAt={timeline.started_at}
              file={snapshot.file}
              filtering={filtering}
              selectedEvent={selectedEvent}
              changesByEvent={changesByEvent}
              scrollTo={position}
              centered={centered}
              onSelect={select}
              onOpenItem={openItem}
              onToggleTurn={toggleTurn}
            />
          )}
        </div>
        {selected !== undefined ? (
          <>
            <PaneResizer preference="detailWidth" range={DETAIL_WIDTH} label="Resize the event panel" invert />
            <EventDetail snapshot={snapshot} timeline={timeline} event={selected} session={session} changes={selectedChanges} activeChange={change} onOpenChange={openChange} onClose={() => select(undefined)} />
          </>
        ) : (
          <TimelineSide timeline={timeline} snapshot={snapshot} />
        )}
      </div>
      {selectedChanges !== undefined && change !== undefined && selectedChanges.files.some((file) => file.path === change) ? (
        <ToolCallDiffModal snapshot={snapshot} changes={selectedChanges} toolName={selected?.title ?? ""} path={change} onOpen={openChange} onClose={() => openChange(undefined)} />
      ) : null}
    </section>
  );
}

interface ListProps {
  rows: readonly TimelineRow[];
  startedAt: string | null;
  file: string;
  filtering: boolean;
  selectedEvent: number | undefined;
  changesByEvent: ReadonlyMap<number, ToolCallChangesResponse>;
  /** Row position kept in view (the selected event), -1 for none. */
  scrollTo: number;
  /** A row to bring to the middle (a turn folded from the keyboard); a new object each time. */
  centered: { index: number } | null;
  onSelect: (index: number | undefined) => void;
  onOpenItem: (event: TimelineEventResponse) => void;
  onToggleTurn: (number: number) => void;
}

/**
 * The virtualised rows, in a component of their own: scrolling re-renders this list (and
 * only the rows that come into view, each memoised), not the toolbar, side panel or detail.
 *
 * The list is one tab stop (a roving tabindex): only its current row (the selected event,
 * or the row last focused) takes Tab, ↑/↓/Home/End move within it (an event row moved to is
 * selected), so Tab goes on to the selected event's links instead of through every row. A
 * newly selected event (N, J/K, a link that went away) takes the focus unless the reviewer
 * is busy elsewhere (typing, a dialog, another part of the page).
 */
const TimelineList = memo(function TimelineList({ rows, startedAt, file, filtering, selectedEvent, changesByEvent, scrollTo, centered, onSelect, onOpenItem, onToggleTurn }: ListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  // A row scrolled to keeps a row and a half of context on the side it came in from, so the call after the selected one is on screen too.
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: (index) => ROW_HEIGHT[rows[index]?.kind ?? "event"], overscan: 10, scrollPaddingStart: SCROLL_CONTEXT, scrollPaddingEnd: SCROLL_CONTEXT });
  const [cursor, setCursor] = useState(0);
  const active = Math.min(cursor, rows.length - 1);
  // The row to focus once it is drawn: "selected" waits for the selected event's row (its turn may be opening).
  const pendingFocus = useRef<number | "selected" | null>(null);
  useEffect(() => {
    if (scrollTo !== -1) virtualizer.scrollToIndex(scrollTo, { align: "auto" });
  }, [scrollTo, virtualizer]);
  useEffect(() => {
    if (scrollTo !== -1) setCursor(scrollTo);
  }, [scrollTo]);
  useEffect(() => {
    if (selectedEvent === undefined) return;
    const focused = document.activeElement;
    const idle = focused === null || focused === document.body || (focused instanceof HTMLElement && focused.closest(".timeline") !== null && focused.closest("[role=dialog]") === null && !isTyping(focused));
    if (idle) pendingFocus.current = "selected";
  }, [selectedEvent]);
  useEffect(() => {
    if (centered !== null) virtualizer.scrollToIndex(centered.index, { align: "center" });
  }, [centered, virtualizer]);
  // Every render: the pending row may have been drawn by this one (the virtualiser draws after it scrolls).
  useEffect(() => {
    const pending = pendingFocus.current;
    if (pending === null) return;
    const at = pending === "selected" ? scrollTo : pending;
    if (at === -1) return;
    const row = scroller.current?.querySelector<HTMLElement>(`[data-row="${at}"] > :is(button, a)`);
    if (row === null || row === undefined) return;
    pendingFocus.current = null;
    row.focus({ preventScroll: true });
  });
  const moveTo = (at: number) => {
    const target = rows[at];
    if (target === undefined) return;
    setCursor(at);
    pendingFocus.current = at;
    virtualizer.scrollToIndex(at, { align: "auto" });
    if (target.kind === "event" && target.event.index !== selectedEvent) onSelect(target.event.index);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return;
    const at = event.key === "ArrowDown" ? active + 1 : event.key === "ArrowUp" ? active - 1 : event.key === "Home" ? 0 : event.key === "End" ? rows.length - 1 : null;
    if (at === null) return;
    event.preventDefault();
    moveTo(Math.min(rows.length - 1, Math.max(0, at)));
  };
  const items = virtualizer.getVirtualItems();
  // Scrolled away from the current row (the wheel), the list itself keeps the tab stop and hands it to that row.
  const drawn = items.some((item) => item.index === active);
  return (
    <div
      className="timeline-scroller"
      ref={scroller}
      data-testid="timeline-events"
      aria-label="Events by turn"
      role="region"
      tabIndex={drawn ? -1 : 0}
      onKeyDown={onKeyDown}
      onFocus={(event) => {
        if (event.target === scroller.current && !drawn) moveTo(active);
      }}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {items.map((item) => {
          const row = rows[item.index];
          if (row === undefined) return null;
          const tabIndex = item.index === active ? 0 : -1;
          return (
            <div key={item.key} className={`timeline-row row-${row.kind}`} style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT[row.kind] }} data-row={item.index} onFocus={() => setCursor(item.index)}>
              {row.kind === "turn" ? (
                <TurnRow row={row} filtering={filtering} tabIndex={tabIndex} onToggle={onToggleTurn} />
              ) : row.kind === "agent" ? (
                <AgentRow row={row} startedAt={startedAt} file={file} tabIndex={tabIndex} />
              ) : (
                <EventRow row={row} startedAt={startedAt} changes={changesByEvent.get(row.event.index)} selected={row.event.index === selectedEvent} tabIndex={tabIndex} onSelect={onSelect} onOpenItem={onOpenItem} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
});

type RowOf<K extends TimelineRow["kind"]> = Extract<TimelineRow, { kind: K }>;

const TurnRow = memo(function TurnRow({ row, filtering, tabIndex, onToggle }: { row: RowOf<"turn">; filtering: boolean; tabIndex: number; onToggle: (number: number) => void }) {
  const turn = row.turn;
  const took = elapsedMs(turn.started_at, turn.ended_at);
  return (
    <button type="button" className={`turn-row${turn.failed_calls + turn.errors > 0 ? " has-failure" : ""}`} aria-expanded={!row.collapsed} tabIndex={tabIndex} onClick={() => onToggle(turn.number)} data-testid="turn-row" data-turn={turn.number}>
      <Icon name={row.collapsed ? "chevronRight" : "chevronDown"} size={13} />
      <strong>{turn.number === 0 ? "Before the first prompt" : `Turn ${turn.number}`}</strong>
      {turn.prompt !== null ? <span className="muted turn-prompt">{visibleText(turn.prompt)}</span> : null}
      <span className="turn-facts muted small">
        {filtering ? `${row.shown} of ${plural(turn.events, "event")}` : plural(turn.events, "event")} · {plural(turn.tool_calls, "call")}
        {took !== null ? ` · ${formatDuration(took)}` : ""}
      </span>
      {turn.failed_calls > 0 ? <span className="status status-fail">{turn.failed_calls} failed</span> : turn.errors > 0 ? <span className="status status-fail">{plural(turn.errors, "error")}</span> : null}
      {turn.snapshot_line !== null ? <span className="muted small">→ line {turn.snapshot_line}</span> : null}
    </button>
  );
});

const AgentRow = memo(function AgentRow({ row, startedAt, file, tabIndex }: { row: RowOf<"agent">; startedAt: string | null; file: string; tabIndex: number }) {
  const child = row.session;
  return (
    <Link to={snapshotPatch(file, child.latest_line)} className="event-row agent-row" tabIndex={tabIndex} data-testid="agent-row" title={`Sub-agent ${child.session_id}`}>
      <span className="event-offset mono">{child.stats.started_at === null ? "" : formatOffset(startedAt, child.stats.started_at)}</span>
      <span className="event-icon kind-agent">
        <Icon name="bolt" size={14} />
      </span>
      <span className="event-text">
        <span className="event-title">sub-agent {child.title ?? shortId(child.session_id)}</span>
        <span className="event-summary">
          {plural(child.stats.tool_calls, "call")} · {child.stats.duration_ms === null ? "" : formatDuration(child.stats.duration_ms)}
        </span>
      </span>
      <Bar span={row.span} failed={child.stats.outcome !== "ok"} agent />
      <OutcomeBadge stats={child.stats} />
    </Link>
  );
});

interface EventRowProps {
  row: RowOf<"event">;
  startedAt: string | null;
  changes: ToolCallChangesResponse | undefined;
  selected: boolean;
  /** 0 for the list's one tab stop, -1 for the others. */
  tabIndex: number;
  onSelect: (index: number | undefined) => void;
  onOpenItem: (event: TimelineEventResponse) => void;
}

const EventRow = memo(function EventRow({ row, startedAt, changes, selected, tabIndex, onSelect, onOpenItem }: EventRowProps) {
  const event = row.event;
  const failed = event.success === false || event.error !== null;
  return (
    <button
      type="button"
      className={`event-row${failed ? " is-failed" : ""}${selected ? " is-selected" : ""}`}
      aria-current={selected ? "true" : undefined}
      tabIndex={tabIndex}
      onClick={() => onSelect(event.index)}
      onDoubleClick={() => onOpenItem(event)}
      data-testid="timeline-event"
      data-event={event.index}
    >
      <span className="event-offset mono">{formatOffset(startedAt, event.created_at)}</span>
      <span className={`event-icon kind-${event.kind}`}>
        <Icon name={kindIcon(event)} size={14} />
      </span>
      <span className="event-text">
        <span className="event-title" title={event.argument === null ? undefined : `${event.title} ${event.argument.value}`}>
          <span className="event-name">{visibleText(event.title)}</span>
          {event.argument !== null ? (
            <>
              {" "}
              <CutPath value={visibleText(event.argument.value)} className="row-argument mono" />
            </>
          ) : null}
        </span>
        <span className="event-summary">{visibleText(event.error ?? event.summary ?? event.display_name)}</span>
      </span>
      {changes !== undefined ? <ChangesMarker changes={changes} /> : null}
      <Bar span={row.span} failed={failed} />
      <span className="event-duration">{event.duration_ms !== null ? formatDuration(event.duration_ms) : ""}</span>
      {event.success === true ? (
        <span className="status status-ok" aria-label="succeeded">
          <Icon name="check" size={12} />
        </span>
      ) : failed ? (
        <span className="status status-fail">{event.success === false ? "failed" : "error"}</span>
      ) : (
        <span className="status-placeholder" />
      )}
    </button>
  );
});

/** Without a selected event: the session's snapshots, its errors, and its tools. */
function TimelineSide({ timeline, snapshot }: { timeline: TimelineResponse; snapshot: SnapshotRef }) {
  const maxCount = Math.max(1, ...timeline.tool_calls.by_name.map((tool) => tool.count));
  return (
    <aside className="timeline-side">
      <div className="card">
        <h3>
          Errors {timeline.errors.length > 0 ? <span className="status status-fail">{timeline.errors.length}</span> : null}
        </h3>
        {timeline.errors.length === 0 ? (
          <p className="muted small">No failed tool call, error event, validation problem or bad line.</p>
        ) : (
          <ul className="error-list" data-testid="timeline-errors">
            {timeline.errors.map((error, index) => (
              <li key={index}>
                {error.event_index !== null ? (
                  <Link to={{ event: error.event_index, change: undefined }} replace className="error-item">
                    <span className="tag tag-danger">{error.source.replace("_", " ")}</span>
                    <span>{visibleText(error.message)}</span>
                  </Link>
                ) : (
                  <span className="error-item">
                    <span className="tag tag-danger">{error.source.replace("_", " ")}</span>
                    <span>{visibleText(error.message)}</span>
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      {timeline.changes !== undefined ? <UndoStoreCard changes={timeline.changes} /> : null}
      <div className="card">
        <h3>Snapshots of this session</h3>
        <ol className="snapshot-strip">
          {timeline.snapshots.map((entry) => (
            <li key={`${entry.file}:${entry.line_number}`}>
              <Link to={snapshotPatch(entry.file, entry.line_number)} className={`snapshot-chip${entry.selected ? " is-active" : ""}`} aria-current={entry.selected ? "true" : undefined}>
                <Icon name="clock" size={12} /> line {entry.line_number} · {formatTimestamp(entry.created_at)}
              </Link>
            </li>
          ))}
        </ol>
      </div>
      {timeline.tool_calls.by_name.length > 0 ? (
        <div className="card">
          <h3>Tools</h3>
          <ul className="tool-stats">
            {timeline.tool_calls.by_name.map((tool) => (
              <li key={tool.name}>
                <span className="tool-name mono" title={tool.name}>
                  {tool.name}
                </span>
                <span className="tool-bar" aria-hidden="true">
                  <span style={{ width: `${(tool.count / maxCount) * 100}%` }} />
                  {tool.failed > 0 ? <span className="tool-bar-failed" style={{ width: `${(tool.failed / maxCount) * 100}%` }} /> : null}
                </span>
                <span className="tool-count">
                  {tool.count}
                  {tool.failed > 0 ? <span className="text-danger"> ({tool.failed}✗)</span> : null}
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="muted small">Select an event to see its arguments and result ({snapshot.file}).</p>
    </aside>
  );
}

/** The undo store's summary: how many of this line's tool calls changed files, and how many were undone. */
function UndoStoreCard({ changes }: { changes: NonNullable<TimelineResponse["changes"]> }) {
  const changed = changes.tool_calls.filter((call) => call.files.length > 0).length;
  const undone = changes.tool_calls.filter((call) => call.undone).length;
  return (
    <div className="card" data-testid="undo-store-card">
      <h3>Undo store</h3>
      <p className="muted small">
        {plural(changed, "tool call")} changed files{undone > 0 ? `, ${undone} undone` : ""}.{changes.other_calls > 0 ? ` ${plural(changes.other_calls, "other call")} of this session are on other lines.` : ""} Select a tool call to see its files.
      </p>
      {changes.problems.length > 0 ? (
        <ul className="error-list">
          {changes.problems.map((problem, index) => (
            <li key={index} className="small text-danger">
              {visibleText(problem)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
