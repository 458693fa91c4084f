/**
 * Comparing any two snapshots: the request schemas (the responses' shapes are the library's,
 * `shared/viewer/schemas/diffs.ts`).
 */
import { Type } from "typebox";

export { DiffStat, FileDiff, Hunk, SliceDiff, SnapshotDiff } from "../../shared/viewer/schemas/index.js";

/** The two sides: `base_*` and `target_*` selectors. Without a base, the session's previous line; without a target, the current snapshot. */
export const diffSideProperties = {
  base_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  base_line: Type.Optional(Type.Integer({ minimum: 1 })),
  base_session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  target_file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  target_line: Type.Optional(Type.Integer({ minimum: 1 })),
  target_session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

/** Rename and copy detection (git's `-M`/`-C`) at 50 % similarity: renames on by default, copies only with `copies=1` (as git only with -C). */
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
