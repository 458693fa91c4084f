/**
 * One snapshot line as WINK's viewer API sends it (same names and shapes, plus fields it
 * lacked): meta, entries, a page of a slice, the session files of the served directory.
 */
import { Type } from "typebox";
import { NullableString, SliceKind, Tags } from "./common.js";

/** One slice of a snapshot without its items (`/api/meta`). */
export const SliceSummary = Type.Object({
  slice_type: Type.String(),
  item_type: Type.String(),
  /** The class name: the part of the type id after the last `:` or `.`. */
  display_name: Type.String(),
  item_display_name: Type.String(),
  count: Type.Integer(),
  kind: SliceKind,
});

/** `/api/meta`: one snapshot line without slice items. */
export const SnapshotMeta = Type.Object({
  version: Type.String(),
  created_at: Type.String(),
  /** Path of the session file relative to the served directory (POSIX separators). */
  path: Type.String(),
  session_id: Type.String(),
  line_number: Type.Integer(),
  tags: Tags,
  /** Semantic problems of the line joined by "; " (unknown version, bad timestamp…), or null. */
  validation_error: NullableString,
  parent_id: NullableString,
  children_ids: Type.Array(Type.String()),
  slices: Type.Array(SliceSummary),
});

/** `/api/entries`: one line of a session file. */
export const Entry = Type.Object({
  session_id: Type.String(),
  /** `"<session_id> (line N)"`. */
  name: Type.String(),
  path: Type.String(),
  line_number: Type.Integer(),
  created_at: Type.String(),
  tags: Tags,
  /** True for the selected line only (WINK marked every line of a duplicated id). */
  selected: Type.Boolean(),
});
export const Entries = Type.Array(Entry);

/** `/api/slices/:type`: a page of one slice's items. */
export const SlicePage = Type.Object({
  slice_type: Type.String(),
  item_type: Type.String(),
  display_name: Type.String(),
  item_display_name: Type.String(),
  kind: SliceKind,
  /** Items as written; strings that look like markdown are wrapped (see `markdown.ts`). */
  items: Type.Array(Type.Unknown()),
  offset: Type.Integer(),
  limit: Type.Union([Type.Integer(), Type.Null()]),
  /** Number of items in the whole slice. */
  total: Type.Integer(),
});

/** `/api/snapshots`: a session file in the served directory. */
export const SnapshotFile = Type.Object({
  path: Type.String(),
  name: Type.String(),
  /** ISO-8601 of the file's newest change time (max of ctime and mtime). */
  created_at: Type.String(),
});
export const SnapshotFiles = Type.Array(SnapshotFile);
