/**
 * Comparing any two snapshots: the overview (files from sizes and CRCs, slices with
 * counts), one file's text diff, one slice's diff, line counts of the changed files.
 */
import { Type } from "typebox";
import { NullableInteger, NullableString, SliceKind, SnapshotRef } from "./common.js";
import { ChangeKind, FilesystemSourceKind } from "./filesystem.js";

export const SliceChangeStatus = Type.Union([Type.Literal("added"), Type.Literal("removed"), Type.Literal("changed"), Type.Literal("unchanged")]);
/** How a text diff was computed. */
export const DiffEngine = Type.Union([Type.Literal("jsdiff"), Type.Literal("git"), Type.Literal("none")]);

/** One hunk of a unified diff. */
export const Hunk = Type.Object({
  old_start: Type.Integer(),
  old_lines: Type.Integer(),
  new_start: Type.Integer(),
  new_lines: Type.Integer(),
  /** Lines prefixed with " ", "-", "+" or "\\" (no newline at end of file). */
  lines: Type.Array(Type.String()),
});

/** How a file changed between two snapshots; `renamed`/`copied` as git's `-M`/`-C` find them. */
export const FileChangeStatus = Type.Union([ChangeKind, Type.Literal("renamed"), Type.Literal("copied")]);

export const FileChange = Type.Object({
  /** The file in the target (for a deleted file: in the base). */
  path: Type.String(),
  status: FileChangeStatus,
  /** Renamed or copied: the base file it came from; null otherwise. */
  old_path: NullableString,
  /** Renamed or copied: git's similarity index in percent (100 for an exact rename); null otherwise. */
  similarity: NullableInteger,
  base_size: NullableInteger,
  target_size: NullableInteger,
});

/** What rename detection did for an answer. */
export const RenameDetection = Type.Object({
  renames: Type.Boolean(),
  copies: Type.Boolean(),
  /** Minimum similarity in percent. */
  threshold: Type.Integer(),
  /** Too many candidates (git's `diff.renameLimit`): only exact renames were looked for. */
  limited: Type.Boolean(),
});

export const SliceChange = Type.Object({
  slice_type: Type.String(),
  display_name: Type.String(),
  kind: SliceKind,
  status: SliceChangeStatus,
  base_count: Type.Integer(),
  target_count: Type.Integer(),
  /** Items only in the target / only in the base / at the same key but different. */
  added: Type.Integer(),
  removed: Type.Integer(),
  changed: Type.Integer(),
});

export const FilesDiff = Type.Object({
  base_source: Type.Union([FilesystemSourceKind, Type.Null()]),
  target_source: Type.Union([FilesystemSourceKind, Type.Null()]),
  changes: Type.Array(FileChange),
  added: Type.Integer(),
  modified: Type.Integer(),
  deleted: Type.Integer(),
  renamed: Type.Integer(),
  copied: Type.Integer(),
  unchanged_count: Type.Integer(),
  rename_detection: RenameDetection,
});

/** `/api/diff`: what changed between two snapshots. */
export const SnapshotDiff = Type.Object({
  base: SnapshotRef,
  target: SnapshotRef,
  files: FilesDiff,
  slices: Type.Array(SliceChange),
});

/** `/api/diff/file`: the text diff of one file. */
export const FileDiff = Type.Object({
  path: Type.String(),
  /** The base file compared with `path` when it was renamed or copied; null otherwise. */
  old_path: NullableString,
  status: Type.Union([ChangeKind, Type.Literal("renamed"), Type.Literal("unchanged")]),
  base_size: NullableInteger,
  target_size: NullableInteger,
  binary: Type.Boolean(),
  engine: DiffEngine,
  hunks: Type.Array(Hunk),
  /** Why no hunks are given although the file changed (binary, too large, too complex). */
  note: NullableString,
});

export const SliceItemChange = Type.Object({
  /** Item key: `event_id` for events, the index for state items. */
  key: Type.String(),
  status: SliceChangeStatus,
  base_index: NullableInteger,
  target_index: NullableInteger,
});

/** `/api/diff/slice`: one slice compared item by item, plus a text diff of its JSON. */
export const SliceDiff = Type.Object({
  slice_type: Type.String(),
  display_name: Type.String(),
  status: SliceChangeStatus,
  base_count: Type.Integer(),
  target_count: Type.Integer(),
  items: Type.Array(SliceItemChange),
  engine: DiffEngine,
  hunks: Type.Array(Hunk),
  note: NullableString,
});

/** Lines added and removed in one changed file (`git diff --numstat`). */
export const FileStat = Type.Object({
  path: Type.String(),
  /** Null for binary files and diffs that ran out of time. */
  added: NullableInteger,
  removed: NullableInteger,
  binary: Type.Boolean(),
});

/** `/api/diff/stat`: line counts of the changed files (in the order `/api/diff` lists them). */
export const DiffStat = Type.Object({
  files: Type.Array(FileStat),
  /** The file, byte or time budget ran out: later files have no entry. */
  truncated: Type.Boolean(),
});
