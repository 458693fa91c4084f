/**
 * WINK's viewer API, same names and shapes (plus fields it lacked): meta, entries, slices,
 * raw, reload, snapshots, select, switch.
 */
import { Type } from "typebox";
import { SelectorQuery, SliceKind, Tags, selectorProperties } from "./common.js";

export const SliceSummary = Type.Object({
  slice_type: Type.String(),
  item_type: Type.String(),
  display_name: Type.String(),
  item_display_name: Type.String(),
  count: Type.Integer(),
  kind: SliceKind,
});

export const SnapshotMeta = Type.Object({
  version: Type.String(),
  created_at: Type.String(),
  path: Type.String(),
  session_id: Type.String(),
  line_number: Type.Integer(),
  tags: Tags,
  validation_error: Type.Union([Type.String(), Type.Null()]),
  parent_id: Type.Union([Type.String(), Type.Null()]),
  children_ids: Type.Array(Type.String()),
  slices: Type.Array(SliceSummary),
});

export const Entry = Type.Object({
  session_id: Type.String(),
  name: Type.String(),
  path: Type.String(),
  line_number: Type.Integer(),
  created_at: Type.String(),
  tags: Tags,
  selected: Type.Boolean(),
});
export const Entries = Type.Array(Entry);

export const SliceParams = Type.Object({ slice_type: Type.String({ minLength: 1 }) });

export const SliceQuery = Type.Object(
  {
    ...selectorProperties,
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 0 })),
    /** `0` returns strings as written, without markdown wrappers. */
    markdown: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  },
  { additionalProperties: false },
);

export const SlicePage = Type.Object({
  slice_type: Type.String(),
  item_type: Type.String(),
  display_name: Type.String(),
  item_display_name: Type.String(),
  kind: SliceKind,
  items: Type.Array(Type.Unknown()),
  offset: Type.Integer(),
  limit: Type.Union([Type.Integer(), Type.Null()]),
  total: Type.Integer(),
});

/** `/api/raw`: the line as written (big integers exact, NaN/Infinity as `{"__float__": …}`). */
export const RawLine = Type.Record(Type.String(), Type.Unknown());

export const SnapshotFile = Type.Object({ path: Type.String(), name: Type.String(), created_at: Type.String() });
export const SnapshotFiles = Type.Array(SnapshotFile);

/** WINK validates these by hand, with its own messages, so the body schema accepts any value. */
export const SelectBody = Type.Object({ session_id: Type.Optional(Type.Unknown()), line_number: Type.Optional(Type.Unknown()) });
export const SwitchBody = Type.Object({ path: Type.Optional(Type.Unknown()), session_id: Type.Optional(Type.Unknown()), line_number: Type.Optional(Type.Unknown()) });

export { SelectorQuery };
