/**
 * How much of a run `/api/run` answers. A session's turns and snapshots grow with its lines:
 * a file of 1,000 sessions of 1,500 snapshot lines made an answer past V8's longest string (a
 * 500 after a minute). So each session lists at most `RUN_LIST_LIMIT` of each, its first
 * half and its last half (the run's start, and where it ended: the latest snapshot, the last
 * turns), and the sessions after the first share `RUN_LIST_BUDGET` entries of each list
 * between them; `truncated` says what is left out, and `/api/run/session` pages through the
 * whole lists. A run within these bounds is answered exactly as built.
 *
 * Browser-safe: the server and the in-browser API bound their answers the same way.
 */
import type { RunFailurePageView, RunListCutView, RunSessionPageView, RunSessionView, RunView } from "./types.js";

/** Turns, and snapshots, one session lists at most in `/api/run`. */
export const RUN_LIST_LIMIT = 500;
/** Turns, and snapshots, the sessions after the first list between them (each at most `RUN_LIST_LIMIT`, at least `RUN_LIST_FLOOR`). */
export const RUN_LIST_BUDGET = 10_000;
/** What a session lists however many sessions share the budget: its first and last few. */
export const RUN_LIST_FLOOR = 10;
/**
 * Failures `/api/run` lists at most (of the whole run, every session's together), its first
 * half and its last half, as a session's turns: the first failure is where the run went wrong
 * (what a reviewer opens first), the last ones are where it ended. A run of 200,000 failed
 * calls otherwise answered every one of them; `truncated.failures` counts them all, so the
 * overview still says how many failed.
 */
export const RUN_FAILURE_LIMIT = 500;
/** Failures one answer of `/api/run/failures` holds at most (and by default): as many as `/api/run` lists. */
export const RUN_FAILURE_PAGE_LIMIT = RUN_FAILURE_LIMIT;
/** Turns, and snapshots, one answer of `/api/run/session` holds at most (and by default). */
export const RUN_SESSION_PAGE_LIMIT = 1_000;

/** How many of each list the session at `position` (of `sessions`) may list (`/api/run`, and a `bounded` build). */
export function listLimit(position: number, sessions: number): number {
  if (position === 0) return RUN_LIST_LIMIT;
  return Math.min(RUN_LIST_LIMIT, Math.max(RUN_LIST_FLOOR, Math.floor(RUN_LIST_BUDGET / (sessions - 1))));
}

function cut<T>(list: readonly T[], limit: number): { listed: T[]; cut: RunListCutView } {
  if (list.length <= limit) return { listed: [...list], cut: { total: list.length, listed: list.length, omitted: 0, from: list.length } };
  const head = Math.ceil(limit / 2);
  const tail = limit - head;
  return { listed: [...list.slice(0, head), ...list.slice(list.length - tail)], cut: { total: list.length, listed: limit, omitted: list.length - limit, from: head } };
}

export function boundedSession(session: RunSessionView, limit: number): RunSessionView {
  if (session.turns.length <= limit && session.snapshots.length <= limit) return session;
  const turns = cut(session.turns, limit);
  const snapshots = cut(session.snapshots, limit);
  return { ...session, turns: turns.listed, snapshots: snapshots.listed, truncated: { turns: turns.cut, snapshots: snapshots.cut } };
}

function boundedSessions(run: RunView): RunView {
  const count = run.sessions.length;
  if (run.sessions.every((session, position) => session.turns.length <= listLimit(position, count) && session.snapshots.length <= listLimit(position, count))) return run;
  return { ...run, sessions: run.sessions.map((session, position) => boundedSession(session, listLimit(position, count))) };
}

/** `run` as `/api/run` answers it: each session's turns and snapshots, and the run's failures, within the bounds above (`run` itself when it is within them). */
export function boundedRun(run: RunView): RunView {
  const bounded = boundedSessions(run);
  if (run.failures.length <= RUN_FAILURE_LIMIT) return bounded;
  const failures = cut(run.failures, RUN_FAILURE_LIMIT);
  return { ...bounded, failures: failures.listed, truncated: { failures: failures.cut } };
}

/** A stretch of one session's whole lists (`/api/run/session`), or null when the run has no such session. */
export function runSessionPage(run: RunView, sessionId: string, offset = 0, limit = RUN_SESSION_PAGE_LIMIT): RunSessionPageView | null {
  const session = run.sessions.find((candidate) => candidate.session_id === sessionId);
  return session === undefined ? null : sessionListsPage(sessionId, session, offset, limit);
}

/** {@link runSessionPage} of a session's whole lists given as they are (a bounded run's built again). */
export function sessionListsPage(sessionId: string, lists: Pick<RunSessionView, "turns" | "snapshots">, offset = 0, limit = RUN_SESSION_PAGE_LIMIT): RunSessionPageView {
  const end = offset + Math.min(limit, RUN_SESSION_PAGE_LIMIT);
  return {
    session_id: sessionId,
    offset,
    turn_count: lists.turns.length,
    snapshot_count: lists.snapshots.length,
    turns: lists.turns.slice(offset, end),
    snapshots: lists.snapshots.slice(offset, end),
  };
}

/**
 * A stretch of the run's whole failure list (`/api/run/failures`): what `/api/run` leaves out
 * of a run of many failures, a page at a time. `run` is the whole run (not `boundedRun`'s).
 * An offset past the last failure is refused (a `RangeError` saying how many there are); one
 * at the end answers an empty page.
 */
export function runFailurePage(run: RunView, offset = 0, limit = RUN_FAILURE_PAGE_LIMIT): RunFailurePageView {
  const total = run.failures.length;
  if (offset > total) throw new RangeError(`offset ${offset} is past the run's last failure: it has ${total} ${total === 1 ? "failure" : "failures"} (offsets 0–${total})`);
  return { offset, total, failures: run.failures.slice(offset, offset + Math.min(limit, RUN_FAILURE_PAGE_LIMIT)) };
}
