/**
 * A session's timeline: its snapshot lines in time order, the events of the selected line
 * (items of event slices) in time order, tool-call statistics, and every error in one list
 * (failed tool calls, events carrying an error, lines that did not load, validation errors).
 */
import type { JsonObject, JsonValue } from "../session/json-value.js";
import { isJsonObject, ownValue } from "../session/json-value.js";
import type { SessionLineError, SessionSnapshot } from "../session/snapshot-line.js";
import type { IndexedSnapshotLine } from "./snapshot-view.js";
import { compareTimes, sortedByTime } from "./times.js";
import { deriveTurns } from "./turns.js";
import type { TimelineArgumentView, TimelineErrorView, TimelineEventKind, TimelineEventView, TimelineView, ToolStatsView } from "./types.js";

export interface TimelineInput {
  /** Session file path (relative to the served directory). */
  readonly file: string;
  /** The selected line, parsed in full. */
  readonly snapshot: SessionSnapshot;
  /** Every loaded line of the file (the session's other lines are picked from them). */
  readonly lines: readonly IndexedSnapshotLine[];
  /** Lines of the file that did not load. */
  readonly lineErrors: readonly SessionLineError[];
}

const SUMMARY_CHARS = 240;

/** Builds the timeline of the selected line's session. */
export function buildTimeline(input: TimelineInput): TimelineView {
  const { snapshot } = input;
  const snapshots = sortedByTime(
    input.lines
      .filter((line) => line.summary.sessionId === snapshot.sessionId)
      .map((line) => ({
        file: input.file,
        line_number: line.lineNumber,
        session_id: line.summary.sessionId,
        created_at: line.summary.createdAt,
        selected: line.lineNumber === snapshot.lineNumber,
      })),
    (line) => line.created_at,
    (a, b) => a.line_number - b.line_number,
  );

  const events = sessionEvents(snapshot);

  const byName = new Map<string, ToolStatsView>();
  let failed = 0;
  for (const event of events) {
    if (event.kind !== "tool_call") continue;
    const stats = byName.get(event.title) ?? { name: event.title, count: 0, failed: 0 };
    stats.count += 1;
    if (event.success === false) {
      stats.failed += 1;
      failed += 1;
    }
    byName.set(event.title, stats);
  }

  const errors: TimelineErrorView[] = [];
  for (const event of events) {
    if (event.error === null) continue;
    errors.push({
      source: event.kind === "tool_call" ? "tool_call" : "event",
      message: event.error,
      line_number: snapshot.lineNumber,
      event_index: event.index,
      slice_type: event.slice_type,
      item_index: event.item_index,
    });
  }
  for (const message of snapshot.validationErrors) {
    errors.push({ source: "validation", message, line_number: snapshot.lineNumber, event_index: null, slice_type: null, item_index: null });
  }
  for (const error of input.lineErrors) {
    if (error.sessionId !== undefined && error.sessionId !== snapshot.sessionId) continue;
    errors.push({ source: "line", message: `Line ${error.lineNumber}: ${error.reason}`, line_number: error.lineNumber, event_index: null, slice_type: null, item_index: null });
  }

  return {
    session_id: snapshot.sessionId,
    file: input.file,
    line_number: snapshot.lineNumber,
    started_at: events[0]?.created_at ?? snapshot.createdAt,
    ended_at: events[events.length - 1]?.created_at ?? snapshot.createdAt,
    snapshots,
    events,
    tool_calls: { total: events.filter((event) => event.kind === "tool_call").length, failed, by_name: [...byName.values()].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1)) },
    errors,
    ...deriveTurns(events, snapshots),
  };
}

/**
 * What {@link sessionEvents} tells of each event: `all`, or `failures` — an event that neither
 * failed nor carries an error without its `summary` and `argument` (null), which is all a run's
 * digest leaves out (it lists failed events only; in an eval's session files most events are
 * passing calls, and their summaries were most of the digest's work).
 */
export type EventDetail = "all" | "failures";

/**
 * The events of a snapshot line (items of its event slices with `event_id` and `created_at`),
 * in time order: the line holds the session's whole history up to its time.
 */
export function sessionEvents(snapshot: SessionSnapshot, detail: EventDetail = "all"): TimelineEventView[] {
  const collected: TimelineEventView[] = [];
  for (const slice of snapshot.slices) {
    if (slice.kind !== "event") continue;
    slice.items.forEach((item, itemIndex) => {
      const createdAt = ownValue(item, "created_at");
      if (typeof createdAt !== "string" || !Object.prototype.hasOwnProperty.call(item, "event_id")) return;
      collected.push(describeEvent(slice.sliceType, slice.displayName, item, itemIndex, createdAt, detail));
    });
  }
  // Numbered in place once sorted: a cold index describes hundreds of thousands of events, and
  // copying each into a numbered one (and each from a shared base before) was a third of it.
  const sorted = sortedByTime(collected, (event) => event.created_at);
  for (let index = 0; index < sorted.length; index++) (sorted[index] as { index: number }).index = index;
  return sorted;
}

/** An event, `index` 0 until its place in time is known. Its fields in the order the views send them. */
function describeEvent(sliceType: string, displayName: string, item: JsonObject, itemIndex: number, createdAt: string, detail: EventDetail): TimelineEventView {
  const eventId = ownValue(item, "event_id");
  let told: Pick<TimelineEventView, "kind" | "argument" | "title" | "summary" | "success" | "error">;
  if (displayName === "ToolInvoked") {
    const result = ownValue(item, "result");
    const success = isJsonObject(result) ? ownValue(result, "success") : undefined;
    const message = isJsonObject(result) ? stringField(result, "message") : null;
    const ok = typeof success === "boolean" ? success : null;
    const error = ok === false ? clip(message ?? "The tool call failed") : errorText(item);
    const detailed = detail === "all" || ok === false || error !== null;
    told = {
      kind: "tool_call",
      argument: detailed ? keyArgument(ownValue(item, "params")) : null,
      title: stringField(item, "name") ?? displayName,
      summary: detailed && message !== null ? clip(message) : null,
      success: ok,
      error,
    };
  } else {
    const kind: TimelineEventKind = displayName.startsWith("Prompt") ? "prompt" : "event";
    const promptName = stringField(item, "prompt_name");
    const error = errorText(item);
    told = {
      kind,
      argument: null,
      title: kind === "prompt" && promptName !== null ? `${displayName}: ${promptName}` : displayName,
      summary: detail === "all" || error !== null ? summarize(item) : null,
      success: null,
      error,
    };
  }
  return {
    index: 0,
    slice_type: sliceType,
    display_name: displayName,
    item_index: itemIndex,
    event_id: typeof eventId === "string" ? eventId : eventId === undefined || eventId === null ? null : String(eventId),
    created_at: createdAt,
    call_id: stringField(item, "call_id"),
    duration_ms: durationMs(item),
    kind: told.kind,
    argument: told.argument,
    title: told.title,
    summary: told.summary,
    success: told.success,
    error: told.error,
  };
}

/** Parameters that say what a tool call worked on, most telling first. */
const KEY_PARAMETERS = ["path", "file_path", "filename", "file", "target", "pattern", "glob", "command", "cmd", "query", "url", "name"];
const ARGUMENT_CHARS = 200;

/**
 * The argument that says what a tool call worked on (its path, pattern, command…): the first
 * of {@link KEY_PARAMETERS} given as text, else the first text parameter; null when none.
 */
export function keyArgument(params: JsonValue | undefined): TimelineArgumentView | null {
  if (!isJsonObject(params)) return null;
  const pick = (name: string): TimelineArgumentView | null => {
    const value = ownValue(params, name);
    if (typeof value !== "string" || value.trim() === "") return null;
    const line = value.replace(/\s+/g, " ").trim();
    return { name, value: line.length > ARGUMENT_CHARS ? `${line.slice(0, ARGUMENT_CHARS - 1)}…` : line };
  };
  for (const name of KEY_PARAMETERS) {
    const found = pick(name);
    if (found !== null) return found;
  }
  for (const name of Object.keys(params)) {
    const found = pick(name);
    if (found !== null) return found;
  }
  return null;
}

/** An error carried by an event: a non-empty `error`, `exception` or `failure` field. */
function errorText(item: JsonObject): string | null {
  for (const key of ["error", "exception", "failure"]) {
    const value = ownValue(item, key);
    if (value === undefined || value === null || value === false || value === "") continue;
    if (typeof value === "string") return clip(value);
    if (isJsonObject(value)) return clip(stringField(value, "message") ?? stringField(value, "type") ?? `${key} recorded`);
    return clip(String(value));
  }
  return null;
}

function summarize(item: JsonObject): string | null {
  for (const key of ["message", "text", "rendered_prompt", "summary"]) {
    const value = ownValue(item, key);
    if (typeof value === "string" && value.trim() !== "") return clip(value);
  }
  const result = ownValue(item, "result");
  if (isJsonObject(result)) {
    const text = stringField(result, "text") ?? stringField(result, "message");
    if (text !== null) return clip(text);
  }
  return null;
}

/** Duration in milliseconds when the event records one (`duration_ms`, `duration_seconds`, `duration`). */
function durationMs(item: JsonObject): number | null {
  const containers: JsonValue[] = [item, ownValue(item, "result") ?? null];
  for (const container of containers) {
    if (!isJsonObject(container)) continue;
    const ms = finite(ownValue(container, "duration_ms") ?? ownValue(container, "elapsed_ms"));
    if (ms !== null) return ms;
    const seconds = finite(ownValue(container, "duration_seconds") ?? ownValue(container, "duration") ?? ownValue(container, "elapsed"));
    if (seconds !== null) return seconds * 1000;
  }
  return null;
}

function finite(value: JsonValue | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function stringField(object: JsonObject, key: string): string | null {
  const value = ownValue(object, key);
  return typeof value === "string" ? value : null;
}

function clip(text: string): string {
  const line = text.slice(0, SUMMARY_CHARS * 4).replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

export { compareTimes };
