/**
 * The one interface every component reaches the data through (from context, see
 * `context.tsx`): `HttpApi` asks a wink-debug server, `LocalApi` computes the same answers
 * in the browser from dropped files or a bundled run, with the same `shared/viewer`
 * functions the server runs. The views ask a route by its name in the route table
 * (`api.ask.timeline(params)`): its request and its answer are typed by the table entry's
 * schemas (as types only, web/api/routes.ts), so the two layers answer the same contract and
 * a route the views ask must be answered by both (the compiler and
 * web/api/route-coverage.test.ts hold them to it).
 */
import type * as V from "../../shared/viewer/index.js";
import type { RouteAnswer, RouteCalls, RouteParams } from "./routes.js";

export type { RunPageQuery } from "../../shared/viewer/index.js";
export type { RouteAnswer, RouteParams } from "./routes.js";

export type BrowseResponse = RouteAnswer<"browse">;
export type FileContentResponse = RouteAnswer<"fileContent">;
export type FileDiffResponse = RouteAnswer<"fileDiff">;
export type FileListResponse = RouteAnswer<"files">;
export type FilesystemMetaResponse = RouteAnswer<"filesystemMeta">;
export type SearchResponse = RouteAnswer<"search">;
export type SliceDiffResponse = RouteAnswer<"sliceDiff">;
export type SlicePageResponse = RouteAnswer<"slicePage">;
export type SnapshotDiffResponse = RouteAnswer<"diff">;
/** `/api/meta` of a session file's line (of a bundle file without `line` it is the bundle's meta). */
export type SnapshotMetaResponse = V.SnapshotMetaView;
export type TimelineResponse = RouteAnswer<"timeline">;
export type ToolCallFileDiffResponse = RouteAnswer<"toolCallDiff">;
export type RunListResponse = RouteAnswer<"runs">;
export type RunResponse = RouteAnswer<"run">;
export type RunSessionPageResponse = RouteAnswer<"runSession">;
export type RunFailurePageResponse = RouteAnswer<"runFailures">;
export type RunSearchResponse = RouteAnswer<"runSearch">;
export type EvalSummaryResponse = RouteAnswer<"failures">;
export type EvalRunResponse = V.EvalRunView;
export type EvalRunPageResponse = RouteAnswer<"evalRuns">;
/** What the eval's run list is filtered by (the URL's `group`, `outcome`, `tag`, `since`, `until`, `q`). */
export type EvalFilter = V.EvalFilter;
export type EvalRunRowResponse = V.EvalRunRowView;
export type FailureGroupResponse = V.FailureGroupView;
export type FailureOccurrencesResponse = RouteAnswer<"failureOccurrences">;
export type FailureOccurrenceResponse = V.FailureOccurrenceView;
export type DiffStatResponse = RouteAnswer<"diffStat">;
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
/** What live reload tells the page (`Api.subscribe`). */
export type LiveNotice = ChangeNotice | "indexed" | null;

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
  /** Every session file (the server answers them a page at a time: all pages, joined). */
  files(): Promise<FileListResponse>;
  /**
   * The routes the views ask, by their names in the route table (`ASKED_ROUTES`): `meta`
   * without `file`, the server's current snapshot; `run` without `file`, the newest run that
   * loads (where the app lands); `runs`, a page of the runs newest first, with their outcome;
   * the WINK debug bundle routes (`bundleLogs`, `bundleSummary`…), a bundle being also a
   * session file above.
   */
  readonly ask: RouteCalls;
  /** Saves one workspace file through the browser's download (never opened as a page). */
  download(params: RouteParams<"download">): Promise<void>;
  /**
   * Calls `onChange` when the data changes (live reload): a change notice, `"indexed"` (session
   * files the server was indexing are ready: the run list's), or null (anything may have
   * changed); returns the unsubscribe function.
   */
  subscribe(onChange: (notice: LiveNotice) => void): () => void;
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

/** A snapshot as a route's selector (`file`, `line`): the `SnapshotRef` itself, named for what it is in a request. */
export const at = (ref: SnapshotRef): { file: string; line: number } => ({ file: ref.file, line: ref.line });

/** Two snapshots as a comparison route's sides (`base_file`, `base_line`, `target_file`, `target_line`). */
export function between(base: SnapshotRef, target: SnapshotRef): { base_file: string; base_line: number; target_file: string; target_line: number } {
  return { base_file: base.file, base_line: base.line, target_file: target.file, target_line: target.line };
}

/** A yes/no request flag as the routes take it: `"1"`, or left out. */
export const flag = (on: boolean | undefined): "1" | undefined => (on === true ? "1" : undefined);
