/** Where the run views link to: a failure in its timeline, a snapshot, a turn's diff. */
import type { RunFailureResponse, RunSessionResponse, TurnResponse } from "../api/api.js";
import { panelPatch } from "./view-state.js";
import type { ViewPatch, ViewState } from "./view-state.js";

/**
 * The failing call in context: its session's timeline at the latest line, the call
 * selected; a failure only a bundle's transcript records, that transcript entry.
 */
export function failurePatch(file: string, failure: RunFailureResponse): ViewPatch {
  if (failure.event_index === null) return { file, line: failure.line_number, ...panelPatch("transcript", { entry: failure.transcript_rowid ?? undefined }) };
  return { file, line: failure.line_number, view: "timeline", event: failure.event_index, change: undefined, item: undefined, at: undefined };
}

/** True when `state` shows `failure` in context (so N steps on from it). */
export function showsFailure(state: ViewState, failure: RunFailureResponse): boolean {
  if (state.line !== failure.line_number) return false;
  if (failure.event_index === null) return state.view === "panel" && state.panel === "transcript" && state.entry === failure.transcript_rowid;
  return state.view === "timeline" && state.event === failure.event_index;
}

/** Another snapshot of the run, keeping the view. */
export function snapshotPatch(file: string, line: number): ViewPatch {
  return { file, line, item: undefined, event: undefined, change: undefined, at: undefined };
}

/** The session's snapshot lines before and after a turn (for the turn's diff), or null when it has none. */
export function turnSides(session: RunSessionResponse, turn: TurnResponse): { base: number; target: number } | null {
  if (turn.snapshot_line === null) return null;
  const ordered = session.snapshots.map((snapshot) => snapshot.line_number);
  const at = ordered.indexOf(turn.snapshot_line);
  // Past snapshots the run left out, the one listed before is not the one before.
  const cut = session.truncated?.snapshots;
  if (cut !== undefined && cut.omitted > 0 && at === cut.from) return null;
  const base = at > 0 ? ordered[at - 1] : undefined;
  return base === undefined ? null : { base, target: turn.snapshot_line };
}

/** The compare view of a turn: what it did to the workspace. */
export function turnDiffPatch(file: string, session: RunSessionResponse, turn: TurnResponse, path?: string): ViewPatch | null {
  const sides = turnSides(session, turn);
  if (sides === null) return null;
  return { file, line: sides.target, view: "compare", base: { file, line: sides.base }, path, slice: undefined, at: undefined, side: undefined };
}

/** The session a line belongs to. */
export function sessionOfLine(sessions: readonly RunSessionResponse[], line: number): RunSessionResponse | null {
  return sessions.find((session) => session.snapshots.some((snapshot) => snapshot.line_number === line)) ?? null;
}

