/**
 * The timeline as the rows a virtual list shows: for each turn a header (collapsible), then
 * its events, with the sub-agents the turn started as rows of their own, placed after the
 * parent's last event before they began. Each event and sub-agent carries where it sits on
 * its turn's time axis (a waterfall, as trace viewers draw spans). Pure.
 */
import type { RunSessionResponse, TimelineEventResponse, TimelineResponse, TurnResponse } from "../../api/api.js";

export interface Span {
  /** Start and width as fractions of the turn's span (0–1). */
  readonly left: number;
  readonly width: number;
}

export type TimelineRow =
  | { readonly kind: "turn"; readonly turn: TurnResponse; readonly collapsed: boolean; readonly shown: number }
  | { readonly kind: "event"; readonly event: TimelineEventResponse; readonly turn: number | null; readonly span: Span | null }
  | { readonly kind: "agent"; readonly session: RunSessionResponse; readonly turn: number | null; readonly span: Span | null };

const MIN_WIDTH = 0.004;

function ms(time: string | null): number | null {
  if (time === null) return null;
  const value = Date.parse(time);
  return Number.isNaN(value) ? null : value;
}

/** Where `[start, end]` sits on the axis `[from, to]`. */
export function spanOn(from: number | null, to: number | null, start: number | null, end: number | null): Span | null {
  if (from === null || to === null || end === null) return null;
  const length = Math.max(1, to - from);
  const begin = Math.min(Math.max(start ?? end, from), to);
  const finish = Math.min(Math.max(end, begin), to);
  return { left: (begin - from) / length, width: Math.max(MIN_WIDTH, (finish - begin) / length) };
}

export interface RowOptions {
  readonly collapsed: ReadonlySet<number>;
  /** Events shown (the filter); turns keep their header when none of theirs match. */
  readonly matches: (event: TimelineEventResponse) => boolean;
  readonly filtering: boolean;
}

export function timelineRows(timeline: Pick<TimelineResponse, "events" | "turns">, children: readonly RunSessionResponse[], options: RowOptions): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const agentsAfter = new Map<number, RunSessionResponse[]>();
  const unplaced = new Map<number, RunSessionResponse[]>();
  for (const child of children) {
    const after = child.spawned?.parent_event_index ?? null;
    const turn = child.spawned?.turn ?? null;
    if (after !== null) agentsAfter.set(after, [...(agentsAfter.get(after) ?? []), child]);
    else if (turn !== null) unplaced.set(turn, [...(unplaced.get(turn) ?? []), child]);
  }
  const turns = timeline.turns.length > 0 ? timeline.turns : [{ number: 0, started_at: timeline.events[0]?.created_at ?? null, ended_at: timeline.events[timeline.events.length - 1]?.created_at ?? null, first_event: timeline.events.length > 0 ? 0 : null, last_event: timeline.events.length > 0 ? timeline.events.length - 1 : null, prompt: null, events: timeline.events.length, tool_calls: 0, failed_calls: 0, errors: 0, snapshot_line: null }];
  for (const turn of turns) {
    const from = ms(turn.started_at);
    const to = ms(turn.ended_at);
    const body: TimelineRow[] = [];
    const agentRow = (session: RunSessionResponse): TimelineRow => ({ kind: "agent", session, turn: turn.number, span: spanOn(from, to, ms(session.stats.started_at), ms(session.stats.ended_at)) });
    if (turn.first_event !== null && turn.last_event !== null) {
      for (let index = turn.first_event; index <= turn.last_event; index++) {
        const event = timeline.events[index];
        if (event === undefined) continue;
        if (options.matches(event)) {
          const end = ms(event.created_at);
          body.push({ kind: "event", event, turn: turn.number, span: spanOn(from, to, end === null || event.duration_ms === null ? end : end - event.duration_ms, end) });
        }
        if (!options.filtering) for (const session of agentsAfter.get(index) ?? []) body.push(agentRow(session));
      }
    }
    if (!options.filtering) for (const session of unplaced.get(turn.number) ?? []) body.push(agentRow(session));
    if (options.filtering && body.length === 0) continue;
    const collapsed = options.collapsed.has(turn.number);
    rows.push({ kind: "turn", turn, collapsed, shown: body.filter((row) => row.kind === "event").length });
    if (!collapsed) rows.push(...body);
  }
  return rows;
}
