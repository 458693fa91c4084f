/**
 * The run model: what the viewer opens on. A run is one source (a session file with its
 * archives today; a WINK debug bundle later) holding a root session and the sub-agents it
 * started. Each session's latest line holds its whole history, so everything here comes from
 * those lines plus the cheap summaries of the others: turns, snapshots named by turn and
 * archive, sub-agents placed where they ran, failures with their arguments, and per-session
 * and per-run outcomes.
 *
 * Browser-safe: the server's routes and the in-browser API build runs with the same code.
 */
import { EventLoopSlices } from "../session/event-loop-slices.js";
import type { SessionLineError, SessionSnapshot } from "../session/snapshot-line.js";
import type { IndexedSnapshotLine } from "./snapshot-view.js";
import { validationErrorText } from "./snapshot-view.js";
import { compareTimes } from "./times.js";
import { sessionEvents } from "./timeline.js";
import type { EventDetail } from "./timeline.js";
import { deriveTurns, turnAt } from "./turns.js";
import type {
  RunErrorView,
  RunExtraFailure,
  RunFailureView,
  RunPanelView,
  RunSessionView,
  RunSnapshotView,
  RunSourceView,
  RunSpawnView,
  RunStatsView,
  RunSummaryView,
  RunView,
  TimelineEventView,
  TurnView,
} from "./types.js";

export interface RunInput {
  readonly source: RunSourceView;
  readonly modifiedAt: string;
  /** Every loaded line of the source, in file order. */
  readonly lines: readonly IndexedSnapshotLine[];
  readonly lineErrors: readonly SessionLineError[];
  /** Each session's latest line (see {@link latestLines}) parsed in full, by session id. */
  readonly latest: ReadonlyMap<string, SessionSnapshot>;
  /** The archive each line's `FilesystemSnapshotRef` names, by line number, where known. */
  readonly archives?: ReadonlyMap<number, string | null>;
  /** A run-level error (a bundle's `error.json`). */
  readonly error?: RunErrorView | null;
  /** Views the source offers beyond the session views. */
  readonly panels?: readonly RunPanelView[];
  /** Names of lines that say more than their turn (a bundle's "before the run" / "after the run"), by line number. */
  readonly lineLabels?: ReadonlyMap<number, string>;
  /**
   * Failed calls the source records outside its session events (a bundle's transcript). One
   * that matches a failed event (same tool and key argument) is that event's failure and is
   * not listed twice; the others are added to the root session's failures.
   */
  readonly extraFailures?: readonly RunExtraFailure[];
  /** Tool calls the source records outside its session events (a bundle's transcript); the run counts the larger number. */
  readonly recordedToolCalls?: number;
  /** When the source says the run started and ended (a bundle's manifest); the run spans these and its events. */
  readonly span?: { readonly startedAt: string | null; readonly endedAt: string | null };
  /**
   * `failures`: the events' summaries and arguments only where they failed (`EventDetail`), for
   * a run built for its digest (`runDigest` reads nothing else of them). Default `all`.
   */
  readonly eventDetail?: EventDetail;
}

/** Each session's latest line (latest `created_at`, then the higher line number), by session id. */
export function latestLines(lines: readonly IndexedSnapshotLine[]): Map<string, number> {
  const latest = new Map<string, number>();
  const times = new Map<string, string>();
  for (const line of lines) takeIfLater(latest, times, line);
  return latest;
}

/** {@link latestLines} in event-loop slices (the server's: a file of 1.5 M lines took ~1 s). */
export async function latestLinesSliced(lines: readonly IndexedSnapshotLine[], slices: EventLoopSlices = new EventLoopSlices()): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  const times = new Map<string, string>();
  for (const line of lines) {
    takeIfLater(latest, times, line);
    if (slices.due()) await slices.pause();
  }
  return latest;
}

/** Makes `line` its session's latest when it is (lines come in file order: a later one wins a tie). */
function takeIfLater(latest: Map<string, number>, times: Map<string, string>, line: IndexedSnapshotLine): void {
  const known = times.get(line.summary.sessionId);
  if (known !== undefined && compareTimes(line.summary.createdAt, known) < 0) return;
  latest.set(line.summary.sessionId, line.lineNumber);
  times.set(line.summary.sessionId, line.summary.createdAt);
}

/** The parent session id a line names (`parent_id`, else the `parent_session_id` tag). */
function parentOf(line: IndexedSnapshotLine): string | null {
  return line.summary.parentId ?? line.summary.tags.parent_session_id ?? null;
}

interface SessionParts {
  readonly id: string;
  readonly lines: IndexedSnapshotLine[];
  readonly latest: IndexedSnapshotLine;
  readonly snapshot: SessionSnapshot | undefined;
  readonly events: TimelineEventView[];
  readonly turns: TurnView[];
  readonly turnSource: RunSessionView["turn_source"];
  readonly parentId: string | null;
  readonly startedAt: string | null;
  /** The session's first line in the file (roots are listed in file order). */
  readonly firstLineNumber: number;
}

/**
 * Says when a build has worked long enough to give the event loop a turn; `work` is how many
 * lines the step just done went over (see {@link EventLoopSlices.due}).
 */
type Due = (work?: number) => boolean;

/** Builds the run of one source, at once (the in-browser API, tests). */
export function buildRun(input: RunInput): RunView {
  const steps = runSteps(input, () => false);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Builds the run of one source in event-loop slices: a file of 300,000 lines in 1,000
 * sessions took ~1.3 s of grouping, turns, snapshot labels and spans, and every other request
 * of the server waited it out. A slice ends between lines or between sessions, so one
 * session's own work (its sorts, its turns) is still one slice.
 */
export async function buildRunSliced(input: RunInput, slices: EventLoopSlices = new EventLoopSlices()): Promise<RunView> {
  const steps = runSteps(input, (work) => slices.due(work));
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await slices.pause();
  }
}

/** The build of a run, pausing (a `yield`) wherever `due` says the slice has run its time. */
function* runSteps(input: RunInput, due: Due): Generator<void, RunView, void> {
  const byId = new Map<string, IndexedSnapshotLine[]>();
  for (const line of input.lines) {
    const list = byId.get(line.summary.sessionId);
    if (list === undefined) byId.set(line.summary.sessionId, [line]);
    else list.push(line);
    if (due()) yield;
  }
  const parts = new Map<string, SessionParts>();
  for (const [id, lines] of byId) {
    // The latest line as latestLines() finds it (the lines are in file order: a later one wins a tie).
    let latest = lines[0] as IndexedSnapshotLine;
    let firstLine = latest;
    for (const line of lines) {
      if (compareTimes(line.summary.createdAt, latest.summary.createdAt) >= 0) latest = line;
      if (compareTimes(line.summary.createdAt, firstLine.summary.createdAt) < 0) firstLine = line;
    }
    const snapshot = input.latest.get(id);
    const events = snapshot === undefined ? [] : sessionEvents(snapshot, input.eventDetail);
    const points = lines.map((line) => ({ line_number: line.lineNumber, created_at: line.summary.createdAt }));
    const { turns, turn_source } = deriveTurns(events, points);
    const parentId = lines.map(parentOf).find((value) => value !== null) ?? null;
    const firstNumber = lines.reduce((least, line) => Math.min(least, line.lineNumber), Number.POSITIVE_INFINITY);
    parts.set(id, { id, lines, latest, snapshot, events, turns, turnSource: turn_source, parentId, startedAt: events[0]?.created_at ?? firstLine.summary.createdAt, firstLineNumber: firstNumber });
    if (due(lines.length + events.length)) yield;
  }

  // Children under their parent, in the order they started; sessions whose parent is not here are roots.
  const childrenOf = new Map<string, SessionParts[]>();
  const roots: SessionParts[] = [];
  for (const session of parts.values()) {
    const parent = session.parentId === null || session.parentId === session.id ? undefined : parts.get(session.parentId);
    if (parent === undefined) roots.push(session);
    else {
      const siblings = childrenOf.get(parent.id);
      if (siblings === undefined) childrenOf.set(parent.id, [session]);
      else siblings.push(session);
    }
  }
  const byStart = (a: SessionParts, b: SessionParts) => compareTimes(a.startedAt ?? "", b.startedAt ?? "") || a.latest.lineNumber - b.latest.lineNumber;
  roots.sort((a, b) => a.firstLineNumber - b.firstLineNumber);

  // Each session after its parent, depth first (the order is cheap; the views are the work).
  const order: { session: SessionParts; depth: number; children: SessionParts[] }[] = [];
  const visited = new Set<string>();
  const visit = (session: SessionParts, depth: number) => {
    if (visited.has(session.id)) return;
    visited.add(session.id);
    const children = [...(childrenOf.get(session.id) ?? [])].sort(byStart);
    order.push({ session, depth, children });
    for (const child of children) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  const sessions: RunSessionView[] = [];
  for (const { session, depth, children } of order) {
    sessions.push(sessionView(session, depth, children, parts, input.archives, input.lineLabels));
    const parentLines = session.parentId === null ? 0 : (parts.get(session.parentId)?.lines.length ?? 0);
    if (due(session.lines.length + session.events.length + parentLines)) yield;
  }

  const runStart = [...sessions.map((session) => session.stats.started_at), input.span?.startedAt ?? null].filter((value): value is string => value !== null).sort(compareTimes)[0] ?? null;
  const failures: RunFailureView[] = [];
  for (const session of sessions) {
    const own = parts.get(session.session_id) as SessionParts;
    for (const event of own.events) {
      if (event.success !== false && event.error === null) continue;
      failures.push({
        session_id: session.session_id,
        line_number: session.latest_line,
        event_index: event.index,
        slice_type: event.slice_type,
        item_index: event.item_index,
        transcript_rowid: null,
        kind: event.kind,
        title: event.title,
        call_id: event.call_id,
        argument: event.argument,
        message: event.error ?? event.summary ?? "failed",
        turn: turnOfEvent(session.turns, event.index),
        created_at: event.created_at,
        offset_ms: elapsed(runStart, event.created_at),
      });
    }
    if (due(own.events.length)) yield;
  }
  const root = sessions[0];
  const extra = unmatchedExtraFailures(input.extraFailures ?? [], failures);
  for (const failure of extra) {
    failures.push({
      session_id: root?.session_id ?? "",
      line_number: root?.latest_line ?? 1,
      event_index: null,
      slice_type: null,
      item_index: null,
      transcript_rowid: failure.transcript_rowid,
      kind: "tool_call",
      title: failure.title,
      call_id: failure.call_id,
      argument: failure.argument,
      message: failure.message,
      turn: null,
      created_at: failure.created_at,
      offset_ms: elapsed(runStart, failure.created_at),
    });
  }
  failures.sort((a, b) => compareTimes(a.created_at, b.created_at));

  // The root session carries the failures its source records elsewhere (they ran in it), and
  // the run's own error: a session badge saying "ok" under a run that failed contradicted it.
  const runFailed = (input.error ?? null) !== null;
  if (root !== undefined && (extra.length > 0 || runFailed || (input.recordedToolCalls ?? 0) > root.stats.tool_calls)) {
    const stats = withExtraFailures(root.stats, extra.length, input.recordedToolCalls ?? 0);
    sessions[0] = { ...root, stats: runFailed ? { ...stats, outcome: "failed" } : stats };
  }
  const spanStats: RunStatsView[] = input.span === undefined ? [] : [{ ...EMPTY_STATS, started_at: input.span.startedAt, ended_at: input.span.endedAt }];
  const stats = withExtraFailures(combineStats([...sessions.map((session) => session.stats), ...spanStats], input.lineErrors.length > 0 || runFailed), 0, input.recordedToolCalls ?? 0);
  // A `.json` file with no session line is some other JSON document (a `truth.json`, an
  // `index.json`): listed as such, not as a run whose thousands of lines "did not load".
  const notSession = input.source.kind === "session_file" && isOtherJsonDocument(input.source.name, input.lines.length);
  const summary: RunSummaryView = {
    source: input.source,
    title: (root === undefined ? null : root.title) ?? input.source.name,
    root_session_id: root?.session_id ?? null,
    modified_at: input.modifiedAt,
    state: notSession ? "not_session" : input.lines.length === 0 ? "error" : "ready",
    problem: notSession ? NOT_A_SESSION : input.lines.length === 0 ? (input.lineErrors[0] === undefined ? "The source holds no loadable snapshot line" : `Line ${input.lineErrors[0].lineNumber}: ${input.lineErrors[0].reason}`) : null,
    stats: notSession ? { ...stats, outcome: "ok" } : stats,
    session_count: sessions.length,
    snapshot_count: input.lines.length,
    load_errors: notSession ? 0 : input.lineErrors.length,
    error: input.error ?? null,
    panels: [...(input.panels ?? [])],
  };
  return { ...summary, sessions, failures };
}

/** The extra failures that no failed event already stands for (same tool, same key argument; each event matched once). */
function unmatchedExtraFailures(extra: readonly RunExtraFailure[], failures: readonly RunFailureView[]): RunExtraFailure[] {
  const unmatched = [...failures];
  return extra.filter((candidate) => {
    const at = unmatched.findIndex((failure) => failure.title === candidate.title && (failure.argument?.value ?? null) === (candidate.argument?.value ?? null));
    if (at === -1) return true;
    unmatched.splice(at, 1);
    return false;
  });
}

const EMPTY_STATS: RunStatsView = { outcome: "ok", failed_calls: 0, errors: 0, tool_calls: 0, events: 0, started_at: null, ended_at: null, duration_ms: null };

function withExtraFailures(stats: RunStatsView, count: number, recordedToolCalls: number): RunStatsView {
  const toolCalls = Math.max(stats.tool_calls, recordedToolCalls);
  if (count === 0) return { ...stats, tool_calls: toolCalls };
  return { ...stats, outcome: "failed", failed_calls: stats.failed_calls + count, errors: stats.errors + count, tool_calls: Math.max(toolCalls, stats.failed_calls + count) };
}

/** Whether a session-kind file is some other JSON document, not a run: a `.json` with no session line. */
export function isOtherJsonDocument(name: string, sessionLines: number): boolean {
  return sessionLines === 0 && /\.json$/i.test(name);
}

/** What a `.json` file with no session line is said to be. */
export const NOT_A_SESSION = "Not a session file: a JSON document, not session snapshot lines";

/** The summary part of a run (what `/api/runs` lists). */
export function runSummary(run: RunView): RunSummaryView {
  const { sessions: _sessions, failures: _failures, ...summary } = run;
  return summary;
}

function turnOfEvent(turns: readonly TurnView[], index: number): number | null {
  for (const turn of turns) if (turn.first_event !== null && turn.last_event !== null && index >= turn.first_event && index <= turn.last_event) return turn.number;
  return null;
}

function elapsed(from: string | null, to: string | null): number | null {
  if (from === null || to === null) return null;
  const a = Date.parse(from);
  const b = Date.parse(to);
  return Number.isNaN(a) || Number.isNaN(b) ? null : b - a;
}

function sessionTitle(session: SessionParts): string | null {
  const tags = session.latest.summary.tags;
  const tagged = tags.agent ?? tags.app ?? tags.name;
  if (tagged !== undefined && tagged !== "") return tagged;
  const prompt = session.turns.find((turn) => turn.prompt !== null)?.prompt;
  return prompt ?? null;
}

function sessionStats(session: SessionParts): RunStatsView {
  let toolCalls = 0;
  let failed = 0;
  let errors = 0;
  for (const event of session.events) {
    if (event.kind === "tool_call") toolCalls++;
    if (event.success === false) failed++;
    if (event.error !== null) errors++;
  }
  const { startedAt, endedAt } = sessionSpan(session);
  return {
    outcome: failed > 0 || errors > 0 || session.latest.summary.validationErrors.length > 0 ? "failed" : "ok",
    failed_calls: failed,
    errors,
    tool_calls: toolCalls,
    events: session.events.length,
    started_at: startedAt,
    ended_at: endedAt,
    duration_ms: elapsed(startedAt, endedAt),
  };
}

/**
 * When a session ran: from its first event to its last event or the latest of its snapshot
 * lines that lie near its events. A line written far from every event (further than the events'
 * own span, and more than a minute) was stamped by another clock (a writer's wall clock
 * against a scripted or replayed event clock): counting it made a two-hour run last 8,259
 * hours. Without timed events the lines are all there is.
 */
function sessionSpan(session: SessionParts): { startedAt: string | null; endedAt: string | null } {
  const lineTimes = session.lines.map((line) => line.summary.createdAt);
  const first = session.events[0]?.created_at;
  const last = session.events[session.events.length - 1]?.created_at;
  const from = first === undefined ? Number.NaN : Date.parse(first);
  const to = last === undefined ? Number.NaN : Date.parse(last);
  if (Number.isNaN(from) || Number.isNaN(to)) {
    const times = [...session.events.map((event) => event.created_at), ...lineTimes].sort(compareTimes);
    return { startedAt: first ?? times[0] ?? null, endedAt: times[times.length - 1] ?? null };
  }
  const slack = Math.max(LINE_CLOCK_SLACK_MS, to - from);
  const near = lineTimes.filter((time) => {
    const at = Date.parse(time);
    return !Number.isNaN(at) && at >= from - slack && at <= to + slack;
  });
  const times = [last, ...near].filter((time): time is string => time !== undefined).sort(compareTimes);
  return { startedAt: first ?? null, endedAt: times[times.length - 1] ?? null };
}

/** How far from its session's events a snapshot line may be stamped and still count in the session's span (at least). */
const LINE_CLOCK_SLACK_MS = 60_000;

function combineStats(all: readonly RunStatsView[], extraFailure: boolean): RunStatsView {
  const starts = all.map((stats) => stats.started_at).filter((value): value is string => value !== null).sort(compareTimes);
  const ends = all.map((stats) => stats.ended_at).filter((value): value is string => value !== null).sort(compareTimes);
  const sum = (pick: (stats: RunStatsView) => number) => all.reduce((total, stats) => total + pick(stats), 0);
  const startedAt = starts[0] ?? null;
  const endedAt = ends[ends.length - 1] ?? null;
  return {
    outcome: extraFailure || all.some((stats) => stats.outcome === "failed") ? "failed" : "ok",
    failed_calls: sum((stats) => stats.failed_calls),
    errors: sum((stats) => stats.errors),
    tool_calls: sum((stats) => stats.tool_calls),
    events: sum((stats) => stats.events),
    started_at: startedAt,
    ended_at: endedAt,
    duration_ms: elapsed(startedAt, endedAt),
  };
}

function snapshotViews(session: SessionParts, archives: ReadonlyMap<number, string | null> | undefined, lineLabels: ReadonlyMap<number, string> | undefined): RunSnapshotView[] {
  const ordered = [...session.lines].sort((a, b) => compareTimes(a.summary.createdAt, b.summary.createdAt) || a.lineNumber - b.lineNumber);
  // The first turn each line closes, looked up once: a search per line was quadratic (1,500 lines a session, 1,000 sessions).
  const closing = new Map<number, TurnView>();
  for (const turn of session.turns) if (turn.snapshot_line !== null && !closing.has(turn.snapshot_line)) closing.set(turn.snapshot_line, turn);
  return ordered.map((line) => {
    const closes = closing.get(line.lineNumber);
    const during = closes ?? (session.turns.length === 0 ? null : turnAt(session.turns, line.summary.createdAt));
    const turn = during === null || (closes === undefined && during.started_at !== null && compareTimes(during.started_at, line.summary.createdAt) > 0) ? null : during.number;
    const archive = archives?.get(line.lineNumber) ?? null;
    const named = lineLabels?.get(line.lineNumber);
    const parts = [named ?? (turn === null ? "before turn 1" : closes === undefined ? `during turn ${turn}` : `turn ${turn}`)];
    if (archive !== null) parts.push(archive);
    return { line_number: line.lineNumber, created_at: line.summary.createdAt, turn, archive, label: parts.join(" · "), latest: line.lineNumber === session.latest.lineNumber };
  });
}

function spawnOf(session: SessionParts, parts: ReadonlyMap<string, SessionParts>): RunSpawnView | null {
  if (session.parentId === null) return null;
  const parent = parts.get(session.parentId);
  if (parent === undefined || session.startedAt === null) return null;
  const at = session.startedAt;
  const listing = [...parent.lines].sort((a, b) => a.lineNumber - b.lineNumber).find((line) => line.summary.childrenIds.includes(session.id));
  const after = [...parent.lines].sort((a, b) => compareTimes(a.summary.createdAt, b.summary.createdAt)).find((line) => compareTimes(line.summary.createdAt, at) >= 0);
  let eventIndex: number | null = null;
  for (const event of parent.events) {
    if (compareTimes(event.created_at, at) > 0) break;
    eventIndex = event.index;
  }
  return {
    parent_session_id: parent.id,
    at,
    turn: parent.turns.length === 0 ? null : (turnAt(parent.turns, at)?.number ?? null),
    parent_line: (listing ?? after ?? parent.latest).lineNumber,
    parent_event_index: eventIndex,
  };
}

function sessionView(
  session: SessionParts,
  depth: number,
  children: readonly SessionParts[],
  parts: ReadonlyMap<string, SessionParts>,
  archives: ReadonlyMap<number, string | null> | undefined,
  lineLabels: ReadonlyMap<number, string> | undefined,
): RunSessionView {
  return {
    session_id: session.id,
    parent_session_id: session.parentId,
    depth,
    title: sessionTitle(session),
    latest_line: session.latest.lineNumber,
    validation_error: validationErrorText(session.latest.summary.validationErrors),
    stats: sessionStats(session),
    turn_source: session.turnSource,
    turns: session.turns,
    snapshots: snapshotViews(session, archives, lineLabels),
    spawned: spawnOf(session, parts),
    children: children.map((child) => child.id),
    missing_children: [...new Set(session.lines.flatMap((line) => line.summary.childrenIds))].filter((id) => !parts.has(id)),
  };
}

/** The summary of a run whose source is not read yet (`pending`) or cannot be read (`error`). */
export function placeholderRunSummary(source: RunSourceView, modifiedAt: string, state: "pending" | "slow" | "error", problem: string | null): RunSummaryView {
  return {
    source,
    title: source.name,
    root_session_id: null,
    modified_at: modifiedAt,
    state,
    problem,
    stats: { outcome: state === "error" ? "failed" : "ok", failed_calls: 0, errors: 0, tool_calls: 0, events: 0, started_at: null, ended_at: null, duration_ms: null },
    session_count: 0,
    snapshot_count: 0,
    load_errors: 0,
    error: null,
    panels: [],
  };
}
