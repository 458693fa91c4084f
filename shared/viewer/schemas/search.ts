/**
 * Search across one snapshot's slices and workspace files.
 */
import { Type } from "typebox";

export const SearchHit = Type.Union([
  Type.Object({
    kind: Type.Literal("slice"),
    slice_type: Type.String(),
    display_name: Type.String(),
    item_index: Type.Integer(),
    /** Where in the item the match is, e.g. `result.message` or `steps[2].title`. */
    json_path: Type.String(),
    snippet: Type.String(),
  }),
  Type.Object({
    kind: Type.Literal("file"),
    path: Type.String(),
    /** 1-based line; 0 when the file name matched. */
    line: Type.Integer(),
    column: Type.Integer(),
    snippet: Type.String(),
  }),
]);

/** A file a search could not read, and why. */
export const SearchSkippedFile = Type.Object({ path: Type.String(), detail: Type.String() });

/** `/api/search`. */
export const SearchResult = Type.Object({
  query: Type.String(),
  hits: Type.Array(SearchHit),
  /** True when the hit limit, byte budget or time budget stopped the search early. */
  truncated: Type.Boolean(),
  scanned_files: Type.Integer(),
  scanned_bytes: Type.Integer(),
  /** Files that could not be read (a corrupt or refused archive entry): skipped, the search went on. */
  skipped_files: Type.Array(SearchSkippedFile),
});
