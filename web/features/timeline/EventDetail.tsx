/**
 * The selected event of the timeline in full: its item (fetched from its slice page), a tool
 * call's arguments and result shown for what they are, and where to look next — the workspace
 * before and after the call (the nearest snapshots), the diff of its turn, its per-call diff
 * where an undo store exists, and the item in its slice.
 */
import { useQuery } from "@tanstack/react-query";
import type { RunSessionResponse, SnapshotRef, TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";
import { useApi } from "../../api/context.js";
import { ErrorState, Spinner } from "../../components/feedback.js";
import { formatDuration, formatTimestamp } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Link } from "../../components/Link.js";
import { SLICE_PAGE_SIZE, slicePage } from "../../queries/options.js";
import { routeQuery } from "../../queries/route-query.js";
import { turnDiffPatch } from "../../state/run-links.js";
import { visibleText } from "../../components/json-model.js";
import { ToolCallChangesPanel } from "./ToolCallChanges.js";
import { EventBody, ToolCallBody } from "./ToolCallBody.js";

function time(value: string): number {
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** The session's snapshot lines written last before and first after `at`. */
export function nearestSnapshots(snapshots: TimelineResponse["snapshots"], at: string): { before: number | null; after: number | null } {
  const moment = time(at);
  let before: { line: number; at: number } | null = null;
  let after: { line: number; at: number } | null = null;
  for (const snapshot of snapshots) {
    const when = time(snapshot.created_at);
    if (when <= moment && (before === null || when >= before.at)) before = { line: snapshot.line_number, at: when };
    if (when >= moment && (after === null || when < after.at)) after = { line: snapshot.line_number, at: when };
  }
  return { before: before?.line ?? null, after: after?.line ?? null };
}

export interface EventDetailProps {
  readonly snapshot: SnapshotRef;
  readonly timeline: TimelineResponse;
  readonly event: TimelineEventResponse;
  readonly session: RunSessionResponse | null;
  readonly changes: ToolCallChangesResponse | undefined;
  readonly activeChange: string | undefined;
  readonly onOpenChange: (path: string) => void;
  readonly onClose: () => void;
}

export function EventDetail({ snapshot, timeline, event, session, changes, activeChange, onOpenChange, onClose }: EventDetailProps) {
  const api = useApi();
  const page = Math.floor(event.item_index / SLICE_PAGE_SIZE);
  const query = useQuery(routeQuery(api, "slicePage", slicePage(snapshot, event.slice_type, page)));
  const item = query.data?.items[event.item_index - page * SLICE_PAGE_SIZE];
  const turn = timeline.turns.find((candidate) => candidate.first_event !== null && candidate.last_event !== null && event.index >= candidate.first_event && event.index <= candidate.last_event);
  const { before, after } = nearestSnapshots(timeline.snapshots, event.created_at);
  const path = event.argument !== null && /path|file/.test(event.argument.name) ? event.argument.value : undefined;
  const turnDiff = session !== null && turn !== undefined ? turnDiffPatch(snapshot.file, session, turn, path) : null;
  const failed = event.success === false || event.error !== null;
  const filesAt = (line: number) => ({ file: snapshot.file, line, view: "files" as const, path, at: undefined, base: undefined, event: undefined, change: undefined });
  return (
    <aside className={`card event-detail${failed ? " is-failed" : ""}`} aria-label={`Event ${event.title}`} data-testid="event-detail">
      <header className="event-detail-header">
        <h3>
          <span className="mono">{visibleText(event.title)}</span>
          {event.success === true ? <span className="status status-ok">ok</span> : failed ? <span className="status status-fail">{event.success === false ? "failed" : "error"}</span> : null}
        </h3>
        <button type="button" className="icon-btn" onClick={onClose} aria-label="Close the event">
          <Icon name="x" size={14} />
        </button>
      </header>
      <p className="muted small event-facts">
        {turn !== undefined ? `turn ${turn.number} · ` : ""}
        {formatTimestamp(event.created_at)}
        {event.duration_ms !== null ? ` · took ${formatDuration(event.duration_ms)}` : ""}
        {event.call_id !== null ? (
          <>
            {" · "}
            <span className="mono">{visibleText(event.call_id)}</span>
          </>
        ) : null}
      </p>
      {event.argument !== null ? (
        <p className="event-argument small">
          <span className="muted">{event.argument.name}</span> <span className="mono">{visibleText(event.argument.value)}</span>
        </p>
      ) : null}
      <nav className="event-links" aria-label="Around this event">
        {before !== null ? (
          <Link to={filesAt(before)} className="btn btn-small" data-testid="workspace-before">
            <Icon name="folder" size={13} /> Workspace before
          </Link>
        ) : null}
        {after !== null && after !== before ? (
          <Link to={filesAt(after)} className="btn btn-small" data-testid="workspace-after">
            <Icon name="folder" size={13} /> after
          </Link>
        ) : null}
        {turnDiff !== null && turn !== undefined ? (
          <Link to={turnDiff} className="btn btn-small" data-testid="turn-diff">
            <Icon name="compare" size={13} /> Diff of turn {turn.number}
          </Link>
        ) : null}
        <Link to={{ view: "slices", slice: event.slice_type, item: event.item_index }} className="btn btn-small">
          <Icon name="braces" size={13} /> Item in its slice
        </Link>
      </nav>
      <div className="event-detail-body">
        {query.isPending ? (
          <Spinner label="Reading the event…" />
        ) : query.isError ? (
          <ErrorState error={query.error} title="Could not read the event" onRetry={() => void query.refetch()} />
        ) : event.kind === "tool_call" ? (
          <ToolCallBody item={item} />
        ) : (
          <EventBody item={item} />
        )}
        {changes !== undefined ? <ToolCallChangesPanel changes={changes} snapshotCreatedAt={timeline.snapshots.find((entry) => entry.selected)?.created_at ?? null} activePath={activeChange} onOpen={onOpenChange} /> : null}
      </div>
    </aside>
  );
}
