/**
 * WINK debug bundles: WINK's bundle viewer routes (same names and shapes: `/api/manifest`,
 * `/api/logs`, `/api/logs/facets`, `/api/transcript`, `/api/transcript/facets`,
 * `/api/environment`, `/api/config`, `/api/metrics`, `/api/error`, `/api/files/{path}`,
 * `/api/bundles`) and ours around them (summary, request, integrity, groups, compare,
 * search). Every route takes `file`, the bundle relative to the served directory; without
 * it, the current file.
 */
import { Type } from "typebox";
import { Tags } from "./common.js";
import { SnapshotDiff } from "./diffs.js";
import { SliceSummary, SnapshotMeta } from "./legacy.js";

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

const FacetCount = Type.Object({ name: Type.String(), count: Type.Integer() });

export const LogEntry = Type.Object({
  timestamp: Type.String(),
  level: Type.String(),
  logger: Type.String(),
  event: Type.String(),
  message: Type.String(),
  context: Type.Unknown(),
  line_number: Type.Integer(),
  error: Type.Optional(Type.String()),
});

export const LogPage = Type.Object({ entries: Type.Array(LogEntry), total: Type.Integer(), offset: Type.Integer(), limit: Type.Union([Type.Integer(), Type.Null()]) });

export const LogFacets = Type.Object({ loggers: Type.Array(FacetCount), events: Type.Array(FacetCount), levels: Type.Array(FacetCount) });

export const TranscriptEntry = Type.Object({
  rowid: Type.Integer(),
  timestamp: Type.String(),
  prompt_name: Type.String(),
  transcript_source: Type.String(),
  sequence_number: Type.Union([Type.Integer(), Type.Null()]),
  entry_type: Type.String(),
  role: Type.String(),
  content: Type.String(),
  tool_name: Type.String(),
  tool_use_id: Type.String(),
  raw_json: Type.Union([Type.String(), Type.Null()]),
  parsed: Type.Union([Type.String(), Type.Null()]),
  content_html: Type.Optional(Type.String()),
  paired_rowid: Type.Union([Type.Integer(), Type.Null()]),
  line_number: Type.Integer(),
});

export const TranscriptPage = Type.Object({ entries: Type.Array(TranscriptEntry), total: Type.Integer(), offset: Type.Integer(), limit: Type.Union([Type.Integer(), Type.Null()]) });

export const TranscriptFacets = Type.Object({ sources: Type.Array(FacetCount), entry_types: Type.Array(FacetCount) });

const Section = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);
const Text = Type.Union([Type.String(), Type.Null()]);

export const Environment = Type.Object({
  system: Section,
  python: Section,
  git: Section,
  container: Section,
  env_vars: Type.Record(Type.String(), Type.Unknown()),
  packages: Text,
  command: Text,
  git_diff: Text,
});

/** A JSON member as written (`/api/manifest`, `/api/config`, `/api/metrics`, `/api/error`…). */
export const RawMember = Type.Unknown();

export const BundleFile = Type.Union([
  Type.Object({ content: Type.String(), type: Type.Literal("image"), mime_type: Type.String() }),
  Type.Object({ content: Type.String(), html: Type.String(), type: Type.Literal("markdown") }),
  Type.Object({ content: Type.Unknown(), type: Type.Literal("json") }),
  Type.Object({ content: Type.String(), type: Type.Literal("text") }),
  Type.Object({ content: Type.Null(), type: Type.Literal("binary") }),
]);

export const BundleMembers = Type.Array(Type.String());

export const BundleRequest = Type.Object({ input: Type.Unknown(), output: Type.Unknown() });

export const BundleIntegrity = Type.Object({
  algorithm: Type.String(),
  supported: Type.Boolean(),
  listed: Type.Integer(),
  verified: Type.Integer(),
  mismatched: Type.Array(Type.Object({ member: Type.String(), expected: Type.String(), actual: Type.String() })),
  missing: Type.Array(Type.String()),
  unlisted: Type.Array(Type.String()),
  unverified: Type.Array(Type.String()),
  complete: Type.Boolean(),
  ok: Type.Union([Type.Boolean(), Type.Null()]),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const BundleError = Type.Object({ type: Type.String(), message: Type.String(), traceback: Type.Array(Type.String()), traceback_text: Type.String() });

export const BundleSummary = Type.Object({
  path: Type.String(),
  name: Type.String(),
  bundle_id: Type.String(),
  format_version: Type.String(),
  created_at: Type.String(),
  started_at: NullableString,
  ended_at: NullableString,
  duration_ms: Type.Union([Type.Number(), Type.Null()]),
  status: Type.String(),
  trigger: Type.String(),
  request_id: Type.String(),
  session_id: NullableString,
  run_id: NullableString,
  attempt: NullableInteger,
  iteration: NullableInteger,
  trace_id: NullableString,
  worker_id: NullableString,
  group_id: Type.String(),
  prompt: Type.Object({ ns: Type.String(), key: Type.String(), adapter: Type.String() }),
  build: Type.Object({ version: Type.String(), commit: Type.String() }),
  error: Type.Union([BundleError, Type.Null()]),
  metrics: Type.Unknown(),
  eval: Type.Unknown(),
  members: Type.Array(Type.String()),
  session: Type.Object({
    lines: Type.Array(
      Type.Object({
        line_number: Type.Integer(),
        label: Type.Union([Type.Literal("before"), Type.Literal("after")]),
        member: Type.String(),
        present: Type.Boolean(),
        error: NullableString,
      }),
    ),
    default_line: NullableInteger,
  }),
  workspace: Type.Object({ files: Type.Integer(), bytes: Type.Integer(), truncated: Type.Boolean(), notes: Type.Array(Type.String()) }),
  integrity: BundleIntegrity,
  warnings: Type.Array(Type.String()),
});

/** `/api/meta` of a debug bundle: WINK's fields, and the selected session line's (null without one). */
export const BundleMeta = Type.Object({
  bundle_id: Type.String(),
  created_at: Type.String(),
  has_transcript: Type.Boolean(),
  path: Type.String(),
  request_id: Type.String(),
  session_id: NullableString,
  status: Type.String(),
  validation_error: NullableString,
  slices: Type.Array(SliceSummary),
  version: NullableString,
  line_number: NullableInteger,
  tags: Tags,
  parent_id: NullableString,
  children_ids: Type.Array(Type.String()),
});

/** `/api/meta`, `POST /api/reload|select|switch`: a session file's snapshot meta, or a bundle's meta. */
export const Meta = Type.Union([SnapshotMeta, BundleMeta]);

export const BundleListItem = Type.Object({ path: Type.String(), name: Type.String(), created_at: Type.String(), selected: Type.Boolean() });
export const BundleList = Type.Array(BundleListItem);

export const BundleGroup = Type.Object({
  group_id: Type.String(),
  key: Type.Union([Type.Literal("trace_id"), Type.Literal("request_id"), Type.Literal("folder"), Type.Literal("bundle")]),
  bundles: Type.Array(BundleSummary),
});
export const BundleGroups = Type.Array(BundleGroup);

export const BundleCompare = Type.Object({
  base: BundleSummary,
  target: BundleSummary,
  same_group: Type.Boolean(),
  status: Type.Object({ base: Type.String(), target: Type.String(), changed: Type.Boolean() }),
  metrics: Type.Array(Type.Object({ metric: Type.String(), base: Type.Union([Type.Number(), Type.Null()]), target: Type.Union([Type.Number(), Type.Null()]), delta: Type.Union([Type.Number(), Type.Null()]) })),
  files: SnapshotDiff.properties.files,
  slices: SnapshotDiff.properties.slices,
});

export const BundleSearchHit = Type.Union([
  Type.Object({ bundle: Type.String(), kind: Type.Literal("log"), line_number: Type.Integer(), level: Type.String(), logger: Type.String(), event: Type.String(), snippet: Type.String() }),
  Type.Object({ bundle: Type.String(), kind: Type.Literal("transcript"), rowid: Type.Integer(), entry_type: Type.String(), snippet: Type.String() }),
  Type.Object({ bundle: Type.String(), kind: Type.Literal("member"), member: Type.String(), snippet: Type.String() }),
  Type.Object({
    bundle: Type.String(),
    kind: Type.Literal("slice"),
    line_number: Type.Integer(),
    slice_type: Type.String(),
    display_name: Type.String(),
    item_index: Type.Integer(),
    json_path: Type.String(),
    snippet: Type.String(),
  }),
  Type.Object({ bundle: Type.String(), kind: Type.Literal("file"), path: Type.String(), line: Type.Integer(), column: Type.Integer(), snippet: Type.String() }),
]);

export const BundleSearch = Type.Object({ query: Type.String(), hits: Type.Array(BundleSearchHit), truncated: Type.Boolean(), scanned_bundles: Type.Integer() });

