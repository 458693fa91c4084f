/**
 * The one interface every component reaches the data through (from context, see
 * `context.tsx`): `HttpApi` asks a wink-debug server, `LocalApi` computes the same answers
 * in the browser from dropped files or a bundled run, with the same `shared/viewer`
 * functions the server runs. Response types are
 * the library's, derived from the TypeBox schemas the server declares its routes with.
 */
import type * as V from "../../shared/viewer/index.js";
import type { RunPageQuery } from "../../shared/viewer/index.js";
import type { BundleApi } from "./bundle-api.js";

export type { RunPageQuery } from "../../shared/viewer/index.js";

export type BrowseResponse = V.BrowseView;
export type FileContentResponse = V.FileContentView;
export type FileDiffResponse = V.FileDiffView;
export type FileListResponse = V.FileListView;
export type FilesystemMetaResponse = V.FilesystemMetaView;
export type SearchResponse = V.SearchView;
export type SliceDiffResponse = V.SliceDiffView;
export type SlicePageResponse = V.SlicePageView;
export type SnapshotDiffResponse = V.SnapshotDiffView;
export type SnapshotMetaResponse = V.SnapshotMetaView;
export type TimelineResponse = V.TimelineView;
export type ToolCallFileDiffResponse = V.ToolCallFileDiffView;
export type RunListResponse = V.RunListView;
export type RunResponse = V.RunView;
export type RunSessionPageResponse = V.RunSessionPageView;
export type RunFailurePageResponse = V.RunFailurePageView;
/** How a comparison finds moved files: renames always (at 50 %, as git), copies on request (git's -C). */
export interface DiffOptions {
  readonly copies?: boolean;
}
export type RunSearchResponse = V.RunSearchView;
export type EvalSummaryResponse = V.EvalSummaryView;
export type EvalRunResponse = V.EvalRunView;
export type FailureGroupResponse = V.FailureGroupView;
export type FailureOccurrencesResponse = V.FailureOccurrencesView;
export type FailureOccurrenceResponse = V.FailureOccurrenceView;
export type DiffStatResponse = V.DiffStatView;
export type SessionFileResponse = FileListResponse["files"][number];
export type SessionNodeResponse = SessionFileResponse["sessions"][number];
export type TimelineEventResponse = TimelineResponse["events"][number];
export type FileTreeNodeResponse = BrowseResponse["root"];
export type SearchHitResponse = SearchResponse["hits"][number];
export type HunkResponse = FileDiffResponse["hunks"][number];
export type ToolCallChangesResponse = NonNullable<TimelineResponse["changes"]>["tool_calls"][number];
export type ToolCallFileResponse = ToolCallChangesResponse["files"][number];
export type RunSummaryResponse = V.RunListView["runs"][number];
export type RunSessionResponse = V.RunView["sessions"][number];
export type RunFailureResponse = V.RunView["failures"][number];
export type RunSnapshotResponse = RunSessionResponse["snapshots"][number];
export type TurnResponse = RunSessionResponse["turns"][number];
export type FileChangeResponse = V.SnapshotDiffView["files"]["changes"][number];
export type RunSearchGroupResponse = V.RunSearchView["groups"][number];

/** One snapshot: a line of a session file. */
export interface SnapshotRef {
  /** Session file path relative to the served directory (or the dropped file's name). */
  readonly file: string;
  /** 1-based physical line number. */
  readonly line: number;
}

export type SearchScope = "all" | "slices" | "files";

/** The sidebar's run filter: name contains `q`; modified in [`since`, `until`] (dates, "" for none). */
export interface RunFilter {
  readonly q: string;
  readonly since: string;
  readonly until: string;
}

/** What changed in the served directory (the server's `change` event, defined once in the route table). */
export type { ChangeNotice } from "../../shared/viewer/routes/index.js";
import type { ChangeNotice } from "../../shared/viewer/routes/index.js";

export interface Api {
  /** `http`: a wink-debug server; `local`: files opened in this page. */
  readonly kind: "http" | "local";
  /** What the header shows as the source (the served directory's name, or "dropped files"). */
  readonly label: string;
  files(): Promise<FileListResponse>;
  /** The runs (session files; later also bundles), newest first, with their outcome: a page of those the filter keeps (default: every run). */
  runs(query?: RunPageQuery): Promise<V.RunListView>;
  /** One run in full; without `file`, the newest run that loads (where the app lands). */
  run(file?: string): Promise<V.RunView>;
  /** A stretch of one session's turns and snapshots from `offset` (what `run` leaves out of a long session: its `truncated`). */
  runSession(file: string, session: string, offset: number, limit: number): Promise<V.RunSessionPageView>;
  /** A stretch of the run's failures from `offset` (what `run` leaves out of a run of many: its `truncated.failures`). */
  runFailures(file: string, offset: number, limit: number): Promise<V.RunFailurePageView>;
  /** The eval: every run's outcome and place, and the failure groups across them (`/api/failures`). */
  failures(): Promise<V.EvalSummaryView>;
  /** One failure group's occurrences, earliest first. */
  failureOccurrences(signature: string): Promise<V.FailureOccurrencesView>;
  /** Search across every snapshot of `session` (default: the run's root) and its children. */
  runSearch(file: string, session: string | null, query: string, regex: boolean, limit: number): Promise<V.RunSearchView>;
  /** A snapshot's metadata; without `ref`, the server's current snapshot (where the app starts). */
  meta(ref?: SnapshotRef): Promise<V.SnapshotMetaView>;
  timeline(ref: SnapshotRef): Promise<TimelineResponse>;
  slicePage(ref: SnapshotRef, sliceType: string, offset: number, limit: number): Promise<V.SlicePageView>;
  filesystemMeta(ref: SnapshotRef): Promise<V.FilesystemMetaView>;
  /** The workspace tree with change badges against `base` (`previous`: the session's previous line). */
  browse(ref: SnapshotRef, base: SnapshotRef | "previous" | "none"): Promise<BrowseResponse>;
  fileContent(ref: SnapshotRef, path: string, range?: { offset?: number; limit?: number }): Promise<V.FileContentView>;
  /** Saves one workspace file through the browser's download (never opened as a page). */
  download(ref: SnapshotRef, path: string): Promise<void>;
  /** The changed files and slices; copies are looked for only with `copies` (as git's -C). */
  diff(base: SnapshotRef, target: SnapshotRef, options?: DiffOptions): Promise<V.SnapshotDiffView>;
  /** Lines added and removed per changed file (renames and copies against their source). */
  diffStat(base: SnapshotRef, target: SnapshotRef, options?: DiffOptions): Promise<V.DiffStatView>;
  /** One file's diff; `basePath` names the file in the base when it was renamed or copied. */
  fileDiff(base: SnapshotRef, target: SnapshotRef, path: string, basePath?: string | null): Promise<FileDiffResponse>;
  sliceDiff(base: SnapshotRef, target: SnapshotRef, sliceType: string): Promise<V.SliceDiffView>;
  search(ref: SnapshotRef, query: string, scope: SearchScope, limit: number): Promise<SearchResponse>;
  /** One file a tool call changed, pre-image against post-state (only where the timeline has `changes`). */
  toolCallDiff(ref: SnapshotRef, callId: string, path: string): Promise<V.ToolCallFileDiffView>;
  /** Calls `onChange` when the data changes (live reload); returns the unsubscribe function. */
  subscribe(onChange: (notice: ChangeNotice | null) => void): () => void;
  /** WINK debug bundles (logs, transcript, error, environment, compare, search); each is also a session file above. */
  readonly bundles: BundleApi;
}

/**
 * A failed request: the HTTP status (0 for a network failure), the server's `detail` and its
 * stable `code` when it sent one (docs/api.md; `E_SOURCE_*` when a remote store failed).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string | null = null,
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

/** `file:line`, the form snapshot refs take in keys and labels. */
export function refKey(ref: SnapshotRef): string {
  return `${ref.file}:${ref.line}`;
}

export function sameRef(a: SnapshotRef | null | undefined, b: SnapshotRef | null | undefined): boolean {
  return a != null && b != null && a.file === b.file && a.line === b.line;
}
