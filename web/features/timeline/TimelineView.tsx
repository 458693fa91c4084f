/**
 * A session's timeline: its snapshots in time order (selecting one selects it everywhere),
 * tool-call statistics, every error aggregated with one key to jump between them, and the
 * events (tool calls with outcome and duration, prompts) in time order, virtualised.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { visibleText } from "../slices/json-model.js";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { SnapshotRef, TimelineEventResponse, TimelineResponse } from "../../api/api.js";
import { EmptyState, ErrorState, Kbd, Spinner } from "../../components/feedback.js";
import { elapsedMs, formatDuration, formatOffset, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import type { IconName } from "../../components/Icon.js";
import { useTimeline } from "../../queries/hooks.js";
import { doubleKey, useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import { selectSnapshotPatch } from "../../state/view-state.js";

const ROW_HEIGHT = 52;

export function TimelineView({ snapshot, selectedEvent }: { snapshot: SnapshotRef; selectedEvent: number | undefined }) {
  const timeline = useTimeline(snapshot);
  if (timeline.isPending) return <Spinner label="Building the timeline…" />;
  if (timeline.isError) return <ErrorState error={timeline.error} title="Could not build the timeline" onRetry={() => void timeline.refetch()} />;
  return <TimelineBody timeline={timeline.data} selectedEvent={selectedEvent} />;
}

function kindIcon(event: TimelineEventResponse): IconName {
  return event.kind === "tool_call" ? "tool" : event.kind === "prompt" ? "message" : "bolt";
}

function TimelineBody({ timeline, selectedEvent }: { timeline: TimelineResponse; selectedEvent: number | undefined }) {
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

  const virtualizer = useVirtualizer({ count: events.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 8 });
  const position = selectedEvent === undefined ? -1 : events.findIndex((event) => event.index === selectedEvent);

  useEffect(() => {
    if (position !== -1) virtualizer.scrollToIndex(position, { align: "auto" });
  }, [position, virtualizer]);

  const select = useCallback((index: number | undefined) => navigate({ event: index }, { replace: true }), [navigate]);
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
    enter: () => {
      const event = events[position];
      if (event === undefined) return false;
      open(event);
      return true;
    },
    "/": () => filterInput.current?.focus(),
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
    </section>
  );
}
