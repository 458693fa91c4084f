/**
 * The JSON shapes of everything read from WINK debug bundles, as TypeBox schemas: exactly
 * what the HTTP API sends (snake_case, WINK's field names where WINK's bundle viewer has the
 * route) and what the web app computes in the browser from a dropped bundle. The server
 * declares its bundle routes' responses with them; `types.ts` derives the types.
 */
import { Type } from "typebox";
import { NullableInteger, NullableNumber, NullableString, Tags } from "../viewer/schemas/common.js";
import { FilesDiff, SliceChange } from "../viewer/schemas/diffs.js";
import { SliceSummary } from "../viewer/schemas/snapshot.js";

/** `{name, count}`: one value of a facet. */
export const FacetCount = Type.Object({ name: Type.String(), count: Type.Integer() });

/** One record of `logs/app.jsonl` (WINK's six keys, plus where it is). */
export const LogEntry = Type.Object({
  timestamp: Type.String(),
  level: Type.String(),
  logger: Type.String(),
  event: Type.String(),
  message: Type.String(),
  context: Type.Unknown(),
  /** 1-based physical line in `logs/app.jsonl`. */
  line_number: Type.Integer(),
  /** Set when the line is not a JSON object (it is still listed, its text as `message`). */
  error: Type.Optional(Type.String()),
});

/** `/api/logs`. */
export const LogPage = Type.Object({
  entries: Type.Array(LogEntry),
  /** Matching records in all. */
  total: Type.Integer(),
  /** Position of the first entry among the matching records (where `at` landed, when given). */
  offset: Type.Integer(),
  limit: NullableInteger,
});

/** `/api/logs/facets`. */
export const LogFacets = Type.Object({ loggers: Type.Array(FacetCount), events: Type.Array(FacetCount), levels: Type.Array(FacetCount) });

/** One transcript entry: WINK's row, the tool pairing and where it was read. */
export const TranscriptEntry = Type.Object({
  /** 1-based position in the transcript. */
  rowid: Type.Integer(),
  timestamp: Type.String(),
  prompt_name: Type.String(),
  transcript_source: Type.String(),
  sequence_number: NullableInteger,
  entry_type: Type.String(),
  role: Type.String(),
  content: Type.String(),
  tool_name: Type.String(),
  tool_use_id: Type.String(),
  /** The adapter's raw message (a JSON string), or null. */
  raw_json: NullableString,
  /** The entry's `detail` as JSON text, or null. */
  parsed: NullableString,
  /** Safe HTML of `content`, when it looks like markdown. */
  content_html: Type.Optional(Type.String()),
  /** For a `tool_use`, the rowid of its `tool_result`; for a result, its use; else null. */
  paired_rowid: NullableInteger,
  /** 1-based line of the record in `logs/app.jsonl` (or `transcript.jsonl`). */
  line_number: Type.Integer(),
});

/** `/api/transcript`. */
export const TranscriptPage = Type.Object({ entries: Type.Array(TranscriptEntry), total: Type.Integer(), offset: Type.Integer(), limit: NullableInteger });

/** `/api/transcript/facets`. */
export const TranscriptFacets = Type.Object({ sources: Type.Array(FacetCount), entry_types: Type.Array(FacetCount) });

const Section = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

/** `/api/environment` (WINK's shape; every part null when not captured). */
export const Environment = Type.Object({
  system: Section,
  python: Section,
  git: Section,
  container: Section,
  env_vars: Type.Record(Type.String(), Type.Unknown()),
  packages: NullableString,
  command: NullableString,
  git_diff: NullableString,
});

/** A JSON member as written (`/api/manifest`, `/api/config`, `/api/metrics`, `/api/error`…). */
export const RawMember = Type.Unknown();

/** WINK's `/api/files/{path}`: one member by what it holds (images by extension, `.md` rendered, JSON parsed). */
export const BundleFile = Type.Union([
  Type.Object({ content: Type.String(), type: Type.Literal("image"), mime_type: Type.String() }),
  Type.Object({ content: Type.String(), html: Type.String(), type: Type.Literal("markdown") }),
  Type.Object({ content: Type.Unknown(), type: Type.Literal("json") }),
  Type.Object({ content: Type.String(), type: Type.Literal("text") }),
  Type.Object({ content: Type.Null(), type: Type.Literal("binary") }),
]);

export const BundleMembers = Type.Array(Type.String());

/** `/api/request`: the request's input and output as written. */
export const BundleRequest = Type.Object({ input: Type.Unknown(), output: Type.Unknown() });

/** The manifest's checksums against the members read so far (or all, after a full check). */
export const BundleIntegrity = Type.Object({
  algorithm: Type.String(),
  /** False for an algorithm other than sha256 (nothing can be checked). */
  supported: Type.Boolean(),
  /** Members the manifest has a checksum for. */
  listed: Type.Integer(),
  verified: Type.Integer(),
  mismatched: Type.Array(Type.Object({ member: Type.String(), expected: Type.String(), actual: Type.String() })),
  /** Members with a checksum that the zip does not hold. */
  missing: Type.Array(Type.String()),
  /** Members the zip holds without a checksum (manifest.json never has one). */
  unlisted: Type.Array(Type.String()),
  /** Members with a checksum not read yet. */
  unverified: Type.Array(Type.String()),
  /** Every listed member was checked. */
  complete: Type.Boolean(),
  /** False on any mismatch or missing member, true when complete and clean, null while unknown. */
  ok: Type.Union([Type.Boolean(), Type.Null()]),
});

/** `error.json`, with the traceback both as written (one string per frame) and joined. */
export const BundleError = Type.Object({ type: Type.String(), message: Type.String(), traceback: Type.Array(Type.String()), traceback_text: Type.String() });

/** One of the bundle's two session snapshots. */
export const BundleSessionLine = Type.Object({
  /** The line number the viewer gives it: 1 before the run, 2 after. */
  line_number: Type.Integer(),
  label: Type.Union([Type.Literal("before"), Type.Literal("after")]),
  member: Type.String(),
  present: Type.Boolean(),
  /** Why it did not load (not written by WINK, or not valid), or null. */
  error: NullableString,
});

/** The run a bundle records, at a glance: what the run-centred views show first. */
export const BundleSummary = Type.Object({
  /** Bundle file relative to the served directory (or the dropped name). */
  path: Type.String(),
  name: Type.String(),
  bundle_id: Type.String(),
  format_version: Type.String(),
  created_at: Type.String(),
  started_at: NullableString,
  ended_at: NullableString,
  duration_ms: NullableNumber,
  /** `success` or `error` as the manifest says. */
  status: Type.String(),
  trigger: Type.String(),
  request_id: Type.String(),
  session_id: NullableString,
  run_id: NullableString,
  attempt: NullableInteger,
  /** The request's `iteration` (an app field WINK's examples use), when the input has one. */
  iteration: NullableInteger,
  trace_id: NullableString,
  worker_id: NullableString,
  /** Bundles with the same group id belong to one request (retries, iterations). */
  group_id: Type.String(),
  prompt: Type.Object({ ns: Type.String(), key: Type.String(), adapter: Type.String() }),
  build: Type.Object({ version: Type.String(), commit: Type.String() }),
  error: Type.Union([BundleError, Type.Null()]),
  metrics: Type.Unknown(),
  eval: Type.Unknown(),
  /** Which members the zip holds (paths relative to `debug_bundle/`). */
  members: Type.Array(Type.String()),
  /** The session lines (before/after) and which one opens by default. */
  session: Type.Object({ lines: Type.Array(BundleSessionLine), default_line: NullableInteger }),
  workspace: Type.Object({ files: Type.Integer(), bytes: Type.Integer(), truncated: Type.Boolean(), notes: Type.Array(Type.String()) }),
  integrity: BundleIntegrity,
  /** Problems reading the bundle that do not stop it from opening. */
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

/** `/api/bundles`: a bundle of the served directory (WINK's shape; `path` relative to it). */
export const BundleListItem = Type.Object({ path: Type.String(), name: Type.String(), created_at: Type.String(), selected: Type.Boolean() });
export const BundleList = Type.Array(BundleListItem);

/** The bundles of one request, in run order. */
export const BundleGroup = Type.Object({
  group_id: Type.String(),
  /** What the bundles share: a trace id, a request id, the EvalLoop folder, or nothing (a lone bundle). */
  key: Type.Union([Type.Literal("trace_id"), Type.Literal("request_id"), Type.Literal("folder"), Type.Literal("bundle")]),
  bundles: Type.Array(BundleSummary),
});
export const BundleGroups = Type.Array(BundleGroup);

/** One metric of two bundles side by side. */
export const MetricComparison = Type.Object({
  /** Dotted path in `metrics.json`, e.g. `token_usage.input_tokens`. */
  metric: Type.String(),
  base: NullableNumber,
  target: NullableNumber,
  /** target − base, when both are numbers. */
  delta: NullableNumber,
});

/** Two bundles compared: status, metrics, workspace and session state. */
export const BundleCompare = Type.Object({
  base: BundleSummary,
  target: BundleSummary,
  same_group: Type.Boolean(),
  status: Type.Object({ base: Type.String(), target: Type.String(), changed: Type.Boolean() }),
  metrics: Type.Array(MetricComparison),
  /** Workspace (`filesystem/`) changes from sizes and CRC-32s; details through `/api/diff/file`. */
  files: FilesDiff,
  /** Slice changes between the two default session lines (after, else before). */
  slices: Type.Array(SliceChange),
});

/** A search hit in one bundle. */
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

/** `/api/bundles/search`. */
export const BundleSearch = Type.Object({ query: Type.String(), hits: Type.Array(BundleSearchHit), truncated: Type.Boolean(), scanned_bundles: Type.Integer() });
