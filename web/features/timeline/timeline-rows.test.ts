import { describe, expect, it } from "vitest";
import type { RunSessionResponse, TimelineEventResponse, TurnResponse } from "../../api/api.js";
import { spanOn, timelineRows } from "./timeline-rows.js";

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const event = (index: number, seconds: number, overrides: Partial<TimelineEventResponse> = {}): TimelineEventResponse => ({
  index,
  slice_type: "t:ToolInvoked",
  display_name: "ToolInvoked",
  item_index: index,
  event_id: `e${index}`,
  created_at: at(seconds),
  kind: "tool_call",
  title: "read_file",
  summary: null,
  success: true,
  call_id: null,
  duration_ms: 1000,
  error: null,
  argument: null,
  ...overrides,
});
const turn = (number: number, first: number, last: number, from: number, to: number): TurnResponse => ({ number, started_at: at(from), ended_at: at(to), first_event: first, last_event: last, prompt: null, events: last - first + 1, tool_calls: 0, failed_calls: 0, errors: 0, snapshot_line: null });

describe("timeline rows", () => {
  const events = [event(0, 0), event(1, 5), event(2, 10, { success: false, error: "boom" }), event(3, 20), event(4, 30)];
  const turns = [turn(1, 0, 2, 0, 10), turn(2, 3, 4, 20, 30)];
  const child = { session_id: "c", spawned: { parent_session_id: "p", at: at(6), turn: 1, parent_line: 1, parent_event_index: 1 }, stats: { started_at: at(6), ended_at: at(8) } } as unknown as RunSessionResponse;

  it("groups events under their turn, with sub-agents after the parent's last event before them", () => {
    const rows = timelineRows({ events, turns }, [child], { collapsed: new Set(), matches: () => true, filtering: false });
    expect(rows.map((row) => (row.kind === "turn" ? `T${row.turn.number}` : row.kind === "agent" ? "A" : `E${row.event.index}`))).toEqual(["T1", "E0", "E1", "A", "E2", "T2", "E3", "E4"]);
    const agent = rows[3];
    expect(agent?.kind === "agent" ? agent.span : null).toEqual({ left: 0.6, width: 0.2 });
  });

  it("collapses a turn to its header, and keeps only turns with matches when filtering", () => {
    expect(timelineRows({ events, turns }, [child], { collapsed: new Set([1]), matches: () => true, filtering: false }).map((row) => row.kind)).toEqual(["turn", "turn", "event", "event"]);
    const failed = timelineRows({ events, turns }, [child], { collapsed: new Set(), matches: (candidate) => candidate.error !== null, filtering: true });
    expect(failed.map((row) => (row.kind === "turn" ? `T${row.turn.number}:${row.shown}` : row.kind))).toEqual(["T1:1", "event"]);
  });

  it("places a call on its turn's axis from its end and duration", () => {
    expect(spanOn(0, 10_000, 4000, 5000)).toEqual({ left: 0.4, width: 0.1 });
    expect(spanOn(0, 10_000, null, 5000)).toEqual({ left: 0.5, width: 0.004 });
    expect(spanOn(null, 10_000, 0, 5000)).toBeNull();
  });
});
