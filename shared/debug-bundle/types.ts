/**
 * The JSON shapes of everything read from WINK debug bundles: exactly what the HTTP API
 * sends (snake_case, WINK's field names where WINK's bundle viewer has the route) and what
 * the web app computes in the browser from a dropped bundle. `server/schemas/bundles.ts`
 * declares the same shapes as TypeBox schemas and checks at compile time that both agree.
 */
import type { FilesDiffView, SliceChangeView, SliceSummaryView } from "../viewer/types.js";

/** `{name, count}`: one value of a facet. */
export interface FacetCountView {
  name: string;
  count: number;
}

/** One record of `logs/app.jsonl` (WINK's six keys, plus where it is). */
export interface LogEntryView {
  timestamp: string;
  level: string;
  logger: string;
  event: string;
  message: string;
  context: unknown;
  /** 1-based physical line in `logs/app.jsonl`. */
  line_number: number;
  /** Set when the line is not a JSON object (it is still listed, its text as `message`). */
  error?: string;
}

/** `/api/logs`. */
export interface LogPageView {
  entries: LogEntryView[];
  /** Matching records in all. */
  total: number;
  /** Position of the first entry among the matching records (where `at` landed, when given). */
  offset: number;
  limit: number | null;
}

/** `/api/logs/facets`. */
export interface LogFacetsView {
  loggers: FacetCountView[];
  events: FacetCountView[];
  levels: FacetCountView[];
}

/** One transcript entry: WINK's row, the tool pairing and where it was read. */
export interface TranscriptEntryView {
  /** 1-based position in the transcript. */
  rowid: number;
  timestamp: string;
  prompt_name: string;
  transcript_source: string;
  sequence_number: number | null;
  entry_type: string;
  role: string;
  content: string;
  tool_name: string;
  tool_use_id: string;
  /** The adapter's raw message (a JSON string), or null. */
  raw_json: string | null;
  /** The entry's `detail` as JSON text, or null. */
  parsed: string | null;
  /** Safe HTML of `content`, when it looks like markdown. */
  content_html?: string;
  /** For a `tool_use`, the rowid of its `tool_result`; for a result, its use; else null. */
  paired_rowid: number | null;
  /** 1-based line of the record in `logs/app.jsonl` (or `transcript.jsonl`). */
  line_number: number;
}

/** `/api/transcript`. */
export interface TranscriptPageView {
  entries: TranscriptEntryView[];
  total: number;
  offset: number;
  limit: number | null;
}

/** `/api/transcript/facets`. */
export interface TranscriptFacetsView {
  sources: FacetCountView[];
  entry_types: FacetCountView[];
}

/** WINK's `/api/files/{path}`: one member by what it holds (images by extension, `.md` rendered, JSON parsed). */
export type BundleFileView =
  | { content: string; type: "image"; mime_type: string }
  | { content: string; html: string; type: "markdown" }
  | { content: unknown; type: "json" }
  | { content: string; type: "text" }
  | { content: null; type: "binary" };

/** `/api/environment` (WINK's shape; every part null when not captured). */
export interface EnvironmentView {
  system: Record<string, unknown> | null;
  python: Record<string, unknown> | null;
  git: Record<string, unknown> | null;
  container: Record<string, unknown> | null;
  env_vars: Record<string, unknown>;
  packages: string | null;
  command: string | null;
  git_diff: string | null;
}

/** `error.json`, with the traceback both as written (one string per frame) and joined. */
export interface BundleErrorView {
  type: string;
  message: string;
  traceback: string[];
  traceback_text: string;
}

/** The manifest's checksums against the members read so far (or all, after a full check). */
export interface BundleIntegrityView {
  algorithm: string;
  /** False for an algorithm other than sha256 (nothing can be checked). */
  supported: boolean;
  /** Members the manifest has a checksum for. */
  listed: number;
  verified: number;
  mismatched: { member: string; expected: string; actual: string }[];
  /** Members with a checksum that the zip does not hold. */
  missing: string[];
  /** Members the zip holds without a checksum (manifest.json never has one). */
  unlisted: string[];
  /** Members with a checksum not read yet. */
  unverified: string[];
  /** Every listed member was checked. */
  complete: boolean;
  /** False on any mismatch or missing member, true when complete and clean, null while unknown. */
  ok: boolean | null;
}

/** One of the bundle's two session snapshots. */
export interface BundleSessionLineView {
  /** The line number the viewer gives it: 1 before the run, 2 after. */
  line_number: number;
  label: "before" | "after";
  member: string;
  present: boolean;
  /** Why it did not load (not written by WINK, or not valid), or null. */
  error: string | null;
}

/** The run a bundle records, at a glance: what the run-centred views show first. */
export interface BundleSummaryView {
  /** Bundle file relative to the served directory (or the dropped name). */
  path: string;
  name: string;
  bundle_id: string;
  format_version: string;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  /** `success` or `error` as the manifest says. */
  status: string;
  trigger: string;
  request_id: string;
  session_id: string | null;
  run_id: string | null;
  attempt: number | null;
  /** The request's `iteration` (an app field WINK's examples use), when the input has one. */
  iteration: number | null;
  trace_id: string | null;
  worker_id: string | null;
  /** Bundles with the same group id belong to one request (retries, iterations). */
  group_id: string;
  prompt: { ns: string; key: string; adapter: string };
  build: { version: string; commit: string };
  error: BundleErrorView | null;
  metrics: unknown;
  eval: unknown;
  /** Which members the zip holds (paths relative to `debug_bundle/`). */
  members: string[];
  /** The session lines (before/after) and which one opens by default. */
  session: { lines: BundleSessionLineView[]; default_line: number | null };
  workspace: { files: number; bytes: number; truncated: boolean; notes: string[] };
  integrity: BundleIntegrityView;
  /** Problems reading the bundle that do not stop it from opening. */
  warnings: string[];
}

/** WINK's `/api/meta` for a bundle, with the snapshot fields of our `/api/meta` (null without a session). */
export interface BundleMetaView {
  bundle_id: string;
  created_at: string;
  has_transcript: boolean;
  path: string;
  request_id: string;
  session_id: string | null;
  status: string;
  validation_error: string | null;
  slices: SliceSummaryView[];
  version: string | null;
  line_number: number | null;
  tags: Record<string, string>;
  parent_id: string | null;
  children_ids: string[];
}

/** `/api/bundles`: a bundle of the served directory (WINK's shape; `path` relative to it). */
export interface BundleListItemView {
  path: string;
  name: string;
  created_at: string;
  selected: boolean;
}

/** The bundles of one request, in run order. */
export interface BundleGroupView {
  group_id: string;
  /** What the bundles share: a trace id, a request id, the EvalLoop folder, or nothing (a lone bundle). */
  key: "trace_id" | "request_id" | "folder" | "bundle";
  bundles: BundleSummaryView[];
}

/** One metric of two bundles side by side. */
export interface MetricComparisonView {
  /** Dotted path in `metrics.json`, e.g. `token_usage.input_tokens`. */
  metric: string;
  base: number | null;
  target: number | null;
  /** target − base, when both are numbers. */
  delta: number | null;
}

/** Two bundles compared: status, metrics, workspace and session state. */
export interface BundleCompareView {
  base: BundleSummaryView;
  target: BundleSummaryView;
  same_group: boolean;
  status: { base: string; target: string; changed: boolean };
  metrics: MetricComparisonView[];
  /** Workspace (`filesystem/`) changes from sizes and CRC-32s; details through `/api/diff/file`. */
  files: FilesDiffView;
  /** Slice changes between the two default session lines (after, else before). */
  slices: SliceChangeView[];
}

/** A search hit in one bundle. */
export type BundleSearchHitView =
  | { bundle: string; kind: "log"; line_number: number; level: string; logger: string; event: string; snippet: string }
  | { bundle: string; kind: "transcript"; rowid: number; entry_type: string; snippet: string }
  | { bundle: string; kind: "member"; member: string; snippet: string }
  | { bundle: string; kind: "slice"; line_number: number; slice_type: string; display_name: string; item_index: number; json_path: string; snippet: string }
  | { bundle: string; kind: "file"; path: string; line: number; column: number; snippet: string };

/** `/api/bundles/search`. */
export interface BundleSearchView {
  query: string;
  hits: BundleSearchHitView[];
  truncated: boolean;
  scanned_bundles: number;
}
