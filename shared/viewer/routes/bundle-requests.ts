/**
 * The request schemas of WINK's bundle viewer routes (same names and shapes: `/api/manifest`,
 * `/api/logs`, `/api/logs/facets`, `/api/transcript`, `/api/transcript/facets`,
 * `/api/environment`, `/api/config`, `/api/metrics`, `/api/error`, `/api/files/{path}`,
 * `/api/bundles`) and ours around them (summary, request, integrity, groups, compare, search).
 * Every route takes `file`, the bundle relative to the served directory; without it, the
 * current file. The responses' shapes are the library's (`shared/debug-bundle/schemas.ts`).
 */
import { Type } from "typebox";

const bundleFile = Type.Optional(Type.String({ minLength: 1, maxLength: 4096 }));
/** A comma-separated list of values (WINK's filter syntax). */
const commaList = Type.Optional(Type.String({ maxLength: 16_384 }));
const page = {
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Omitted: every matching entry (WINK's default). */
  limit: Type.Optional(Type.Integer({ minimum: 0 })),
};
const isoTime = Type.Optional(Type.String({ minLength: 1, maxLength: 64 }));

export const BundleQuery = Type.Object({ file: bundleFile }, { additionalProperties: false });

export const LogsQuery = Type.Object(
  {
    file: bundleFile,
    ...page,
    level: commaList,
    logger: commaList,
    event: commaList,
    search: Type.Optional(Type.String({ maxLength: 1000 })),
    exclude_level: commaList,
    exclude_logger: commaList,
    exclude_event: commaList,
    /** Records at or after this ISO-8601 time. */
    since: isoTime,
    /** Records at or before this ISO-8601 time. */
    until: isoTime,
    /** The page starts at the first matching record at or after this time (instead of `offset`). */
    at: isoTime,
    /** The page starts at the first matching record at or after this 1-based line of the log (instead of `offset`). */
    at_line: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const TranscriptQuery = Type.Object(
  {
    file: bundleFile,
    ...page,
    source: commaList,
    entry_type: commaList,
    search: Type.Optional(Type.String({ maxLength: 1000 })),
    exclude_source: commaList,
    exclude_entry_type: commaList,
    /** The page starts at the first matching entry whose rowid is at least this (instead of `offset`). */
    at_rowid: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const BundleFileParams = Type.Object({ "*": Type.String({ minLength: 1, maxLength: 4096 }) });

export const CompareQuery = Type.Object(
  {
    /** The bundle compared against; omitted: the bundle before `target_file` in its request's group. */
    base_file: bundleFile,
    target_file: bundleFile,
  },
  { additionalProperties: false },
);

export const BundleSearchQuery = Type.Object(
  {
    file: bundleFile,
    q: Type.String({ minLength: 1, maxLength: 1000 }),
    /** Comma list of `logs`, `transcript`, `members`, `slices`, `files` (default all). */
    scope: Type.Optional(Type.String({ maxLength: 200 })),
    /** `bundle`: the one bundle; `group`: the bundles of its request; `all` (default): every bundle. */
    in: Type.Optional(Type.Union([Type.Literal("bundle"), Type.Literal("group"), Type.Literal("all")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    /** `1`: `q` is a regular expression (linear-time: no backreferences or lookarounds; case-sensitive). */
    regex: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  },
  { additionalProperties: false },
);
