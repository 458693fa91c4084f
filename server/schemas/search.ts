/**
 * Search across one snapshot's slices and workspace files.
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export const SearchQuery = Type.Object(
  {
    ...selectorProperties,
    /** Case-insensitive substring (not a regular expression). */
    q: Type.String({ minLength: 1, maxLength: 1000 }),
    /** `slices`, `files` or both (default). */
    scope: Type.Optional(Type.Union([Type.Literal("slices"), Type.Literal("files"), Type.Literal("all")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

export const SearchHit = Type.Union([
  Type.Object({
    kind: Type.Literal("slice"),
    slice_type: Type.String(),
    display_name: Type.String(),
    item_index: Type.Integer(),
    json_path: Type.String(),
    snippet: Type.String(),
  }),
  Type.Object({
    kind: Type.Literal("file"),
    path: Type.String(),
    line: Type.Integer(),
    column: Type.Integer(),
    snippet: Type.String(),
  }),
]);

export const SearchResult = Type.Object({
  query: Type.String(),
  hits: Type.Array(SearchHit),
  truncated: Type.Boolean(),
  scanned_files: Type.Integer(),
  scanned_bytes: Type.Integer(),
  /** Files that could not be read (a corrupt or refused archive entry): skipped, and the search went on. */
  skipped_files: Type.Array(Type.Object({ path: Type.String(), detail: Type.String() })),
});
