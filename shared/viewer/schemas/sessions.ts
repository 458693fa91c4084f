/**
 * Session files and their session trees, and a session's timeline and turns.
 */
import { Type } from "typebox";
import { NullableInteger, NullableString, SnapshotRef, Tags } from "./common.js";
import { TimelineChanges } from "./tool-calls.js";

/** A line of a session file that did not load. */
export const LineError = Type.Object({
  line_number: Type.Integer(),
  /** `stale`: the file changed on disk after it was indexed (it is re-indexed). */
  kind: Type.Union([Type.Literal("encoding"), Type.Literal("too-long"), Type.Literal("json"), Type.Literal("envelope"), Type.Literal("stale")]),
  reason: Type.String(),
  session_id: NullableString,
});

/** One line in the session tree of a file. */
export const SessionNode = Type.Cyclic(
  {
    SessionNode: Type.Object({
      session_id: Type.String(),
      line_number: Type.Integer(),
      created_at: Type.String(),
      tags: Tags,
      parent_id: NullableString,
      slice_count: Type.Integer(),
      /** Items in event slices (tool calls, prompts…). */
      event_count: Type.Integer(),
      validation_error: NullableString,
      /** `children_ids` that have no line in the file (e.g. a child WINK skipped as empty). */
      missing_children: Type.Array(Type.String()),
      /** The parent session id when the parent has no line in the file. */
      missing_parent_id: NullableString,
      children: Type.Array(Type.Ref("SessionNode")),
    }),
  },
  "SessionNode",
);

/** `/api/files`: one session file and its session tree. */
export const SessionFile = Type.Object({
  path: Type.String(),
  name: Type.String(),
  size_bytes: Type.Integer(),
  modified_at: Type.String(),
  /** `pending` while the file is being indexed; `error` when it could not be read at all. */
  status: Type.Union([Type.Literal("ready"), Type.Literal("pending"), Type.Literal("error")]),
  /** Why the file could not be read (status `error`), why it has no loadable line, or (status `pending`) that its index was let go for the memory budget. */
  error: NullableString,
  line_count: Type.Integer(),
  snapshot_count: Type.Integer(),
  /** A page of the line errors (100 by default; `errors_offset`/`errors_limit` for others). */
  errors: Type.Array(LineError),
  /** Every line error of the file: more than `errors_offset + errors.length` means more pages. */
  error_count: Type.Integer(),
  errors_offset: Type.Integer(),
  duplicate_session_ids: Type.Array(Type.String()),
  /** A page of the top-level sessions, each with its whole tree (1,000 by default; `sessions_offset`/`sessions_limit`). */
  sessions: Type.Array(SessionNode),
  /** Every top-level session of the file. */
  session_count: Type.Integer(),
  sessions_offset: Type.Integer(),
});

export const FileList = Type.Object({
  /** Name of the served directory (its last path component; never the full host path). */
  root: Type.String(),
  /** True while some files are still being indexed (a `change` event follows). */
  indexing: Type.Boolean(),
  /** A page of the files (500 by default; `offset`/`limit`), in path order. */
  files: Type.Array(SessionFile),
  /** Every session file and bundle listed; more than `offset + files.length` means more pages. */
  total: Type.Integer(),
  offset: Type.Integer(),
});

export const TimelineEventKind = Type.Union([Type.Literal("tool_call"), Type.Literal("prompt"), Type.Literal("event")]);

/** A tool call's telling parameter, e.g. `{name: "path", value: "src/app.py"}` (one line, clipped). */
export const TimelineArgument = Type.Object({ name: Type.String(), value: Type.String() });

/** One event of a session (an item of an event slice), in time order. */
export const TimelineEvent = Type.Object({
  /** Position in the timeline (0-based). */
  index: Type.Integer(),
  slice_type: Type.String(),
  display_name: Type.String(),
  /** Index of the item in its slice (for `/api/slices/:type?offset=<item_index>&limit=1`). */
  item_index: Type.Integer(),
  event_id: NullableString,
  created_at: Type.String(),
  kind: TimelineEventKind,
  /** Tool name, prompt name or the event's class name. */
  title: Type.String(),
  /** The tool result's message, or a one-line summary; null when there is nothing to say. */
  summary: NullableString,
  /** Tool calls: `result.success`; null for other events or when unknown. */
  success: Type.Union([Type.Boolean(), Type.Null()]),
  call_id: NullableString,
  duration_ms: Type.Union([Type.Number(), Type.Null()]),
  /** The error message when the event failed or carries an error. */
  error: NullableString,
  /** Tool calls: the parameter that says what the call worked on (path, pattern, command…). */
  argument: Type.Union([TimelineArgument, Type.Null()]),
});

/** What the turns of a session were derived from: its prompt events, its snapshot lines, or nothing (no events). */
export const TurnSource = Type.Union([Type.Literal("prompts"), Type.Literal("snapshots"), Type.Literal("none")]);

/**
 * One turn of a session: a prompt rendered, the tool calls it led to, the prompt executed
 * (or, where a session has no prompt events, the events up to one of its snapshot lines).
 */
export const Turn = Type.Object({
  /** 1-based; 0 for events before the first prompt. */
  number: Type.Integer(),
  started_at: NullableString,
  ended_at: NullableString,
  /** Indices into the timeline's `events`, inclusive; null for a turn without events. */
  first_event: NullableInteger,
  last_event: NullableInteger,
  /** The rendered prompt's name, when the turn started with one. */
  prompt: NullableString,
  events: Type.Integer(),
  tool_calls: Type.Integer(),
  failed_calls: Type.Integer(),
  errors: Type.Integer(),
  /** The session's first snapshot line written at or after the turn's end (what it left), or null. */
  snapshot_line: NullableInteger,
});

export const TimelineErrorSource = Type.Union([Type.Literal("tool_call"), Type.Literal("event"), Type.Literal("line"), Type.Literal("validation")]);

/** An error of a session, aggregated from every place errors appear. */
export const TimelineError = Type.Object({
  source: TimelineErrorSource,
  message: Type.String(),
  line_number: Type.Integer(),
  /** Index into `events` for tool-call and event errors. */
  event_index: NullableInteger,
  slice_type: NullableString,
  item_index: NullableInteger,
});

export const ToolStats = Type.Object({ name: Type.String(), count: Type.Integer(), failed: Type.Integer() });

/** `/api/timeline`: a session's snapshots, events, tool calls and errors. */
export const Timeline = Type.Object({
  session_id: Type.String(),
  file: Type.String(),
  line_number: Type.Integer(),
  started_at: NullableString,
  ended_at: NullableString,
  /** Every line of the session in the file, in time order. */
  snapshots: Type.Array(Type.Intersect([SnapshotRef, Type.Object({ selected: Type.Boolean() })])),
  events: Type.Array(TimelineEvent),
  tool_calls: Type.Object({ total: Type.Integer(), failed: Type.Integer(), by_name: Type.Array(ToolStats) }),
  errors: Type.Array(TimelineError),
  /** The session's turns (see `Turn`), in order; together they hold every event. */
  turns: Type.Array(Turn),
  turn_source: TurnSource,
  /** What each tool call changed, when a per-tool-call undo store lies next to the session file (absent otherwise). */
  changes: Type.Optional(TimelineChanges),
});
