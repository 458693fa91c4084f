/**
 * Session files and their session trees, and a session's timeline.
 */
import { Type } from "typebox";
import { SnapshotRef, Tags, selectorProperties } from "./common.js";
import { TimelineChanges } from "./tool-calls.js";

export const LineError = Type.Object({
  line_number: Type.Integer(),
  kind: Type.Union([Type.Literal("encoding"), Type.Literal("too-long"), Type.Literal("json"), Type.Literal("envelope"), Type.Literal("stale")]),
  reason: Type.String(),
  session_id: Type.Union([Type.String(), Type.Null()]),
});

export const SessionNode = Type.Cyclic(
  {
    SessionNode: Type.Object({
      session_id: Type.String(),
      line_number: Type.Integer(),
      created_at: Type.String(),
      tags: Tags,
      parent_id: Type.Union([Type.String(), Type.Null()]),
      slice_count: Type.Integer(),
      event_count: Type.Integer(),
      validation_error: Type.Union([Type.String(), Type.Null()]),
      missing_children: Type.Array(Type.String()),
      missing_parent_id: Type.Union([Type.String(), Type.Null()]),
      children: Type.Array(Type.Ref("SessionNode")),
    }),
  },
  "SessionNode",
);

export const SessionFile = Type.Object({
  path: Type.String(),
  name: Type.String(),
  size_bytes: Type.Integer(),
  modified_at: Type.String(),
  status: Type.Union([Type.Literal("ready"), Type.Literal("pending"), Type.Literal("error")]),
  error: Type.Union([Type.String(), Type.Null()]),
  line_count: Type.Integer(),
  snapshot_count: Type.Integer(),
  errors: Type.Array(LineError),
  duplicate_session_ids: Type.Array(Type.String()),
  sessions: Type.Array(SessionNode),
});

export const FileList = Type.Object({ root: Type.String(), indexing: Type.Boolean(), files: Type.Array(SessionFile) });

export const FilesQuery = Type.Object(
  {
    /** Only this file. */
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** `1`: wait until every file is indexed (default: answer at once, pending files marked). */
    wait: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  },
  { additionalProperties: false },
);

export const TimelineEvent = Type.Object({
  index: Type.Integer(),
  slice_type: Type.String(),
  display_name: Type.String(),
  item_index: Type.Integer(),
  event_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  kind: Type.Union([Type.Literal("tool_call"), Type.Literal("prompt"), Type.Literal("event")]),
  title: Type.String(),
  summary: Type.Union([Type.String(), Type.Null()]),
  success: Type.Union([Type.Boolean(), Type.Null()]),
  call_id: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Number(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  argument: Type.Union([Type.Object({ name: Type.String(), value: Type.String() }), Type.Null()]),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const TurnSource = Type.Union([Type.Literal("prompts"), Type.Literal("snapshots"), Type.Literal("none")]);

export const Turn = Type.Object({
  number: Type.Integer(),
  started_at: NullableString,
  ended_at: NullableString,
  first_event: NullableInteger,
  last_event: NullableInteger,
  prompt: NullableString,
  events: Type.Integer(),
  tool_calls: Type.Integer(),
  failed_calls: Type.Integer(),
  errors: Type.Integer(),
  snapshot_line: NullableInteger,
});

export const TimelineError = Type.Object({
  source: Type.Union([Type.Literal("tool_call"), Type.Literal("event"), Type.Literal("line"), Type.Literal("validation")]),
  message: Type.String(),
  line_number: Type.Integer(),
  event_index: Type.Union([Type.Integer(), Type.Null()]),
  slice_type: Type.Union([Type.String(), Type.Null()]),
  item_index: Type.Union([Type.Integer(), Type.Null()]),
});

export const Timeline = Type.Object({
  session_id: Type.String(),
  file: Type.String(),
  line_number: Type.Integer(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  ended_at: Type.Union([Type.String(), Type.Null()]),
  snapshots: Type.Array(Type.Intersect([SnapshotRef, Type.Object({ selected: Type.Boolean() })])),
  events: Type.Array(TimelineEvent),
  tool_calls: Type.Object({
    total: Type.Integer(),
    failed: Type.Integer(),
    by_name: Type.Array(Type.Object({ name: Type.String(), count: Type.Integer(), failed: Type.Integer() })),
  }),
  errors: Type.Array(TimelineError),
  turns: Type.Array(Turn),
  turn_source: TurnSource,
  /** Only when a per-tool-call undo store lies next to the session file. */
  changes: Type.Optional(TimelineChanges),
});

export const TimelineQuery = Type.Object(selectorProperties, { additionalProperties: false });
