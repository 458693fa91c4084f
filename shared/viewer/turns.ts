/**
 * A session's turns, from the events of its latest line (which holds its whole history):
 * each `PromptRendered` starts a turn that runs through its tool calls and the prompt's
 * execution up to the next rendered prompt. A session without prompt events is cut at its
 * snapshot lines instead (each line closes a turn), and a session with events but neither
 * is one turn.
 */
import { atOnce, type Due } from "../session/event-loop-slices.js";
import type { TimeOrder } from "./times.js";
import { compareKeyedTimes, compareTimes, firstAtOrAfter, timeOrder } from "./times.js";
import type { SnapshotRefView, TimelineEventView, TurnSourceView, TurnView } from "./types.js";

type SnapshotPoint = Pick<SnapshotRefView, "line_number" | "created_at">;

export interface DerivedTurns {
  readonly turns: TurnView[];
  readonly turn_source: TurnSourceView;
}

/** True for the event that opens a turn. */
export function opensTurn(event: Pick<TimelineEventView, "kind" | "display_name">): boolean {
  return event.kind === "prompt" && event.display_name === "PromptRendered";
}

/** The turns of `events` (time-ordered, as the timeline lists them) given the session's snapshot lines. */
export function deriveTurns(events: readonly TimelineEventView[], snapshots: readonly SnapshotPoint[]): DerivedTurns {
  const order = timeOrder(snapshots.length, (position) => (snapshots[position] as SnapshotPoint).created_at, (a, b) => (snapshots[a] as SnapshotPoint).line_number - (snapshots[b] as SnapshotPoint).line_number);
  return atOnce(deriveTurnsSteps(events, snapshots, order, () => false));
}

/**
 * {@link deriveTurns} given the lines' {@link TimeOrder} (by time, then line number), in
 * steps that pause wherever `due` says: a session of 1.5 M lines cut at its lines makes as
 * many turns.
 */
export function* deriveTurnsSteps(events: readonly TimelineEventView[], snapshots: readonly SnapshotPoint[], order: TimeOrder, due: Due): Generator<void, DerivedTurns, void> {
  const timeAt = (position: number) => (snapshots[position] as SnapshotPoint).created_at;
  const lineAt = (rank: number) => snapshots[order.order[rank] as number] as SnapshotPoint;
  const count = order.order.length;
  const starts = events.filter(opensTurn).map((event) => event.index);
  if (starts.length > 0) {
    const ranges: { number: number; first: number; last: number }[] = [];
    if ((starts[0] as number) > 0) ranges.push({ number: 0, first: 0, last: (starts[0] as number) - 1 });
    starts.forEach((first, position) => ranges.push({ number: position + 1, first, last: (starts[position + 1] ?? events.length) - 1 }));
    const turns = ranges.map((range) => turnOf(range.number, events.slice(range.first, range.last + 1), range.first, null));
    for (let position = 0; position < turns.length; position++) {
      const turn = turns[position] as TurnView;
      const next = turns[position + 1];
      // The first line in time order at or after the turn's end (the lines are sorted: a bisection).
      const rank = turn.ended_at === null ? count : firstAtOrAfter(order, timeAt, turn.ended_at);
      const line = rank < count ? lineAt(rank) : undefined;
      const beforeNext = line !== undefined && (next === undefined || next.started_at === null || compareTimes(line.created_at, next.started_at) <= 0);
      turn.snapshot_line = beforeNext ? (line?.line_number ?? null) : null;
      if (due()) yield;
    }
    return { turns, turn_source: "prompts" };
  }
  if (count > 0 && (events.length > 0 || count > 1)) {
    const eventKeys = events.map((event) => Date.parse(event.created_at));
    const turns: TurnView[] = [];
    let next = 0;
    for (let rank = 0; rank < count; rank++) {
      const position = order.order[rank] as number;
      const line = snapshots[position] as SnapshotPoint;
      const key = order.keys[position] as number;
      const first = next;
      const last = rank === count - 1;
      while (next < events.length && (last || compareKeyedTimes(eventKeys[next] as number, (events[next] as TimelineEventView).created_at, key, line.created_at) <= 0)) next++;
      const previous = rank === 0 ? undefined : lineAt(rank - 1);
      turns.push(turnOf(rank + 1, events.slice(first, next), first, line.line_number, previous?.created_at ?? null, line.created_at));
      if (due()) yield;
    }
    return { turns, turn_source: "snapshots" };
  }
  if (events.length > 0) return { turns: [turnOf(1, events, 0, count === 0 ? null : lineAt(0).line_number)], turn_source: "none" };
  return { turns: [], turn_source: "none" };
}

function turnOf(number: number, events: readonly TimelineEventView[], offset: number, snapshotLine: number | null, from: string | null = null, to: string | null = null): TurnView {
  let toolCalls = 0;
  let failed = 0;
  let errors = 0;
  for (const event of events) {
    if (event.kind === "tool_call") toolCalls++;
    if (event.success === false) failed++;
    if (event.error !== null) errors++;
  }
  const prompt = events[0] !== undefined && opensTurn(events[0]) ? promptName(events[0]) : null;
  return {
    number,
    started_at: events[0]?.created_at ?? from ?? to,
    ended_at: events[events.length - 1]?.created_at ?? to,
    first_event: events.length === 0 ? null : offset,
    last_event: events.length === 0 ? null : offset + events.length - 1,
    prompt,
    events: events.length,
    tool_calls: toolCalls,
    failed_calls: failed,
    errors,
    snapshot_line: snapshotLine,
  };
}

function promptName(event: TimelineEventView): string | null {
  const at = event.title.indexOf(": ");
  return at === -1 ? null : event.title.slice(at + 2);
}

/** The turn an instant falls in: the last turn started at or before it (the first turn for earlier instants). */
export function turnAt(turns: readonly TurnView[], time: string): TurnView | null {
  let found: TurnView | null = null;
  for (const turn of turns) {
    if (turn.started_at !== null && compareTimes(turn.started_at, time) > 0) break;
    found = turn;
  }
  return found ?? turns[0] ?? null;
}
