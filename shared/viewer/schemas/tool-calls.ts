/**
 * What the timeline shows of the per-tool-call undo store: the `changes` of `/api/timeline`
 * (per tool call: changed paths, undone or not) and one changed file's diff between its
 * pre-image and its post-state.
 */
import { Type } from "typebox";
import { NullableString, SnapshotRef } from "./common.js";
import { DiffEngine, Hunk } from "./diffs.js";

/** How a tool call changed a path (`unknown`: the store recorded no post-state). */
export const ToolCallChangeKind = Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted"), Type.Literal("type-changed"), Type.Literal("unknown")]);
/** What a path was before a tool call or became after it. */
export const UndoPathKind = Type.Union([Type.Literal("file"), Type.Literal("directory"), Type.Literal("absent")]);
const Size = Type.Union([Type.Integer(), Type.Null()]);

/** One path a tool call changed. */
export const ToolCallFile = Type.Object({
  path: Type.String(),
  change: ToolCallChangeKind,
  before: UndoPathKind,
  /** Null when the post-state is unknown. */
  after: Type.Union([UndoPathKind, Type.Null()]),
  before_size: Size,
  after_size: Size,
});

/** One tool call of the timeline as the undo store recorded it. */
export const ToolCallChanges = Type.Object({
  call_id: Type.String(),
  /** Index into the timeline's `events` of the tool call's event. */
  event_index: Type.Integer(),
  turn_id: NullableString,
  captured_at: Type.String(),
  /** The call's changes were rolled back (restore of the call, or a turn rollback); the store's state now, not at this line. */
  undone: Type.Boolean(),
  restored_at: NullableString,
  /** Changed paths, sorted (empty: the call was tracked and changed nothing). */
  files: Type.Array(ToolCallFile),
});

/** `/api/timeline` `changes`: the undo store's view of the line's tool calls. */
export const TimelineChanges = Type.Object({
  /** Tool calls of `events` the store recorded, in timeline order. */
  tool_calls: Type.Array(ToolCallChanges),
  /** Calls the store recorded for this session that this line's events do not hold (other turns). */
  other_calls: Type.Integer(),
  /** Manifests that could not be read, in a sentence each. */
  problems: Type.Array(Type.String()),
});

/** One side of a tool call's file diff. */
export const ToolCallSide = Type.Object({
  kind: UndoPathKind,
  /** File size (null for directories, absent paths and unknown sizes). */
  size_bytes: Size,
  /** UTF-8 text of a file; null when binary, over the text limit, unavailable, or not a file. */
  text: NullableString,
});

/** Where the post-state of a tool call's file came from. */
export const ToolCallAfterSource = Type.Union([Type.Literal("recorded"), Type.Literal("next_call"), Type.Literal("workspace"), Type.Literal("unknown")]);

/** `/api/timeline/tool-call-diff`: one file a tool call changed, pre-image against post-state. */
export const ToolCallFileDiff = Type.Object({
  call_id: Type.String(),
  path: Type.String(),
  change: Type.Union([ToolCallChangeKind, Type.Literal("unchanged")]),
  before: ToolCallSide,
  /** Null when the post-state is unknown. */
  after: Type.Union([ToolCallSide, Type.Null()]),
  /**
   * `recorded`: the post-image stored when the call finished; `next_call`: the pre-image the
   * session's next call touching the path captured; `workspace`: the file in the workspace of
   * `after_snapshot` (the session's first snapshot line after the call); `unknown`.
   */
  after_source: ToolCallAfterSource,
  after_snapshot: Type.Union([SnapshotRef, Type.Null()]),
  undone: Type.Boolean(),
  restored_at: NullableString,
  binary: Type.Boolean(),
  engine: DiffEngine,
  hunks: Type.Array(Hunk),
  /** Why there are no hunks, or a caveat about the post-state. */
  note: NullableString,
});
