/**
 * The shapes the viewer's functions return: exactly the JSON the HTTP API sends (snake_case,
 * as WINK's viewer wrote it), so the server and the web app (which runs the same functions
 * on dropped files) agree by construction. `server/schemas/` declares the same shapes as
 * TypeBox schemas and checks at compile time that both stay equal.
 */

/** Whether a slice holds events (tool calls, prompts) or state (plans, files…). */
export type SliceKindView = "state" | "event";

/** One slice of a snapshot without its items (`/api/meta`). */
export interface SliceSummaryView {
  slice_type: string;
  item_type: string;
  /** The class name: the part of the type id after the last `:` or `.`. */
  display_name: string;
  item_display_name: string;
  count: number;
  kind: SliceKindView;
}

/** `/api/meta`: one snapshot line without slice items. */
export interface SnapshotMetaView {
  version: string;
  created_at: string;
  /** Path of the session file relative to the served directory (POSIX separators). */
  path: string;
  session_id: string;
  line_number: number;
  tags: Record<string, string>;
  /** Semantic problems of the line joined by "; " (unknown version, bad timestamp…), or null. */
  validation_error: string | null;
  parent_id: string | null;
  children_ids: string[];
  slices: SliceSummaryView[];
}

/** `/api/entries`: one line of a session file. */
export interface EntryView {
  session_id: string;
  /** `"<session_id> (line N)"`. */
  name: string;
  path: string;
  line_number: number;
  created_at: string;
  tags: Record<string, string>;
  /** True for the selected line only (WINK marked every line of a duplicated id). */
  selected: boolean;
}

/** `/api/slices/:type`: a page of one slice's items. */
export interface SlicePageView {
  slice_type: string;
  item_type: string;
  display_name: string;
  item_display_name: string;
  kind: SliceKindView;
  /** Items as written; strings that look like markdown are wrapped (see `markdown.ts`). */
  items: unknown[];
  offset: number;
  limit: number | null;
  /** Number of items in the whole slice. */
  total: number;
}

/** `/api/snapshots`: a session file in the served directory. */
export interface SnapshotFileView {
  path: string;
  name: string;
  /** ISO-8601 of the file's newest change time (max of ctime and mtime). */
  created_at: string;
}

/** A line of a session file that did not load. */
export interface LineErrorView {
  line_number: number;
  /** `stale`: the file changed on disk after it was indexed (it is re-indexed). */
  kind: "encoding" | "too-long" | "json" | "envelope" | "stale";
  reason: string;
  session_id: string | null;
}

/** One line in the session tree of a file. */
export interface SessionNodeView {
  session_id: string;
  line_number: number;
  created_at: string;
  tags: Record<string, string>;
  parent_id: string | null;
  slice_count: number;
  /** Items in event slices (tool calls, prompts…). */
  event_count: number;
  validation_error: string | null;
  /** `children_ids` that have no line in the file (e.g. a child WINK skipped as empty). */
  missing_children: string[];
  /** The parent session id when the parent has no line in the file. */
  missing_parent_id: string | null;
  children: SessionNodeView[];
}

/** `/api/files`: one session file and its session tree. */
export interface SessionFileView {
  path: string;
  name: string;
  size_bytes: number;
  modified_at: string;
  /** `pending` while the file is being indexed; `error` when it could not be read at all. */
  status: "ready" | "pending" | "error";
  /** Why the file could not be read (status `error`), or why it has no loadable line. */
  error: string | null;
  line_count: number;
  snapshot_count: number;
  errors: LineErrorView[];
  duplicate_session_ids: string[];
  sessions: SessionNodeView[];
}

export interface FileListView {
  /** Name of the served directory (its last path component; never the full host path). */
  root: string;
  /** True while some files are still being indexed (a `change` event follows). */
  indexing: boolean;
  files: SessionFileView[];
}

/** A snapshot as a point of a timeline, a diff side or a search scope. */
export interface SnapshotRefView {
  file: string;
  line_number: number;
  session_id: string;
  created_at: string;
}

export type TimelineEventKind = "tool_call" | "prompt" | "event";

/** One event of a session (an item of an event slice), in time order. */
export interface TimelineEventView {
  /** Position in the timeline (0-based). */
  index: number;
  slice_type: string;
  display_name: string;
  /** Index of the item in its slice (for `/api/slices/:type?offset=<item_index>&limit=1`). */
  item_index: number;
  event_id: string | null;
  created_at: string;
  kind: TimelineEventKind;
  /** Tool name, prompt name or the event's class name. */
  title: string;
  /** The tool result's message, or a one-line summary; null when there is nothing to say. */
  summary: string | null;
  /** Tool calls: `result.success`; null for other events or when unknown. */
  success: boolean | null;
  call_id: string | null;
  duration_ms: number | null;
  /** The error message when the event failed or carries an error. */
  error: string | null;
  /** Tool calls: the parameter that says what the call worked on (path, pattern, command…). */
  argument: TimelineArgumentView | null;
}

/** A tool call's telling parameter, e.g. `{name: "path", value: "src/app.py"}` (one line, clipped). */
export interface TimelineArgumentView {
  name: string;
  value: string;
}

/** What the turns of a session were derived from: its prompt events, its snapshot lines, or nothing (no events). */
export type TurnSourceView = "prompts" | "snapshots" | "none";

/**
 * One turn of a session: a prompt rendered, the tool calls it led to, the prompt executed
 * (or, where a session has no prompt events, the events up to one of its snapshot lines).
 */
export interface TurnView {
  /** 1-based; 0 for events before the first prompt. */
  number: number;
  started_at: string | null;
  ended_at: string | null;
  /** Indices into the timeline's `events`, inclusive; null for a turn without events. */
  first_event: number | null;
  last_event: number | null;
  /** The rendered prompt's name, when the turn started with one. */
  prompt: string | null;
  events: number;
  tool_calls: number;
  failed_calls: number;
  errors: number;
  /** The session's first snapshot line written at or after the turn's end (what it left), or null. */
  snapshot_line: number | null;
}

export type TimelineErrorSource = "tool_call" | "event" | "line" | "validation";

/** An error of a session, aggregated from every place errors appear. */
export interface TimelineErrorView {
  source: TimelineErrorSource;
  message: string;
  line_number: number;
  /** Index into `events` for tool-call and event errors. */
  event_index: number | null;
  slice_type: string | null;
  item_index: number | null;
}

export interface ToolStatsView {
  name: string;
  count: number;
  failed: number;
}

/** `/api/timeline`: a session's snapshots, events, tool calls and errors. */
export interface TimelineView {
  session_id: string;
  file: string;
  line_number: number;
  started_at: string | null;
  ended_at: string | null;
  /** Every line of the session in the file, in time order. */
  snapshots: (SnapshotRefView & { selected: boolean })[];
  events: TimelineEventView[];
  tool_calls: { total: number; failed: number; by_name: ToolStatsView[] };
  errors: TimelineErrorView[];
  /** The session's turns (see {@link TurnView}), in order; together they hold every event. */
  turns: TurnView[];
  turn_source: TurnSourceView;
  /** What each tool call changed, when a per-tool-call undo store lies next to the session file (absent otherwise). */
  changes?: TimelineChangesView;
}

/** How a tool call changed a path (`unknown`: the store recorded no post-state). */
export type ToolCallChangeKind = "added" | "modified" | "deleted" | "type-changed" | "unknown";

/** What a path was before a tool call or became after it. */
export type UndoPathKindView = "file" | "directory" | "absent";

/** One path a tool call changed. */
export interface ToolCallFileView {
  path: string;
  change: ToolCallChangeKind;
  before: UndoPathKindView;
  /** Null when the post-state is unknown. */
  after: UndoPathKindView | null;
  before_size: number | null;
  after_size: number | null;
}

/** One tool call of the timeline as the undo store recorded it. */
export interface ToolCallChangesView {
  call_id: string;
  /** Index into the timeline's `events` of the tool call's event. */
  event_index: number;
  turn_id: string | null;
  captured_at: string;
  /** The call's changes were rolled back (restore of the call, or a turn rollback); the store's state now, not at this line. */
  undone: boolean;
  restored_at: string | null;
  /** Changed paths, sorted (empty: the call was tracked and changed nothing). */
  files: ToolCallFileView[];
}

/** `/api/timeline` `changes`: the undo store's view of the line's tool calls. */
export interface TimelineChangesView {
  /** Tool calls of `events` the store recorded, in timeline order. */
  tool_calls: ToolCallChangesView[];
  /** Calls the store recorded for this session that this line's events do not hold (other turns). */
  other_calls: number;
  /** Manifests that could not be read, in a sentence each. */
  problems: string[];
}

/** One side of a tool call's file diff. */
export interface ToolCallSideView {
  kind: UndoPathKindView;
  /** File size (null for directories, absent paths and unknown sizes). */
  size_bytes: number | null;
  /** UTF-8 text of a file; null when binary, over the text limit, unavailable, or not a file. */
  text: string | null;
}

/** Where the post-state of a tool call's file came from. */
export type ToolCallAfterSource = "recorded" | "next_call" | "workspace" | "unknown";

/** `/api/timeline/tool-call-diff`: one file a tool call changed, pre-image against post-state. */
export interface ToolCallFileDiffView {
  call_id: string;
  path: string;
  change: ToolCallChangeKind | "unchanged";
  before: ToolCallSideView;
  /** Null when the post-state is unknown. */
  after: ToolCallSideView | null;
  /**
   * `recorded`: the post-image stored when the call finished; `next_call`: the pre-image the
   * session's next call touching the path captured; `workspace`: the file in the workspace of
   * `after_snapshot` (the session's first snapshot line after the call); `unknown`.
   */
  after_source: ToolCallAfterSource;
  after_snapshot: SnapshotRefView | null;
  undone: boolean;
  restored_at: string | null;
  binary: boolean;
  engine: DiffEngine;
  hunks: HunkView[];
  /** Why there are no hunks, or a caveat about the post-state. */
  note: string | null;
}

export type FilesystemSourceKind = "archive" | "virtual_filesystem";

/** `/api/filesystem/meta`. */
export interface FilesystemMetaView {
  has_archive: boolean;
  source: FilesystemSourceKind | null;
  /** File name of the archive (next to the session file), or null. */
  archive: string | null;
  /** The archive's manifest as written (`manifest.json` or `_wink_metadata.json`), or null. */
  manifest: unknown;
  file_count: number;
  total_bytes: number;
  /** Why no filesystem could be opened (missing or corrupt archive), or null. */
  error: string | null;
}

/** `/api/filesystem/tree`: one file. */
export interface FileTreeEntryView {
  path: string;
  size_bytes: number;
}

export type ChangeKind = "added" | "modified" | "deleted";

/** `/api/filesystem/browse`: a node of the nested file tree. */
export interface FileTreeNodeView {
  name: string;
  path: string;
  type: "file" | "directory";
  /** File size, or the total of the files below a directory (deleted files not counted). */
  size_bytes: number;
  /** Change against the base snapshot (a directory's own change is null). */
  change: ChangeKind | null;
  /** Changed files at or below this node. */
  changed_count: number;
  children?: FileTreeNodeView[];
}

/** `/api/filesystem/file`: one file's content as data. */
export interface FileContentView {
  path: string;
  size_bytes: number;
  type: "text" | "image" | "binary";
  mime_type: string | null;
  /** Text (UTF-8 lines from `offset`), base64 for images, null for binary files. */
  content: string | null;
  encoding: "utf-8" | "base64" | null;
  /** First line returned (0-based; text only). */
  offset: number;
  /** Lines asked for, or null for all. */
  limit: number | null;
  total_lines: number | null;
  /** True when lines after `offset + limit` were left out. */
  truncated: boolean;
}

/** One hunk of a unified diff. */
export interface HunkView {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  /** Lines prefixed with " ", "-", "+" or "\\" (no newline at end of file). */
  lines: string[];
}

/** How a text diff was computed. */
export type DiffEngine = "jsdiff" | "git" | "none";

/** How a file changed between two snapshots; `renamed`/`copied` as git's `-M`/`-C` find them. */
export type FileChangeStatus = ChangeKind | "renamed" | "copied";

export interface FileChangeView {
  /** The file in the target (for a deleted file: in the base). */
  path: string;
  status: FileChangeStatus;
  /** Renamed or copied: the base file it came from; null otherwise. */
  old_path: string | null;
  /** Renamed or copied: git's similarity index in percent (100 for an exact rename); null otherwise. */
  similarity: number | null;
  base_size: number | null;
  target_size: number | null;
}

/** What rename detection did for an answer. */
export interface RenameDetectionView {
  renames: boolean;
  copies: boolean;
  /** Minimum similarity in percent. */
  threshold: number;
  /** Too many candidates (git's `diff.renameLimit`): only exact renames were looked for. */
  limited: boolean;
}

export type SliceChangeStatus = "added" | "removed" | "changed" | "unchanged";

export interface SliceChangeView {
  slice_type: string;
  display_name: string;
  kind: SliceKindView;
  status: SliceChangeStatus;
  base_count: number;
  target_count: number;
  /** Items only in the target / only in the base / at the same key but different. */
  added: number;
  removed: number;
  changed: number;
}

export interface FilesDiffView {
  base_source: FilesystemSourceKind | null;
  target_source: FilesystemSourceKind | null;
  changes: FileChangeView[];
  added: number;
  modified: number;
  deleted: number;
  renamed: number;
  copied: number;
  unchanged_count: number;
  rename_detection: RenameDetectionView;
}

/** `/api/diff`: what changed between two snapshots. */
export interface SnapshotDiffView {
  base: SnapshotRefView;
  target: SnapshotRefView;
  files: FilesDiffView;
  slices: SliceChangeView[];
}

/** `/api/diff/file`: the text diff of one file. */
export interface FileDiffView {
  path: string;
  /** The base file compared with `path` when it was renamed or copied; null otherwise. */
  old_path: string | null;
  status: ChangeKind | "renamed" | "unchanged";
  base_size: number | null;
  target_size: number | null;
  binary: boolean;
  engine: DiffEngine;
  hunks: HunkView[];
  /** Why no hunks are given although the file changed (binary, too large, too complex). */
  note: string | null;
}

export interface SliceItemChangeView {
  /** Item key: `event_id` for events, the index for state items. */
  key: string;
  status: SliceChangeStatus;
  base_index: number | null;
  target_index: number | null;
}

/** `/api/diff/slice`: one slice compared item by item, plus a text diff of its JSON. */
export interface SliceDiffView {
  slice_type: string;
  display_name: string;
  status: SliceChangeStatus;
  base_count: number;
  target_count: number;
  items: SliceItemChangeView[];
  engine: DiffEngine;
  hunks: HunkView[];
  note: string | null;
}

export type SearchHitView =
  | {
      kind: "slice";
      slice_type: string;
      display_name: string;
      item_index: number;
      /** Where in the item the match is, e.g. `result.message` or `steps[2].title`. */
      json_path: string;
      snippet: string;
    }
  | {
      kind: "file";
      path: string;
      /** 1-based line; 0 when the file name matched. */
      line: number;
      column: number;
      snippet: string;
    };

/** `/api/search`. */
export interface SearchView {
  query: string;
  hits: SearchHitView[];
  /** True when the hit limit, byte budget or time budget stopped the search early. */
  truncated: boolean;
  scanned_files: number;
  scanned_bytes: number;
  /** Files that could not be read (a corrupt or refused archive entry): skipped, the search went on. */
  skipped_files: SearchSkippedFileView[];
}

/** A file a search could not read, and why. */
export interface SearchSkippedFileView {
  path: string;
  detail: string;
}

/** Where a run comes from: a session file (JSONL) with its archives, or a WINK debug bundle. */
export type RunSourceKind = "session_file" | "bundle";

export interface RunSourceView {
  kind: RunSourceKind;
  /** Relative to the served directory (POSIX separators): the run's id in URLs. */
  path: string;
  name: string;
}

/** A run-level error (a bundle's `error.json`): what failed, with its traceback when recorded. */
export interface RunErrorView {
  message: string;
  type: string | null;
  traceback: string | null;
}

/** A view a run's source offers beyond the session views (a bundle's logs, transcript…). */
export interface RunPanelView {
  id: string;
  title: string;
}

/** A session's or a run's outcome in numbers. */
export interface RunStatsView {
  /** `failed`: a tool call failed, an event carries an error, a line did not load, or the run recorded an error. */
  outcome: "ok" | "failed";
  failed_calls: number;
  /** Events carrying an error (failed calls included). */
  errors: number;
  tool_calls: number;
  events: number;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
}

/** A snapshot line of a session, named by what it holds. */
export interface RunSnapshotView {
  line_number: number;
  created_at: string;
  /** The turn the line closes (or was written during); null before any turn. */
  turn: number | null;
  /** The workspace archive its `FilesystemSnapshotRef` names, when known. */
  archive: string | null;
  /** E.g. `turn 16 · turn-16.fs.zip`. */
  label: string;
  /** The session's latest line (it holds the whole history). */
  latest: boolean;
}

/** Where a child session ran in its parent. */
export interface RunSpawnView {
  parent_session_id: string;
  /** When the child started (its first event, else its first line). */
  at: string;
  /** The parent's turn at that time. */
  turn: number | null;
  /** The parent's line to show with the child: the first that lists it, else the first written after it started. */
  parent_line: number | null;
  /** The parent's last event before the child started (index into the parent's timeline). */
  parent_event_index: number | null;
}

export interface RunSessionView {
  session_id: string;
  parent_session_id: string | null;
  /** 0 for a root session; children are listed after their parent, deeper by one. */
  depth: number;
  /** The agent's name (`agent`, `app` or `name` tag, or its first prompt), else null. */
  title: string | null;
  latest_line: number;
  validation_error: string | null;
  stats: RunStatsView;
  turn_source: TurnSourceView;
  turns: TurnView[];
  snapshots: RunSnapshotView[];
  spawned: RunSpawnView | null;
  /** Child session ids, in the order they ran. */
  children: string[];
  /** `children_ids` the session's lines name that have no line in the source (WINK skips empty children). */
  missing_children: string[];
}

/**
 * A failed tool call (or an event carrying an error), placed in its session and turn. A
 * failure found in a bundle's transcript only (no session event records it) has no event:
 * `event_index`, `slice_type` and `item_index` are null and `transcript_rowid` names it.
 */
export interface RunFailureView {
  session_id: string;
  /** The session's latest line (its timeline holds the event). */
  line_number: number;
  event_index: number | null;
  slice_type: string | null;
  item_index: number | null;
  /** The transcript entry (a bundle's `tool_result`) that records the failure, or null. */
  transcript_rowid: number | null;
  kind: TimelineEventKind;
  /** Tool name, or the event's title. */
  title: string;
  call_id: string | null;
  argument: TimelineArgumentView | null;
  message: string;
  turn: number | null;
  created_at: string;
  /** Milliseconds since the run started. */
  offset_ms: number | null;
}

/** A failed tool call a run's source records outside its session events (a bundle's transcript). */
export interface RunExtraFailure {
  title: string;
  call_id: string | null;
  argument: TimelineArgumentView | null;
  message: string;
  created_at: string;
  transcript_rowid: number;
}

/** `/api/runs`: a run as the sidebar lists it. */
export interface RunSummaryView {
  source: RunSourceView;
  /** The root agent's name, else the file name. */
  title: string;
  root_session_id: string | null;
  modified_at: string;
  /** `pending` while the file is being indexed; `error` when it cannot be read or has no loadable line. */
  state: "ready" | "pending" | "error";
  problem: string | null;
  stats: RunStatsView;
  session_count: number;
  snapshot_count: number;
  /** Lines of the file that did not load. */
  load_errors: number;
  error: RunErrorView | null;
  panels: RunPanelView[];
}

/** `/api/run`: a run with its sessions (root first, children under their parent), turns, snapshots and failures. */
export interface RunView extends RunSummaryView {
  sessions: RunSessionView[];
  /** Every failure of every session, in time order. */
  failures: RunFailureView[];
}

/** Where the runs are read from (`/api/runs`'s `store`). */
export interface RunStoreView {
  /** `local`: a folder (or dropped files); `s3`, `http`: a remote store. */
  kind: "local" | "s3" | "http";
  /** The folder, or the store's URL (never with credentials). */
  location: string;
  /** Pages and objects of the current (or last) listing; `done` once complete. */
  listing: { pages: number; objects: number; done: boolean };
  /** A remote store's live reload (`--poll`): whether the last poll failed and why; null without polling. */
  health: { ok: boolean; code: string | null; detail: string | null; checked_at: string | null } | null;
}

export interface RunListView {
  root: string;
  indexing: boolean;
  /** Newest first: the page asked for (every run by default). */
  runs: RunSummaryView[];
  /** Every run, and the runs the filter kept. */
  total: number;
  matched: number;
  /** Where `runs` starts among the matched runs. */
  offset: number;
  store: RunStoreView;
}

/** Hits of a run search that share a place: one turn's events, a session's state, or one snapshot's files. */
export interface RunSearchGroupView {
  session_id: string;
  /** The line to open the hits at (the session's latest line; for files, the snapshot holding them). */
  line_number: number;
  turn: number | null;
  /** `events`: items of event slices (by turn); `state`: the latest state slices; `files`: a snapshot's workspace. */
  scope: "events" | "state" | "files";
  /** E.g. `turn 3 · turn-3.fs.zip`. */
  label: string;
  hits: SearchHitView[];
}

/** `/api/run/search`: a search across every snapshot of a session and its children. */
export interface RunSearchView {
  query: string;
  regex: boolean;
  groups: RunSearchGroupView[];
  hit_count: number;
  truncated: boolean;
  /** Workspace snapshots searched; files unchanged since an earlier snapshot of the session are searched once. */
  snapshots_searched: number;
  scanned_files: number;
  scanned_bytes: number;
  /** Files that could not be read (a corrupt or refused archive entry), with the snapshot holding them: skipped, the search went on. */
  skipped_files: RunSearchSkippedFileView[];
}

/** A file a run search could not read, in the snapshot that holds it. */
export interface RunSearchSkippedFileView extends SearchSkippedFileView {
  session_id: string;
  line_number: number;
}

/** Lines added and removed in one changed file (`git diff --numstat`). */
export interface FileStatView {
  path: string;
  /** Null for binary files and diffs that ran out of time. */
  added: number | null;
  removed: number | null;
  binary: boolean;
}

/** `/api/diff/stat`: line counts of the changed files (in the order `/api/diff` lists them). */
export interface DiffStatView {
  files: FileStatView[];
  /** The file, byte or time budget ran out: later files have no entry. */
  truncated: boolean;
}
