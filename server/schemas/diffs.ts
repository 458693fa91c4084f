/**
 * Comparing any two snapshots: the overview (files from sizes and CRCs, slices with
 * counts), one file's text diff, one slice's diff.
 */
import { Type } from "typebox";
import { SliceKind, SnapshotRef } from "./common.js";
import { ChangeKind, SourceKind } from "./filesystem.js";

/** The two sides: `base_*` and `target_*` selectors. Without a base, the session's previous line; without a target, the current snapshot. */
export const diffSideProperties = {
  base_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  base_line: Type.Optional(Type.Integer({ minimum: 1 })),
  base_session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  target_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  target_line: Type.Optional(Type.Integer({ minimum: 1 })),
  target_session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

/** Rename and copy detection (git's `-M`/`-C`): on by default, at 50 % similarity. */
export const renameProperties = {
  renames: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  copies: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  similarity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
};

export const DiffQuery = Type.Object({ ...diffSideProperties, ...renameProperties }, { additionalProperties: false });
export const FileDiffQuery = Type.Object(
  {
    ...diffSideProperties,
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    /** The file's path in the base, for a renamed or copied file. */
    base_path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  { additionalProperties: false },
);
export const SliceDiffQuery = Type.Object({ ...diffSideProperties, slice_type: Type.String({ minLength: 1 }) }, { additionalProperties: false });

const SliceChangeStatus = Type.Union([Type.Literal("added"), Type.Literal("removed"), Type.Literal("changed"), Type.Literal("unchanged")]);
const DiffEngine = Type.Union([Type.Literal("jsdiff"), Type.Literal("git"), Type.Literal("none")]);

export const Hunk = Type.Object({
  old_start: Type.Integer(),
  old_lines: Type.Integer(),
  new_start: Type.Integer(),
  new_lines: Type.Integer(),
  lines: Type.Array(Type.String()),
});

export const SnapshotDiff = Type.Object({
  base: SnapshotRef,
  target: SnapshotRef,
  files: Type.Object({
    base_source: Type.Union([SourceKind, Type.Null()]),
    target_source: Type.Union([SourceKind, Type.Null()]),
    changes: Type.Array(
      Type.Object({
        path: Type.String(),
        status: Type.Union([ChangeKind, Type.Literal("renamed"), Type.Literal("copied")]),
        old_path: Type.Union([Type.String(), Type.Null()]),
        similarity: Type.Union([Type.Integer(), Type.Null()]),
        base_size: Type.Union([Type.Integer(), Type.Null()]),
        target_size: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
    added: Type.Integer(),
    modified: Type.Integer(),
    deleted: Type.Integer(),
    renamed: Type.Integer(),
    copied: Type.Integer(),
    unchanged_count: Type.Integer(),
    rename_detection: Type.Object({ renames: Type.Boolean(), copies: Type.Boolean(), threshold: Type.Integer(), limited: Type.Boolean() }),
  }),
  slices: Type.Array(
    Type.Object({
      slice_type: Type.String(),
      display_name: Type.String(),
      kind: SliceKind,
      status: SliceChangeStatus,
      base_count: Type.Integer(),
      target_count: Type.Integer(),
      added: Type.Integer(),
      removed: Type.Integer(),
      changed: Type.Integer(),
    }),
  ),
});

export const FileDiff = Type.Object({
  path: Type.String(),
  old_path: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([ChangeKind, Type.Literal("renamed"), Type.Literal("unchanged")]),
  base_size: Type.Union([Type.Integer(), Type.Null()]),
  target_size: Type.Union([Type.Integer(), Type.Null()]),
  binary: Type.Boolean(),
  engine: DiffEngine,
  hunks: Type.Array(Hunk),
  note: Type.Union([Type.String(), Type.Null()]),
});

export const SliceDiff = Type.Object({
  slice_type: Type.String(),
  display_name: Type.String(),
  status: SliceChangeStatus,
  base_count: Type.Integer(),
  target_count: Type.Integer(),
  items: Type.Array(
    Type.Object({
      key: Type.String(),
      status: SliceChangeStatus,
      base_index: Type.Union([Type.Integer(), Type.Null()]),
      target_index: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
  engine: DiffEngine,
  hunks: Type.Array(Hunk),
  note: Type.Union([Type.String(), Type.Null()]),
});

export const DiffStat = Type.Object({
  files: Type.Array(Type.Object({ path: Type.String(), added: Type.Union([Type.Integer(), Type.Null()]), removed: Type.Union([Type.Integer(), Type.Null()]), binary: Type.Boolean() })),
  truncated: Type.Boolean(),
});
