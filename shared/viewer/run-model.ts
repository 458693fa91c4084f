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
import { atOnce, EventLoopSlices, inSlices, type Due } from "../session/event-loop-slices.js";
import type { EnvelopeSummary } from "../session/envelope-scan.js";
import type { SessionLineError, SessionSnapshot } from "../session/snapshot-line.js";
import { boundedSession, listLimit } from "./run-bounds.js";
import type { IndexedSnapshotLine } from "./snapshot-view.js";
import { validationErrorText } from "./snapshot-view.js";
import type { TimeOrder } from "./times.js";
import { compareKeyedTimes, compareTimes, firstAtOrAfter, sortedByTime, timeOrderSteps } from "./times.js";
import { sessionEvents } from "./timeline.js";
import type { EventDetail } from "./timeline.js";
import { deriveTurnsSteps, turnAt } from "./turns.js";
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

/** What the run reads of a line but its number and time: one object for all the lines that say the same (`SessionLines`' shapes). */
export type RunLineShape = Pick<EnvelopeSummary, "sessionId" | "parentId" | "tags" | "childrenIds" | "validationErrors">;

/**
 * A source's lines by position (file order), as the run reads them: the server's index
 * (`SessionLines`) is one. A run of 1.5 M lines built an entry object a line from the index
 * first (~200 bytes each, all alive through the build).
 */
export interface RunLines {
  readonly length: number;
  lineNumberAt(position: number): number;
  /** The line's `created_at` as written. */
  timeAt(position: number): string;
  shapeAt(position: number): RunLineShape;
}

/** Lines given as entries (the in-browser API, bundles, tests) read as {@link RunLines}. */
export function runLinesOf(lines: readonly IndexedSnapshotLine[] | RunLines): RunLines {
  if (!isLineArray(lines)) return lines;
  const at = (position: number) => lines[position] as IndexedSnapshotLine;
  return { length: lines.length, lineNumberAt: (position) => at(position).lineNumber, timeAt: (position) => at(position).summary.createdAt, shapeAt: (position) => at(position).summary };
}

function isLineArray(lines: readonly IndexedSnapshotLine[] | RunLines): lines is readonly IndexedSnapshotLine[] {
  return Array.isArray(lines);
}

export interface RunInput {
  readonly source: RunSourceView;
  readonly modifiedAt: string;
  /** Every loaded line of the source, in file order. */
  readonly lines: readonly IndexedSnapshotLine[] | RunLines;
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
  /**
   * Lists each session's turns and snapshots as `boundedRun` (`/api/run`) does, each session
   * cut as soon as it is built, so the whole lists are never all kept: a file of 1.5 M
   * snapshot lines kept a turn and a snapshot view a line (~1.5 GB of RSS at the peak).
   * {@link buildSessionListsSliced} builds one session's whole lists again. Default false.
   */
  readonly bounded?: boolean;
}

/** Each session's latest line (latest `created_at`, then the higher line number), by session id. */
export function latestLines(lines: readonly IndexedSnapshotLine[] | RunLines): Map<string, number> {
  return atOnce(latestLinesSteps(runLinesOf(lines), () => false));
}

/** {@link latestLines} in event-loop slices (the server's: a file of 1.5 M lines took ~1 s). */
export async function latestLinesSliced(lines: readonly IndexedSnapshotLine[] | RunLines, slices: EventLoopSlices = new EventLoopSlices()): Promise<Map<string, number>> {
  return inSlices(latestLinesSteps(runLinesOf(lines), (work) => slices.due(work)), slices);
}

function* latestLinesSteps(lines: RunLines, due: Due): Generator<void, Map<string, number>, void> {
  const latest = new Map<string, number>();
  // A time with its `Date.parse`, so a session's latest time is parsed once, not at every line after it.
  const times = new Map<string, KeyedTime>();
  for (let position = 0; position < lines.length; position++) {
    const sessionId = lines.shapeAt(position).sessionId;
    const known = times.get(sessionId);
    const text = lines.timeAt(position);
    const key = Date.parse(text);
    // Lines come in file order: a later one wins a tie.
    if (known === undefined || compareKeyedTimes(key, text, known.key, known.text) >= 0) {
      latest.set(sessionId, lines.lineNumberAt(position));
      times.set(sessionId, { text, key });
    }
    if (due()) yield;
  }
  return latest;
}

/** A time with its `Date.parse`. */
interface KeyedTime {
  readonly text: string;
  readonly key: number;
}

/** The parent session id a line names (`parent_id`, else the `parent_session_id` tag). */
function parentOf(shape: RunLineShape): string | null {
  return shape.parentId ?? shape.tags.parent_session_id ?? null;
}

/** What the run's order needs of a session, for every session at once: no list a line but its positions. */
interface SessionHead {
  readonly id: string;
  /** The session's lines, in file order: their positions in the source's lines. */
  readonly positions: number[];
  /** The latest line's number and what it says. */
  readonly latestLine: number;
  readonly latestShape: RunLineShape;
  readonly snapshot: SessionSnapshot | undefined;
  readonly events: TimelineEventView[];
  readonly parentId: string | null;
  readonly startedAt: string | null;
  /** The session's first line in the file (roots are listed in file order). */
  readonly firstLineNumber: number;
}

/** A session with its per-line parts, built when its view is (one session at a time in a bounded run). */
interface SessionParts extends SessionHead {
  /** Each line's number and time (read once), by the session's positions. */
  readonly lineNumbers: number[];
  readonly times: string[];
  /** The session's lines by time, then line number, with each line's parsed time: sorted once, used by every view of the session. */
  readonly order: TimeOrder;
  readonly turns: TurnView[];
  readonly turnSource: RunSessionView["turn_source"];
}

/** Builds the run of one source, at once (the in-browser API, tests). */
export function buildRun(input: RunInput): RunView {
  return atOnce(runSteps(input, () => false));
}

/**
 * Builds the run of one source in event-loop slices: a file of 300,000 lines in 1,000
 * sessions took ~1.3 s of grouping, turns, snapshot labels and spans, and every other request
 * of the server waited it out. A slice ends between lines, within one session's work too (its
 * sorts, its turns, its snapshot labels): a file that is one session of 1.5 M lines was one
 * slice of seconds.
 */
export async function buildRunSliced(input: RunInput, slices: EventLoopSlices = new EventLoopSlices()): Promise<RunView> {
  return inSlices(runSteps(input, (work) => slices.due(work)), slices);
}

/** One session's whole turns and snapshots, as the run lists them unbounded. */
export interface RunSessionLists {
  readonly turns: TurnView[];
  readonly snapshots: RunSnapshotView[];
}

/**
 * The whole turns and snapshots of one session of `input` (what a `bounded` run leaves out),
 * built again from its lines and its latest line (`input.latest` needs that session's only);
 * null when the source has no line of that session.
 */
export async function buildSessionListsSliced(input: RunInput, sessionId: string, slices: EventLoopSlices = new EventLoopSlices()): Promise<RunSessionLists | null> {
  return inSlices(sessionListsSteps(input, sessionId, (work) => slices.due(work)), slices);
}

function* sessionListsSteps(input: RunInput, sessionId: string, due: Due): Generator<void, RunSessionLists | null, void> {
  const lines = runLinesOf(input.lines);
  const positions: number[] = [];
  for (let position = 0; position < lines.length; position++) {
    if (lines.shapeAt(position).sessionId === sessionId) positions.push(position);
    if (due()) yield;
  }
  if (positions.length === 0) return null;
  const session = yield* sessionPartsSteps(yield* sessionHeadSteps(sessionId, lines, positions, input.latest.get(sessionId), input.eventDetail, due), lines, due);
  const snapshots = yield* snapshotViewsSteps(session, input.archives, input.lineLabels, due);
  return { turns: session.turns, snapshots };
}

/** The build of a run, pausing (a `yield`) wherever `due` says the slice has run its time. */
function* runSteps(input: RunInput, due: Due): Generator<void, RunView, void> {
  const lines = runLinesOf(input.lines);
  const byId = new Map<string, number[]>();
  for (let position = 0; position < lines.length; position++) {
    const sessionId = lines.shapeAt(position).sessionId;
    const list = byId.get(sessionId);
    if (list === undefined) byId.set(sessionId, [position]);
    else list.push(position);
    if (due()) yield;
  }
  const parts = new Map<string, SessionHead>();
  for (const [id, positions] of byId) {
    parts.set(id, yield* sessionHeadSteps(id, lines, positions, input.latest.get(id), input.eventDetail, due));
    if (due()) yield;
  }
  byId.clear();

  // Children under their parent, in the order they started; sessions whose parent is not here are roots.
  const childrenOf = new Map<string, SessionHead[]>();
  const roots: SessionHead[] = [];
  for (const session of parts.values()) {
    const parent = session.parentId === null || session.parentId === session.id ? undefined : parts.get(session.parentId);
    if (parent === undefined) roots.push(session);
    else {
      const siblings = childrenOf.get(parent.id);
      if (siblings === undefined) childrenOf.set(parent.id, [session]);
      else siblings.push(session);
    }
  }
  const byStart = (a: SessionHead, b: SessionHead) => compareTimes(a.startedAt ?? "", b.startedAt ?? "") || a.latestLine - b.latestLine;
  roots.sort((a, b) => a.firstLineNumber - b.firstLineNumber);

  // Each session after its parent, depth first (the order is cheap; the views are the work).
  const order: { session: SessionHead; depth: number; children: SessionHead[] }[] = [];
  const visited = new Set<string>();
  const visit = (session: SessionHead, depth: number) => {
    if (visited.has(session.id)) return;
    visited.add(session.id);
    const children = [...(childrenOf.get(session.id) ?? [])].sort(byStart);
    order.push({ session, depth, children });
    for (const child of children) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  const sessions: RunSessionView[] = [];
  // Where each child ran, found while its parent's whole lists are still there.
  const spawns = new Map<string, RunSpawnView | null>();
  // The failures in session order, placed in time (`offset_ms`) once the run's start is known.
  const failures: RunFailureView[] = [];
  for (const { session: head, depth, children } of order) {
    // The session's per-line parts, kept while its view, its failures and its children's
    // spawns are built: a bounded run keeps none of them past this turn.
    const session = yield* sessionPartsSteps(head, lines, due);
    // A child's spawn was found with its parent; a root's parent is not here (or is itself).
    const spawned = spawns.has(session.id) ? (spawns.get(session.id) ?? null) : session.parentId === session.id ? spawnOf(session, session, () => listingLines(session, lines)) : null;
    const view = yield* sessionViewSteps(session, depth, children, parts, lines, spawned, input.archives, input.lineLabels, due);
    childSpawns(session, children, lines, spawns);
    sessionFailures(session, view, failures);
    sessions.push(input.bounded === true ? boundedSession(view, listLimit(sessions.length, order.length)) : view);
    if (due(session.events.length)) yield;
  }

  const runStart = [...sessions.map((session) => session.stats.started_at), input.span?.startedAt ?? null].filter((value): value is string => value !== null).sort(compareTimes)[0] ?? null;
  for (let at = 0; at < failures.length; at++) {
    const failure = failures[at] as RunFailureView;
    failures[at] = { ...failure, offset_ms: elapsed(runStart, failure.created_at) };
    if (due()) yield;
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
  // Each time parsed once (a run of 200,000 failed calls parsed two a comparison).
  const ordered = sortedByTime(failures, (failure) => failure.created_at);

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
  const notSession = input.source.kind === "session_file" && isOtherJsonDocument(input.source.name, lines.length);
  const summary: RunSummaryView = {
    source: input.source,
    title: (root === undefined ? null : root.title) ?? input.source.name,
    root_session_id: root?.session_id ?? null,
    modified_at: input.modifiedAt,
    state: notSession ? "not_session" : lines.length === 0 ? "error" : "ready",
    problem: notSession ? NOT_A_SESSION : lines.length === 0 ? (input.lineErrors[0] === undefined ? "The source holds no loadable snapshot line" : `Line ${input.lineErrors[0].lineNumber}: ${input.lineErrors[0].reason}`) : null,
    stats: notSession ? { ...stats, outcome: "ok" } : stats,
    session_count: sessions.length,
    snapshot_count: lines.length,
    load_errors: notSession ? 0 : input.lineErrors.length,
    error: input.error ?? null,
    panels: [...(input.panels ?? [])],
  };
  return { ...summary, sessions, failures: ordered };
}

/** The failed events of one session (its view built), appended to `failures` without their `offset_ms` (the run's start is not known yet). */
function sessionFailures(session: SessionParts, view: RunSessionView, failures: RunFailureView[]): void {
  for (const event of session.events) {
    if (event.success !== false && event.error === null) continue;
    failures.push({
      session_id: view.session_id,
      line_number: view.latest_line,
      event_index: event.index,
      slice_type: event.slice_type,
      item_index: event.item_index,
      transcript_rowid: null,
      kind: event.kind,
      title: event.title,
      call_id: event.call_id,
      argument: event.argument,
      message: event.error ?? event.summary ?? "failed",
      // The session's whole turns (a bounded view lists some of them).
      turn: turnOfEvent(session.turns, event.index),
      created_at: event.created_at,
      offset_ms: null,
    });
  }
}

/**
 * What the run's order needs of one session: its latest line (as latestLines() finds it: the
 * lines are in file order, a later one wins a tie), its first, its parent and its events.
 * Each time is read and parsed here without being kept: the per-line parts are built later,
 * one session at a time ({@link sessionPartsSteps}).
 */
function* sessionHeadSteps(id: string, lines: RunLines, positions: number[], snapshot: SessionSnapshot | undefined, eventDetail: EventDetail | undefined, due: Due): Generator<void, SessionHead, void> {
  let latest = 0;
  let latestTime: KeyedTime | null = null;
  let first: KeyedTime | null = null;
  let firstNumber = Number.POSITIVE_INFINITY;
  let parentId: string | null = null;
  for (let at = 0; at < positions.length; at++) {
    const position = positions[at] as number;
    const text = lines.timeAt(position);
    const key = Date.parse(text);
    if (latestTime === null || compareKeyedTimes(key, text, latestTime.key, latestTime.text) >= 0) {
      latest = at;
      latestTime = { text, key };
    }
    if (first === null || compareKeyedTimes(key, text, first.key, first.text) < 0) first = { text, key };
    firstNumber = Math.min(firstNumber, lines.lineNumberAt(position));
    parentId ??= parentOf(lines.shapeAt(position));
    if (due()) yield;
  }
  const events = snapshot === undefined ? [] : sessionEvents(snapshot, eventDetail);
  const latestPosition = positions[latest] as number;
  return {
    id,
    positions,
    latestLine: lines.lineNumberAt(latestPosition),
    latestShape: lines.shapeAt(latestPosition),
    snapshot,
    events,
    parentId,
    startedAt: events[0]?.created_at ?? (first as KeyedTime | null)?.text ?? null,
    firstLineNumber: firstNumber,
  };
}

/** One session's per-line parts: its lines' numbers and times, sorted by time once (each time parsed once), and its turns. */
function* sessionPartsSteps(head: SessionHead, lines: RunLines, due: Due): Generator<void, SessionParts, void> {
  const { positions, events } = head;
  const count = positions.length;
  const lineNumbers = new Array<number>(count);
  const times = new Array<string>(count);
  for (let at = 0; at < count; at++) {
    const position = positions[at] as number;
    lineNumbers[at] = lines.lineNumberAt(position);
    times[at] = lines.timeAt(position);
    if (due()) yield;
  }
  const order = yield* timeOrderSteps(count, (at) => times[at] as string, due, (a, b) => (lineNumbers[a] as number) - (lineNumbers[b] as number));
  const points = new Array<{ line_number: number; created_at: string }>(count);
  for (let at = 0; at < count; at++) {
    points[at] = { line_number: lineNumbers[at] as number, created_at: times[at] as string };
    if (due()) yield;
  }
  const { turns, turn_source } = yield* deriveTurnsSteps(events, points, order, due);
  return { ...head, lineNumbers, times, order, turns, turnSource: turn_source };
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
  const tags = session.latestShape.tags;
  const tagged = tags.agent ?? tags.app ?? tags.name;
  if (tagged !== undefined && tagged !== "") return tagged;
  const prompt = session.turns.find((turn) => turn.prompt !== null)?.prompt;
  return prompt ?? null;
}

function* sessionStatsSteps(session: SessionParts, due: Due): Generator<void, RunStatsView, void> {
  let toolCalls = 0;
  let failed = 0;
  let errors = 0;
  for (const event of session.events) {
    if (event.kind === "tool_call") toolCalls++;
    if (event.success === false) failed++;
    if (event.error !== null) errors++;
  }
  const { startedAt, endedAt } = yield* sessionSpanSteps(session, due);
  return {
    outcome: failed > 0 || errors > 0 || session.latestShape.validationErrors.length > 0 ? "failed" : "ok",
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
function* sessionSpanSteps(session: SessionParts, due: Due): Generator<void, { startedAt: string | null; endedAt: string | null }, void> {
  const { order, times } = session;
  const timeAt = (position: number) => times[position] as string;
  const first = session.events[0]?.created_at;
  const last = session.events[session.events.length - 1]?.created_at;
  const from = first === undefined ? Number.NaN : Date.parse(first);
  const to = last === undefined ? Number.NaN : Date.parse(last);
  // The earliest and the latest of times as a sort by compareTimes lists them (its ties are equal texts).
  let latest: KeyedTime | null = null;
  const consider = (text: string, key: number) => {
    if (latest === null || compareKeyedTimes(key, text, latest.key, latest.text) > 0) latest = { text, key };
  };
  if (Number.isNaN(from) || Number.isNaN(to)) {
    let earliest: KeyedTime | null = null;
    for (const event of session.events) {
      const key = Date.parse(event.created_at);
      consider(event.created_at, key);
      if (earliest === null || compareKeyedTimes(key, event.created_at, earliest.key, earliest.text) < 0) earliest = { text: event.created_at, key };
    }
    const count = order.order.length;
    if (count > 0) {
      const firstLine = order.order[0] as number;
      const lastLine = order.order[count - 1] as number;
      consider(timeAt(lastLine), order.keys[lastLine] as number);
      if (earliest === null || compareKeyedTimes(order.keys[firstLine] as number, timeAt(firstLine), earliest.key, earliest.text) < 0) earliest = { text: timeAt(firstLine), key: order.keys[firstLine] as number };
    }
    return { startedAt: first ?? (earliest as KeyedTime | null)?.text ?? null, endedAt: (latest as KeyedTime | null)?.text ?? null };
  }
  const slack = Math.max(LINE_CLOCK_SLACK_MS, to - from);
  if (last !== undefined) consider(last, to);
  for (let position = 0; position < times.length; position++) {
    const at = order.keys[position] as number;
    if (!Number.isNaN(at) && at >= from - slack && at <= to + slack) consider(timeAt(position), at);
    if (due()) yield;
  }
  return { startedAt: first ?? null, endedAt: (latest as KeyedTime | null)?.text ?? null };
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

function* snapshotViewsSteps(session: SessionParts, archives: ReadonlyMap<number, string | null> | undefined, lineLabels: ReadonlyMap<number, string> | undefined, due: Due): Generator<void, RunSnapshotView[], void> {
  const { turns, order, lineNumbers, times } = session;
  // The first turn each line closes, looked up once: a search per line was quadratic (1,500 lines a session, 1,000 sessions).
  const closing = new Map<number, TurnView>();
  const starts = new Float64Array(turns.length);
  for (let at = 0; at < turns.length; at++) {
    const turn = turns[at] as TurnView;
    if (turn.snapshot_line !== null && !closing.has(turn.snapshot_line)) closing.set(turn.snapshot_line, turn);
    starts[at] = turn.started_at === null ? Number.NaN : Date.parse(turn.started_at);
    if (due()) yield;
  }
  const startedAfter = (turn: number, key: number, text: string) => {
    const startedAt = (turns[turn] as TurnView).started_at;
    return startedAt !== null && compareKeyedTimes(starts[turn] as number, startedAt, key, text) > 0;
  };
  // turnAt() of each line, as a pointer: the lines come in time order, so the first turn started after a line only moves on.
  let after = 0;
  const views = new Array<RunSnapshotView>(order.order.length);
  for (let rank = 0; rank < order.order.length; rank++) {
    const position = order.order[rank] as number;
    const lineNumber = lineNumbers[position] as number;
    const key = order.keys[position] as number;
    const time = times[position] as string;
    const closes = closing.get(lineNumber);
    let turn: number | null = closes?.number ?? null;
    if (closes === undefined && turns.length > 0) {
      while (after < turns.length && !startedAfter(after, key, time)) after++;
      const during = Math.max(0, after - 1);
      // A line before the first turn started is before turn 1.
      turn = startedAfter(during, key, time) ? null : (turns[during] as TurnView).number;
    }
    const archive = archives?.get(lineNumber) ?? null;
    const named = lineLabels?.get(lineNumber);
    const parts = [named ?? (turn === null ? "before turn 1" : closes === undefined ? `during turn ${turn}` : `turn ${turn}`)];
    if (archive !== null) parts.push(archive);
    views[rank] = { line_number: lineNumber, created_at: time, turn, archive, label: parts.join(" · "), latest: lineNumber === session.latestLine };
    if (due()) yield;
  }
  return views;
}

/** Each child id a parent's lines list, with the first line number listing it. */
function listingLines(parent: SessionParts, lines: RunLines): Map<string, number> {
  const listing = new Map<string, number>();
  for (let at = 0; at < parent.positions.length; at++) {
    const lineNumber = parent.lineNumbers[at] as number;
    for (const child of lines.shapeAt(parent.positions[at] as number).childrenIds) {
      const known = listing.get(child);
      if (known === undefined || lineNumber < known) listing.set(child, lineNumber);
    }
  }
  return listing;
}

/** Where `session` ran in `parent` (null without a parent, or a start). `listing`: the parent's {@link listingLines}. */
function spawnOf(session: SessionHead, parent: SessionParts, listing: () => ReadonlyMap<string, number>): RunSpawnView | null {
  if (session.parentId === null || session.startedAt === null) return null;
  const at = session.startedAt;
  // By bisection of the parent's sorted lines: sorted again for each child, a parent of many lines and children was quadratic.
  const rank = firstAtOrAfter(parent.order, (position) => parent.times[position] as string, at);
  const after = rank < parent.order.order.length ? parent.lineNumbers[parent.order.order[rank] as number] : undefined;
  let eventIndex: number | null = null;
  for (const event of parent.events) {
    if (compareTimes(event.created_at, at) > 0) break;
    eventIndex = event.index;
  }
  return {
    parent_session_id: parent.id,
    at,
    turn: parent.turns.length === 0 ? null : (turnAt(parent.turns, at)?.number ?? null),
    parent_line: listing().get(session.id) ?? after ?? parent.latestLine,
    parent_event_index: eventIndex,
  };
}

/** The spawns of a parent's children, its lines' listings found once (per child, a parent of many lines and children was quadratic). */
function childSpawns(parent: SessionParts, children: readonly SessionHead[], lines: RunLines, spawns: Map<string, RunSpawnView | null>): void {
  let listing: Map<string, number> | undefined;
  const listed = () => (listing ??= listingLines(parent, lines));
  for (const child of children) spawns.set(child.id, spawnOf(child, parent, listed));
}

function* sessionViewSteps(
  session: SessionParts,
  depth: number,
  children: readonly SessionHead[],
  parts: ReadonlyMap<string, SessionHead>,
  lines: RunLines,
  spawned: RunSpawnView | null,
  archives: ReadonlyMap<number, string | null> | undefined,
  lineLabels: ReadonlyMap<number, string> | undefined,
  due: Due,
): Generator<void, RunSessionView, void> {
  const stats = yield* sessionStatsSteps(session, due);
  const snapshots = yield* snapshotViewsSteps(session, archives, lineLabels, due);
  const missing = new Set<string>();
  for (const position of session.positions) {
    for (const child of lines.shapeAt(position).childrenIds) if (!parts.has(child)) missing.add(child);
    if (due()) yield;
  }
  return {
    session_id: session.id,
    parent_session_id: session.parentId,
    depth,
    title: sessionTitle(session),
    latest_line: session.latestLine,
    validation_error: validationErrorText(session.latestShape.validationErrors),
    stats,
    turn_source: session.turnSource,
    turns: session.turns,
    snapshots,
    spawned,
    children: children.map((child) => child.id),
    missing_children: [...missing],
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
