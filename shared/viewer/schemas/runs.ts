/**
 * Runs: a session file or a WINK debug bundle as what the viewer opens on (its sessions,
 * turns, snapshots, failures and outcome), the page of runs, and the search across a run.
 */
import { Type } from "typebox";
import { NullableInteger, NullableNumber, NullableString } from "./common.js";
import { SearchHit, SearchSkippedFile } from "./search.js";
import { TimelineArgument, TimelineEventKind, Turn, TurnSource } from "./sessions.js";

/** A session's or a run's outcome in numbers. */
export const RunStats = Type.Object({
  /** `failed`: a tool call failed, an event carries an error, a line did not load, or the run recorded an error. */
  outcome: Type.Union([Type.Literal("ok"), Type.Literal("failed")]),
  failed_calls: Type.Integer(),
  /** Events carrying an error (failed calls included). */
  errors: Type.Integer(),
  tool_calls: Type.Integer(),
  events: Type.Integer(),
  started_at: NullableString,
  ended_at: NullableString,
  duration_ms: NullableNumber,
});

/** Where a run comes from: a session file (JSONL) with its archives, or a WINK debug bundle. */
export const RunSourceKind = Type.Union([Type.Literal("session_file"), Type.Literal("bundle")]);

export const RunSource = Type.Object({
  kind: RunSourceKind,
  /** Relative to the served directory (POSIX separators): the run's id in URLs. */
  path: Type.String(),
  name: Type.String(),
});

/** A run-level error (a bundle's `error.json`): what failed, with its traceback when recorded. */
export const RunError = Type.Object({ message: Type.String(), type: NullableString, traceback: NullableString });

/** A view a run's source offers beyond the session views (a bundle's logs, transcript…). */
export const RunPanel = Type.Object({ id: Type.String(), title: Type.String() });

const runSummaryProperties = {
  source: RunSource,
  /** The root agent's name, else the file name. */
  title: Type.String(),
  root_session_id: NullableString,
  modified_at: Type.String(),
  /**
   * `pending` while the file is being indexed; `slow` when its store has not sent it in time
   * (a remote object read for over 2 s, or a run not built within `/api/runs`' deadline: it
   * is still read, and a later request lists it); `error` when it cannot be read or has no
   * loadable line; `not_session` for a `.json` file with no session line (another JSON
   * document beside the runs: `truth.json`, `index.json`), which the sidebar lists quietly
   * after the runs.
   */
  state: Type.Union([Type.Literal("ready"), Type.Literal("pending"), Type.Literal("slow"), Type.Literal("error"), Type.Literal("not_session")]),
  problem: NullableString,
  stats: RunStats,
  session_count: Type.Integer(),
  snapshot_count: Type.Integer(),
  /** Lines of the file that did not load. */
  load_errors: Type.Integer(),
  error: Type.Union([RunError, Type.Null()]),
  panels: Type.Array(RunPanel),
};

/** `/api/runs`: a run as the sidebar lists it. */
export const RunSummary = Type.Object(runSummaryProperties);

/** Where the runs are read from (`/api/runs`'s `store`), and how its listing went. */
export const RunStore = Type.Object({
  /** `local`: a folder (or dropped files); `s3`, `http`: a remote store. */
  kind: Type.Union([Type.Literal("local"), Type.Literal("s3"), Type.Literal("http")]),
  /** The folder, or the store's URL (never with credentials). */
  location: Type.String(),
  /**
   * Pages and objects of the current (or last) listing; `done` once it is complete;
   * `skipped_folders`: folders left out (an HTTP folder redirecting to another host, not
   * followed), each with why.
   */
  listing: Type.Object({
    pages: Type.Integer(),
    objects: Type.Integer(),
    done: Type.Boolean(),
    skipped_folders: Type.Array(Type.Object({ prefix: Type.String(), reason: Type.String() })),
  }),
  /** Live reload of a remote store (`--poll`): whether its last poll failed, why (`code`: `E_SOURCE_*`), and when; null without polling. */
  health: Type.Union([Type.Object({ ok: Type.Boolean(), code: NullableString, detail: NullableString, checked_at: NullableString }), Type.Null()]),
});

export const RunList = Type.Object({
  root: Type.String(),
  indexing: Type.Boolean(),
  /** Newest first: the page asked for (every run by default). */
  runs: Type.Array(RunSummary),
  /** Runs in the directory, and those the filter (`q`, `since`, `until`) kept. */
  total: Type.Integer(),
  matched: Type.Integer(),
  /**
   * Of `total` and `matched`, the files read and found to be some other JSON document (listed
   * with state `not_session`): no runs. The runs are `total - not_sessions.total`, as the eval
   * counts them (one rule: `isOtherJsonDocument`); a file not read yet counts as a run.
   */
  not_sessions: Type.Object({ total: Type.Integer(), matched: Type.Integer() }),
  /** Where this page starts among the matched runs. */
  offset: Type.Integer(),
  store: RunStore,
});

/** A snapshot line of a session, named by what it holds. */
export const RunSnapshot = Type.Object({
  line_number: Type.Integer(),
  created_at: Type.String(),
  /** The turn the line closes (or was written during); null before any turn. */
  turn: NullableInteger,
  /** The workspace archive its `FilesystemSnapshotRef` names, when known. */
  archive: NullableString,
  /** E.g. `turn 16 · turn-16.fs.zip`. */
  label: Type.String(),
  /** The session's latest line (it holds the whole history). */
  latest: Type.Boolean(),
});

/** Where a child session ran in its parent. */
export const RunSpawn = Type.Object({
  parent_session_id: Type.String(),
  /** When the child started (its first event, else its first line). */
  at: Type.String(),
  /** The parent's turn at that time. */
  turn: NullableInteger,
  /** The parent's line to show with the child: the first that lists it, else the first written after it started. */
  parent_line: NullableInteger,
  /** The parent's last event before the child started (index into the parent's timeline). */
  parent_event_index: NullableInteger,
});

/**
 * How much of one of a session's lists (its turns or its snapshots) `/api/run` leaves out: the
 * answer lists the first `from` entries and the last `listed - from`; the `omitted` between
 * them are read with `/api/run/session` (`offset=from`).
 */
export const RunListCut = Type.Object({
  total: Type.Integer(),
  listed: Type.Integer(),
  omitted: Type.Integer(),
  /** Index into the whole list where the omitted stretch starts. */
  from: Type.Integer(),
});

export const RunSession = Type.Object({
  session_id: Type.String(),
  parent_session_id: NullableString,
  /** 0 for a root session; children are listed after their parent, deeper by one. */
  depth: Type.Integer(),
  /** The agent's name (`agent`, `app` or `name` tag, or its first prompt), else null. */
  title: NullableString,
  latest_line: Type.Integer(),
  validation_error: NullableString,
  stats: RunStats,
  turn_source: TurnSource,
  turns: Type.Array(Turn),
  snapshots: Type.Array(RunSnapshot),
  spawned: Type.Union([RunSpawn, Type.Null()]),
  /** Child session ids, in the order they ran. */
  children: Type.Array(Type.String()),
  /** `children_ids` the session's lines name that have no line in the source (WINK skips empty children). */
  missing_children: Type.Array(Type.String()),
  /**
   * Only when `/api/run` leaves some of `turns` or `snapshots` out (a session of more than
   * `RUN_LIST_LIMIT` of them, or many sessions sharing `RUN_LIST_BUDGET`): for each list, how
   * many there are and which stretch is not listed (`omitted` 0: the list is whole).
   */
  truncated: Type.Optional(Type.Object({ turns: RunListCut, snapshots: RunListCut })),
});

/** `/api/run/session`: one stretch of a session's turns and snapshots, as `/api/run` lists them, from `offset`. */
export const RunSessionPage = Type.Object({
  session_id: Type.String(),
  offset: Type.Integer(),
  turn_count: Type.Integer(),
  snapshot_count: Type.Integer(),
  /** The turns and the snapshots at `offset` to `offset + limit - 1` of each list (either may be shorter or empty). */
  turns: Type.Array(Turn),
  snapshots: Type.Array(RunSnapshot),
});

/**
 * A failed tool call (or an event carrying an error), placed in its session and turn. A
 * failure found in a bundle's transcript only (no session event records it) has no event:
 * `event_index`, `slice_type` and `item_index` are null and `transcript_rowid` names it.
 */
export const RunFailure = Type.Object({
  session_id: Type.String(),
  /** The session's latest line (its timeline holds the event). */
  line_number: Type.Integer(),
  event_index: NullableInteger,
  slice_type: NullableString,
  item_index: NullableInteger,
  /** The transcript entry (a bundle's `tool_result`) that records the failure, or null. */
  transcript_rowid: NullableInteger,
  kind: TimelineEventKind,
  /** Tool name, or the event's title. */
  title: Type.String(),
  call_id: NullableString,
  argument: Type.Union([TimelineArgument, Type.Null()]),
  message: Type.String(),
  turn: NullableInteger,
  created_at: Type.String(),
  /** Milliseconds since the run started. */
  offset_ms: NullableNumber,
});

/** `/api/run`: a run with its sessions (root first, children under their parent), turns, snapshots and failures. */
export const Run = Type.Object({
  ...runSummaryProperties,
  sessions: Type.Array(RunSession),
  /** Every failure of every session, in time order (at most `RUN_FAILURE_LIMIT`: see `truncated`). */
  failures: Type.Array(RunFailure),
  /**
   * Only when `/api/run` leaves some failures out (a run of more than `RUN_FAILURE_LIMIT`):
   * how many there are (`total`, what the run's failure count says) and which stretch is not
   * listed, as a session's `truncated` says it of its turns; `/api/run/failures` pages
   * through them all.
   */
  truncated: Type.Optional(Type.Object({ failures: RunListCut })),
});

/** `/api/run/failures`: one stretch of a run's failures (in time order, as `/api/run` lists them), from `offset`. */
export const RunFailurePage = Type.Object({
  offset: Type.Integer(),
  /** How many failures the run has (as its `truncated.failures.total`, or its `failures` when none is left out). */
  total: Type.Integer(),
  /** The failures at `offset` to `offset + limit - 1` (shorter at the end, empty at `total`). */
  failures: Type.Array(RunFailure),
});

/** Hits of a run search that share a place: one turn's events, a session's state, or one snapshot's files. */
export const RunSearchGroup = Type.Object({
  session_id: Type.String(),
  /** The line to open the hits at (the session's latest line; for files, the snapshot holding them). */
  line_number: Type.Integer(),
  turn: NullableInteger,
  /** `events`: items of event slices (by turn); `state`: the latest state slices; `files`: a snapshot's workspace. */
  scope: Type.Union([Type.Literal("events"), Type.Literal("state"), Type.Literal("files")]),
  /** E.g. `turn 3 · turn-3.fs.zip`. */
  label: Type.String(),
  hits: Type.Array(SearchHit),
});

/** A file a run search could not read, in the snapshot that holds it. */
export const RunSearchSkippedFile = Type.Object({ ...SearchSkippedFile.properties, session_id: Type.String(), line_number: Type.Integer() });

/** `/api/run/search`: a search across every snapshot of a session and its children. */
export const RunSearchResult = Type.Object({
  query: Type.String(),
  regex: Type.Boolean(),
  groups: Type.Array(RunSearchGroup),
  hit_count: Type.Integer(),
  truncated: Type.Boolean(),
  /** Workspace snapshots searched; files unchanged since an earlier snapshot of the session are searched once. */
  snapshots_searched: Type.Integer(),
  scanned_files: Type.Integer(),
  scanned_bytes: Type.Integer(),
  /** Files that could not be read (a corrupt or refused archive entry), with the snapshot holding them: skipped, the search went on. */
  skipped_files: Type.Array(RunSearchSkippedFile),
});
