/**
 * A session's timeline: its snapshots in time order (selecting one selects it everywhere),
 * tool-call statistics, every error aggregated with one key to jump between them, and the
 * events (tool calls with outcome and duration, prompts) in time order, virtualised. Where
 * the session's undo store is served with it, tool calls show the files they changed (and
 * whether they were undone), and each file opens its pre→post diff.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { visibleText } from "../slices/json-model.js";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { SnapshotRef, TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";
import { EmptyState, ErrorState, Kbd, Spinner } from "../../components/feedback.js";
import { elapsedMs, formatDuration, formatOffset, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import type { IconName } from "../../components/Icon.js";
import { useTimeline } from "../../queries/hooks.js";
import { doubleKey, useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import { selectSnapshotPatch } from "../../state/view-state.js";
import { ChangesMarker, ToolCallChangesPanel, ToolCallDiffModal } from "./ToolCallChanges.js";

const ROW_HEIGHT = 52;

export function TimelineView({ snapshot, selectedEvent, change }: { snapshot: SnapshotRef; selectedEvent: number | undefined; change?: string | undefined }) {
  const timeline = useTimeline(snapshot);
  if (timeline.isPending) return <Spinner label="Building the timeline…" />;
  if (timeline.isError) return <ErrorState error={timeline.error} title="Could not build the timeline" onRetry={() => void timeline.refetch()} />;
  return <TimelineBody snapshot={snapshot} timeline={timeline.data} selectedEvent={selectedEvent} change={change} />;
}

function kindIcon(event: TimelineEventResponse): IconName {
  return event.kind === "tool_call" ? "tool" : event.kind === "prompt" ? "message" : "bolt";
}

function TimelineBody({ snapshot, timeline, selectedEvent, change }: { snapshot: SnapshotRef; timeline: TimelineResponse; selectedEvent: number | undefined; change: string | undefined }) {
  const navigate = useNavigate();
  const scroller = useRef<HTMLDivElement>(null);
  const [filter, setFilter] = useState<"all" | "tool_call" | "failed">("all");
  const filterInput = useRef<HTMLInputElement>(null);
  const [text, setText] = useState("");
  const events = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return timeline.events.filter((event) => {
      if (filter === "tool_call" && event.kind !== "tool_call") return false;
      if (filter === "failed" && event.error === null && event.success !== false) return false;
      return needle === "" || `${event.title} ${event.summary ?? ""} ${event.error ?? ""}`.toLowerCase().includes(needle);
    });
  }, [timeline.events, filter, text]);
  const errorEvents = useMemo(() => timeline.errors.filter((error) => error.event_index !== null).map((error) => error.event_index as number), [timeline.errors]);
  const changesByEvent = useMemo(() => new Map<number, ToolCallChangesResponse>((timeline.changes?.tool_calls ?? []).map((call) => [call.event_index, call])), [timeline.changes]);
  const selectedChanges = selectedEvent === undefined ? undefined : changesByEvent.get(selectedEvent);
  const selectedTitle = timeline.events.find((event) => event.index === selectedEvent)?.title ?? "";
  const snapshotCreatedAt = timeline.snapshots.find((entry) => entry.selected)?.created_at ?? null;

  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const position = selectedEvent === undefined ? -1 : events.findIndex((event) => event.index === selectedEvent);

  useEffect(() => {
    if (position !== -1) virtualizer.scrollToIndex(position, { align: "auto" });
  }, [position, virtualizer]);

  const select = useCallback((index: number | undefined) => navigate({ event: index, change: undefined }, { replace: true }), [navigate]);
  const openChange = useCallback((path: string | undefined) => navigate({ change: path }, { replace: true }), [navigate]);
  const open = useCallback((event: TimelineEventResponse) => navigate({ view: "slices", slice: event.slice_type, item: event.item_index }), [navigate]);

  const jumpError = useCallback(
    (step: 1 | -1) => {
      if (errorEvents.length === 0) return;
      const current = selectedEvent ?? (step === 1 ? -1 : Infinity);
      const candidates = step === 1 ? errorEvents.filter((index) => index > current) : errorEvents.filter((index) => index < current).reverse();
      const target = candidates[0] ?? (step === 1 ? errorEvents[0] : errorEvents[errorEvents.length - 1]);
      if (target === undefined) return;
      if (filter !== "all" && filter !== "failed") setFilter("all");
      select(target);
    },
    [errorEvents, selectedEvent, select, filter],
  );

  const toFirst = useMemo(() => doubleKey(() => events[0] !== undefined && select(events[0].index)), [events, select]);
  useKeymap({
    g: toFirst,
    "shift+g": () => {
      const last = events[events.length - 1];
      if (last !== undefined) select(last.index);
    },
    j: () => {
      const next = events[Math.min(events.length - 1, position + 1)];
      if (next !== undefined) select(next.index);
    },
    k: () => {
      const previous = events[Math.max(0, position - 1)];
      if (previous !== undefined) select(previous.index);
    },
    n: () => jumpError(1),
    "shift+n": () => jumpError(-1),
    enter: (key) => {
      // A focused control of the timeline (a changed file, a snapshot, an error) takes its own Enter.
      if (key.target instanceof HTMLElement && key.target.closest(".timeline button") !== null) return false;
      const event = events[position];
      if (event === undefined) return false;
      open(event);
      return true;
    },
    "/": () => filterInput.current?.focus(),
    c: () => {
      const first = selectedChanges?.files[0];
      if (first === undefined) return false;
      openChange(first.path);
      return true;
    },
  });

  const duration = elapsedMs(timeline.started_at, timeline.ended_at);
  const maxCount = Math.max(1, ...timeline.tool_calls.by_name.map((tool) => tool.count));

  return (
    <section className="timeline" aria-label="Timeline">
      <div className="timeline-summary">
        <div className="stat">
          <span className="stat-label">Started</span>
          <span className="stat-value mono">{timeline.started_at === null ? "—" : formatTimestamp(timeline.started_at)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Duration</span>
          <span className="stat-value">{duration === null ? "—" : formatDuration(duration)}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Events</span>
          <span className="stat-value">{timeline.events.length.toLocaleString("en-US")}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Tool calls</span>
          <span className="stat-value">
            {timeline.tool_calls.total.toLocaleString("en-US")}
            {timeline.tool_calls.failed > 0 ? <span className="status status-fail">{timeline.tool_calls.failed} failed</span> : null}
          </span>
        </div>
        <button type="button" className={`stat stat-button${timeline.errors.length > 0 ? " has-errors" : ""}`} onClick={() => jumpError(1)} disabled={errorEvents.length === 0} title="Next error (N)" data-testid="next-error">
          <span className="stat-label">Errors</span>
          <span className="stat-value">
            {timeline.errors.length} {errorEvents.length > 0 ? <Kbd>N</Kbd> : null}
          </span>
        </button>
      </div>

      <div className="timeline-grid">
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
            <span className="muted small">{plural(events.length, "event")}</span>
          </div>
          {events.length === 0 ? (
            <EmptyState title={timeline.events.length === 0 ? "This snapshot records no events." : "No event matches."} />
          ) : (
            <div className="timeline-scroller" ref={scroller} role="listbox" aria-label="Events" data-testid="timeline-events">
              <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
                {virtualizer.getVirtualItems().map((row) => {
                  const event = events[row.index];
                  if (event === undefined) return null;
                  const failed = event.success === false || event.error !== null;
                  const changes = changesByEvent.get(event.index);
                  return (
                    <div
                      key={event.index}
                      role="option"
                      aria-selected={event.index === selectedEvent}
                      className={`event-row${failed ? " is-failed" : ""}${event.index === selectedEvent ? " is-selected" : ""}`}
                      style={{ transform: `translateY(${row.start}px)`, height: ROW_HEIGHT }}
                      onClick={() => select(event.index)}
                      onDoubleClick={() => open(event)}
                      data-testid="timeline-event"
                    >
                      <span className="event-offset mono">{formatOffset(timeline.started_at, event.created_at)}</span>
                      <span className={`event-icon kind-${event.kind}`}>
                        <Icon name={kindIcon(event)} size={14} />
                      </span>
                      <span className="event-text">
                        <span className="event-title">{visibleText(event.title)}</span>
                        <span className="event-summary">{visibleText(event.error ?? event.summary ?? event.display_name)}</span>
                      </span>
                      {changes !== undefined ? <ChangesMarker changes={changes} /> : null}
                      {event.duration_ms !== null ? <span className="event-duration">{formatDuration(event.duration_ms)}</span> : null}
                      {event.success === true ? (
                        <span className="status status-ok" aria-label="succeeded">
                          <Icon name="check" size={12} />
                        </span>
                      ) : failed ? (
                        <span className="status status-fail">{event.success === false ? "failed" : "error"}</span>
                      ) : null}
                      <button
                        type="button"
                        className="mini-btn event-open"
                        onClick={(click) => {
                          click.stopPropagation();
                          open(event);
                        }}
                        title="Open the item in its slice (Enter)"
                      >
                        Open
                      </button>
                    </div>
                  );
                })}
              </div>
            </div>
          )}
          {selectedChanges !== undefined ? <ToolCallChangesPanel changes={selectedChanges} snapshotCreatedAt={snapshotCreatedAt} activePath={change} onOpen={openChange} /> : null}
        </div>

        <aside className="timeline-side">
          <div className="card">
            <h3>Snapshots of this session</h3>
            <ol className="snapshot-strip">
              {timeline.snapshots.map((entry) => (
                <li key={`${entry.file}:${entry.line_number}`}>
                  <button type="button" className={`snapshot-chip${entry.selected ? " is-active" : ""}`} onClick={() => navigate(selectSnapshotPatch({ file: entry.file, line: entry.line_number }))} aria-current={entry.selected ? "true" : undefined}>
                    <Icon name="clock" size={12} /> line {entry.line_number} · {formatTimestamp(entry.created_at)}
                  </button>
                </li>
              ))}
            </ol>
          </div>
          <div className="card">
            <h3>Errors {timeline.errors.length > 0 ? <span className="status status-fail">{timeline.errors.length}</span> : null}</h3>
            {timeline.errors.length === 0 ? (
              <p className="muted small">No failed tool call, error event, validation problem or bad line.</p>
            ) : (
              <ul className="error-list" data-testid="timeline-errors">
                {timeline.errors.map((error, index) => (
                  <li key={index}>
                    <button type="button" className="error-item" onClick={() => (error.event_index !== null ? select(error.event_index) : undefined)} disabled={error.event_index === null}>
                      <span className="tag tag-danger">{error.source.replace("_", " ")}</span>
                      <span>{visibleText(error.message)}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
          {timeline.changes !== undefined ? <UndoStoreCard changes={timeline.changes} /> : null}
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
        </aside>
      </div>
      {selectedChanges !== undefined && change !== undefined && selectedChanges.files.some((file) => file.path === change) ? (
        <ToolCallDiffModal snapshot={snapshot} changes={selectedChanges} toolName={selectedTitle} path={change} onOpen={openChange} onClose={() => openChange(undefined)} />
      ) : null}
    </section>
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
