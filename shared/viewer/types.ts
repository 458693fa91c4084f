/**
 * The shapes the viewer's functions return: exactly the JSON the HTTP API sends (snake_case,
 * as WINK's viewer wrote it), so the server and the web app (which runs the same functions
 * on dropped files) agree by construction. Each shape is written once, as a TypeBox schema in
 * `./schemas/` (where its fields are documented); the types here are derived from them, and
 * the server declares its responses with the same schemas. A new shape needs no line here:
 * `View<"Timeline">` is any schema's type by its name, and a route's request and answer are
 * typed by its table entry (`RouteRequest`, `RouteResponse`; the web's `RouteAnswer<name>`).
 */
import type { Static, TSchema } from "typebox";
import type * as S from "./schemas/index.js";

/** The type of the schema `./schemas/` exports as `Name` (`View<"Run">` is `RunView`). */
export type View<Name extends keyof typeof S> = (typeof S)[Name] extends TSchema ? Static<(typeof S)[Name]> : never;

/** `{detail, code}`: every error the API answers with (see `ErrorBody`). */
export type ErrorBodyView = Static<typeof S.ErrorBody>;

/** Whether a slice holds events (tool calls, prompts) or state (plans, files…). */
export type SliceKindView = Static<typeof S.SliceKind>;
/** One slice of a snapshot without its items (`/api/meta`). */
export type SliceSummaryView = Static<typeof S.SliceSummary>;
/** `/api/meta`: one snapshot line without slice items. */
export type SnapshotMetaView = Static<typeof S.SnapshotMeta>;
/** `/api/entries`: one line of a session file. */
export type EntryView = Static<typeof S.Entry>;
/** `/api/slices/:type`: a page of one slice's items. */
export type SlicePageView = Static<typeof S.SlicePage>;
/** `/api/snapshots`: a session file in the served directory. */
export type SnapshotFileView = Static<typeof S.SnapshotFile>;

/** A line of a session file that did not load. */
export type LineErrorView = Static<typeof S.LineError>;
/** One line in the session tree of a file. */
export type SessionNodeView = Static<typeof S.SessionNode>;
/** `/api/files`: one session file and its session tree. */
export type SessionFileView = Static<typeof S.SessionFile>;
export type FileListView = Static<typeof S.FileList>;

/** A snapshot as a point of a timeline, a diff side or a search scope. */
export type SnapshotRefView = Static<typeof S.SnapshotRef>;
export type TimelineEventKind = Static<typeof S.TimelineEventKind>;
/** One event of a session (an item of an event slice), in time order. */
export type TimelineEventView = Static<typeof S.TimelineEvent>;
/** A tool call's telling parameter, e.g. `{name: "path", value: "src/app.py"}` (one line, clipped). */
export type TimelineArgumentView = Static<typeof S.TimelineArgument>;
/** What the turns of a session were derived from: its prompt events, its snapshot lines, or nothing (no events). */
export type TurnSourceView = Static<typeof S.TurnSource>;
/** One turn of a session: a prompt rendered, the tool calls it led to, the prompt executed. */
export type TurnView = Static<typeof S.Turn>;
export type TimelineErrorSource = Static<typeof S.TimelineErrorSource>;
/** An error of a session, aggregated from every place errors appear. */
export type TimelineErrorView = Static<typeof S.TimelineError>;
export type ToolStatsView = Static<typeof S.ToolStats>;
/** `/api/timeline`: a session's snapshots, events, tool calls and errors. */
export type TimelineView = Static<typeof S.Timeline>;

/** How a tool call changed a path (`unknown`: the store recorded no post-state). */
export type ToolCallChangeKind = Static<typeof S.ToolCallChangeKind>;
/** What a path was before a tool call or became after it. */
export type UndoPathKindView = Static<typeof S.UndoPathKind>;
/** One path a tool call changed. */
export type ToolCallFileView = Static<typeof S.ToolCallFile>;
/** One tool call of the timeline as the undo store recorded it. */
export type ToolCallChangesView = Static<typeof S.ToolCallChanges>;
/** `/api/timeline` `changes`: the undo store's view of the line's tool calls. */
export type TimelineChangesView = Static<typeof S.TimelineChanges>;
/** One side of a tool call's file diff. */
export type ToolCallSideView = Static<typeof S.ToolCallSide>;
/** Where the post-state of a tool call's file came from. */
export type ToolCallAfterSource = Static<typeof S.ToolCallAfterSource>;
/** `/api/timeline/tool-call-diff`: one file a tool call changed, pre-image against post-state. */
export type ToolCallFileDiffView = Static<typeof S.ToolCallFileDiff>;

export type FilesystemSourceKind = Static<typeof S.FilesystemSourceKind>;
/** `/api/filesystem/meta`. */
export type FilesystemMetaView = Static<typeof S.FilesystemMeta>;
/** `/api/filesystem/tree`: one file. */
export type FileTreeEntryView = Static<typeof S.FileTreeEntry>;
export type ChangeKind = Static<typeof S.ChangeKind>;
/** `/api/filesystem/browse`: a node of the nested file tree. */
export type FileTreeNodeView = Static<typeof S.FileTreeNode>;
/** `/api/filesystem/browse`: the nested tree and what its badges compare against. */
export type BrowseView = Static<typeof S.Browse>;
/** `/api/filesystem/file`: one file's content as data. */
export type FileContentView = Static<typeof S.FileContent>;

/** One hunk of a unified diff. */
export type HunkView = Static<typeof S.Hunk>;
/** How a text diff was computed. */
export type DiffEngine = Static<typeof S.DiffEngine>;
/** How a file changed between two snapshots; `renamed`/`copied` as git's `-M`/`-C` find them. */
export type FileChangeStatus = Static<typeof S.FileChangeStatus>;
export type FileChangeView = Static<typeof S.FileChange>;
/** What rename detection did for an answer. */
export type RenameDetectionView = Static<typeof S.RenameDetection>;
export type SliceChangeStatus = Static<typeof S.SliceChangeStatus>;
export type SliceChangeView = Static<typeof S.SliceChange>;
export type FilesDiffView = Static<typeof S.FilesDiff>;
/** `/api/diff`: what changed between two snapshots. */
export type SnapshotDiffView = Static<typeof S.SnapshotDiff>;
/** `/api/diff/file`: the text diff of one file. */
export type FileDiffView = Static<typeof S.FileDiff>;
export type SliceItemChangeView = Static<typeof S.SliceItemChange>;
/** `/api/diff/slice`: one slice compared item by item, plus a text diff of its JSON. */
export type SliceDiffView = Static<typeof S.SliceDiff>;
/** Lines added and removed in one changed file (`git diff --numstat`). */
export type FileStatView = Static<typeof S.FileStat>;
/** `/api/diff/stat`: line counts of the changed files (in the order `/api/diff` lists them). */
export type DiffStatView = Static<typeof S.DiffStat>;

export type SearchHitView = Static<typeof S.SearchHit>;
/** `/api/search`. */
export type SearchView = Static<typeof S.SearchResult>;
/** A file a search could not read, and why. */
export type SearchSkippedFileView = Static<typeof S.SearchSkippedFile>;

/** Where a run comes from: a session file (JSONL) with its archives, or a WINK debug bundle. */
export type RunSourceKind = Static<typeof S.RunSourceKind>;
export type RunSourceView = Static<typeof S.RunSource>;
/** A run-level error (a bundle's `error.json`): what failed, with its traceback when recorded. */
export type RunErrorView = Static<typeof S.RunError>;
/** A view a run's source offers beyond the session views (a bundle's logs, transcript…). */
export type RunPanelView = Static<typeof S.RunPanel>;
/** A session's or a run's outcome in numbers. */
export type RunStatsView = Static<typeof S.RunStats>;
/** A snapshot line of a session, named by what it holds. */
export type RunSnapshotView = Static<typeof S.RunSnapshot>;
/** Where a child session ran in its parent. */
export type RunSpawnView = Static<typeof S.RunSpawn>;
export type RunSessionView = Static<typeof S.RunSession>;
/** How much of a session's turns or snapshots `/api/run` leaves out. */
export type RunListCutView = Static<typeof S.RunListCut>;
/** `/api/run/session`: a stretch of a session's turns and snapshots. */
export type RunSessionPageView = Static<typeof S.RunSessionPage>;
/** `/api/run/failures`: a stretch of a run's failures. */
export type RunFailurePageView = Static<typeof S.RunFailurePage>;
/** A failed tool call (or an event carrying an error), placed in its session and turn. */
export type RunFailureView = Static<typeof S.RunFailure>;
/** `/api/runs`: a run as the sidebar lists it. */
export type RunSummaryView = Static<typeof S.RunSummary>;
/** `/api/run`: a run with its sessions, turns, snapshots and failures. */
export type RunView = Static<typeof S.Run>;
/** Where the runs are read from (`/api/runs`'s `store`). */
export type RunStoreView = Static<typeof S.RunStore>;
export type RunListView = Static<typeof S.RunList>;
/** Hits of a run search that share a place: one turn's events, a session's state, or one snapshot's files. */
export type RunSearchGroupView = Static<typeof S.RunSearchGroup>;
/** `/api/run/search`: a search across every snapshot of a session and its children. */
export type RunSearchView = Static<typeof S.RunSearchResult>;
/** A file a run search could not read, in the snapshot that holds it. */
export type RunSearchSkippedFileView = Static<typeof S.RunSearchSkippedFile>;

/** A failed tool call a run's source records outside its session events (a bundle's transcript); not sent as such. */
export interface RunExtraFailure {
  title: string;
  call_id: string | null;
  argument: TimelineArgumentView | null;
  message: string;
  created_at: string;
  transcript_rowid: number;
}

/** `call`: a failed tool call; `run_error`: the run's own error. */
export type FailureKindView = Static<typeof S.FailureKind>;
/** One failure of a run: a failed call, or the run's error. */
export type RunFailureDigestView = Static<typeof S.RunFailureDigest>;
/** A run as the failure report counts it: loaded (outcome, times, failures), or not loaded and why. */
export type RunDigestView = Static<typeof S.RunDigest>;
/** Failures with one signature, across runs. */
export type FailureGroupView = Static<typeof S.FailureGroup>;
/** `wink-debug failures --json`. */
export type FailureReportView = Static<typeof S.FailureReport>;
/** A run as the eval view lists it. */
export type EvalRunView = Static<typeof S.EvalRun>;
/** How far the server's run index got (`/api/failures`'s `index`). */
export type IndexProgressView = Static<typeof S.IndexProgress>;
/** `GET /api/failures`: outcomes and failure groups of the target (its runs: `EvalRunPageView`). */
export type EvalSummaryView = Static<typeof S.EvalSummary>;
/** A run of the eval's run list, with the passing run of its sample to compare with. */
export type EvalRunRowView = Static<typeof S.EvalRunRow>;
/** `GET /api/failures/runs`: a page of the runs the filters keep. */
export type EvalRunPageView = Static<typeof S.EvalRunPage>;
/** One occurrence of a failure group. */
export type FailureOccurrenceView = Static<typeof S.FailureOccurrence>;
/** `GET /api/failures/occurrences`. */
export type FailureOccurrencesView = Static<typeof S.FailureOccurrences>;
