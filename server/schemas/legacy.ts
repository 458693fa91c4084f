/**
 * WINK's viewer API, same names and shapes (plus fields it lacked): meta, entries, slices,
 * raw, reload, snapshots, select, switch. Request schemas here; the responses' shapes are the
 * library's (`shared/viewer/schemas/snapshot.ts`).
 */
import { Type } from "typebox";
import { SelectorQuery, selectorProperties } from "./common.js";

export { Entries, Entry, SliceSummary, SlicePage, SnapshotFile, SnapshotFiles, SnapshotMeta } from "../../shared/viewer/schemas/index.js";

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

/** `/api/raw`: the line as written (big integers exact, NaN/Infinity as `{"__float__": …}`). */
export const RawLine = Type.Record(Type.String(), Type.Unknown());

/** WINK validates these by hand, with its own messages, so the body schema accepts any value. */
export const SelectBody = Type.Object({ session_id: Type.Optional(Type.Unknown()), line_number: Type.Optional(Type.Unknown()) });

export const SwitchBody = Type.Object({ path: Type.Optional(Type.Unknown()), session_id: Type.Optional(Type.Unknown()), line_number: Type.Optional(Type.Unknown()) });

export { SelectorQuery };
