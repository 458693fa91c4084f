/**
 * What the timeline shows of the per-tool-call undo store: the `changes` of `/api/timeline`
 * (per tool call: changed paths, undone or not) and one changed file's diff between its
 * pre-image and its post-state.
 */
import { Type } from "typebox";
import { SnapshotRef, selectorProperties } from "./common.js";
import { Hunk } from "./diffs.js";

const ToolCallChangeKind = Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted"), Type.Literal("type-changed"), Type.Literal("unknown")]);
const UndoPathKind = Type.Union([Type.Literal("file"), Type.Literal("directory"), Type.Literal("absent")]);
const Size = Type.Union([Type.Integer(), Type.Null()]);

export const ToolCallFile = Type.Object({
  path: Type.String(),
  change: ToolCallChangeKind,
  before: UndoPathKind,
  after: Type.Union([UndoPathKind, Type.Null()]),
  before_size: Size,
  after_size: Size,
});

export const ToolCallChanges = Type.Object({
  call_id: Type.String(),
  event_index: Type.Integer(),
  turn_id: Type.Union([Type.String(), Type.Null()]),
  captured_at: Type.String(),
  undone: Type.Boolean(),
  restored_at: Type.Union([Type.String(), Type.Null()]),
  files: Type.Array(ToolCallFile),
});

export const TimelineChanges = Type.Object({
  tool_calls: Type.Array(ToolCallChanges),
  other_calls: Type.Integer(),
  problems: Type.Array(Type.String()),
});

/** One changed file of one tool call (`call_id` as the timeline event's `call_id`, `path` as listed in `changes`). */
export const ToolCallDiffQuery = Type.Object(
  {
    ...selectorProperties,
    call_id: Type.String({ minLength: 1, maxLength: 1024 }),
    path: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);

const ToolCallSide = Type.Object({ kind: UndoPathKind, size_bytes: Size, text: Type.Union([Type.String(), Type.Null()]) });

export const ToolCallFileDiff = Type.Object({
  call_id: Type.String(),
  path: Type.String(),
  change: Type.Union([ToolCallChangeKind, Type.Literal("unchanged")]),
  before: ToolCallSide,
  after: Type.Union([ToolCallSide, Type.Null()]),
  after_source: Type.Union([Type.Literal("recorded"), Type.Literal("next_call"), Type.Literal("workspace"), Type.Literal("unknown")]),
  after_snapshot: Type.Union([SnapshotRef, Type.Null()]),
  undone: Type.Boolean(),
  restored_at: Type.Union([Type.String(), Type.Null()]),
  binary: Type.Boolean(),
  engine: Type.Union([Type.Literal("jsdiff"), Type.Literal("git"), Type.Literal("none")]),
  hunks: Type.Array(Hunk),
  note: Type.Union([Type.String(), Type.Null()]),
});
