/**
 * A session's turns, from the events of its latest line (which holds its whole history):
 * each `PromptRendered` starts a turn that runs through its tool calls and the prompt's
 * execution up to the next rendered prompt. A session without prompt events is cut at its
 * snapshot lines instead (each line closes a turn), and a session with events but neither
 * is one turn.
 */
import { compareTimes } from "./times.js";
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
  const lines = [...snapshots].sort((a, b) => compareTimes(a.created_at, b.created_at) || a.line_number - b.line_number);
  const starts = events.filter(opensTurn).map((event) => event.index);
  if (starts.length > 0) {
    const ranges: { number: number; first: number; last: number }[] = [];
    if ((starts[0] as number) > 0) ranges.push({ number: 0, first: 0, last: (starts[0] as number) - 1 });
    starts.forEach((first, position) => ranges.push({ number: position + 1, first, last: (starts[position + 1] ?? events.length) - 1 }));
    const turns = ranges.map((range) => turnOf(range.number, events.slice(range.first, range.last + 1), range.first, null));
    turns.forEach((turn, position) => {
      const next = turns[position + 1];
      const line = lines.find((candidate) => turn.ended_at !== null && compareTimes(candidate.created_at, turn.ended_at) >= 0);
      const beforeNext = line !== undefined && (next === undefined || next.started_at === null || compareTimes(line.created_at, next.started_at) <= 0);
      turn.snapshot_line = beforeNext ? (line?.line_number ?? null) : null;
    });
    return { turns, turn_source: "prompts" };
  }
  if (lines.length > 0 && (events.length > 0 || lines.length > 1)) {
    const turns: TurnView[] = [];
    let next = 0;
    lines.forEach((line, position) => {
      const first = next;
      const last = position === lines.length - 1;
      while (next < events.length && (last || compareTimes((events[next] as TimelineEventView).created_at, line.created_at) <= 0)) next++;
      const previous = lines[position - 1];
      turns.push(turnOf(position + 1, events.slice(first, next), first, line.line_number, previous?.created_at ?? null, line.created_at));
    });
    return { turns, turn_source: "snapshots" };
  }
  if (events.length > 0) return { turns: [turnOf(1, events, 0, lines[0]?.line_number ?? null)], turn_source: "none" };
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
