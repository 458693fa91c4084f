/**
 * Search across one snapshot's slices and workspace files: the request schema (the response's
 * shape is the library's, `shared/viewer/schemas/search.ts`).
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export { SearchHit, SearchResult } from "../../shared/viewer/schemas/index.js";

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
