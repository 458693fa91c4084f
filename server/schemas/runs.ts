/**
 * Runs: a session file (or, later, a WINK debug bundle) as what the viewer opens on — its
 * sessions, turns, snapshots, failures and outcome — and the search across a run.
 */
import { Type } from "typebox";
import { SearchHit } from "./search.js";
import { Turn, TurnSource } from "./sessions.js";

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const RunStats = Type.Object({
  outcome: Type.Union([Type.Literal("ok"), Type.Literal("failed")]),
  failed_calls: Type.Integer(),
  errors: Type.Integer(),
  tool_calls: Type.Integer(),
  events: Type.Integer(),
  started_at: NullableString,
  ended_at: NullableString,
  duration_ms: Type.Union([Type.Number(), Type.Null()]),
});

export const RunSource = Type.Object({
  kind: Type.Union([Type.Literal("session_file"), Type.Literal("bundle")]),
  path: Type.String(),
  name: Type.String(),
});

export const RunError = Type.Object({ message: Type.String(), type: NullableString, traceback: NullableString });

const runSummaryProperties = {
  source: RunSource,
  title: Type.String(),
  root_session_id: NullableString,
  modified_at: Type.String(),
  state: Type.Union([Type.Literal("ready"), Type.Literal("pending"), Type.Literal("error")]),
  problem: NullableString,
  stats: RunStats,
  session_count: Type.Integer(),
  snapshot_count: Type.Integer(),
  load_errors: Type.Integer(),
  error: Type.Union([RunError, Type.Null()]),
  panels: Type.Array(Type.Object({ id: Type.String(), title: Type.String() })),
};

export const RunSummary = Type.Object(runSummaryProperties);

/** Where the runs are read from, and how its listing went. */
export const RunStore = Type.Object({
  /** `local`: a folder; `s3`, `http`: a remote store. */
  kind: Type.Union([Type.Literal("local"), Type.Literal("s3"), Type.Literal("http")]),
  /** The folder, or the store's URL (never with credentials). */
  location: Type.String(),
  /** Pages and objects of the current (or last) listing; `done` once it is complete. */
  listing: Type.Object({ pages: Type.Integer(), objects: Type.Integer(), done: Type.Boolean() }),
  /** Live reload of a remote store (`--poll`): whether its last poll failed, why (`code`: `E_SOURCE_*`), and when. */
  health: Type.Union([Type.Object({ ok: Type.Boolean(), code: NullableString, detail: NullableString, checked_at: NullableString }), Type.Null()]),
});

export const RunList = Type.Object({
  root: Type.String(),
  indexing: Type.Boolean(),
  runs: Type.Array(RunSummary),
  /** Runs in the directory, and those the filter (`q`, `since`, `until`) kept. */
  total: Type.Integer(),
  matched: Type.Integer(),
  /** Where this page starts among the matched runs. */
  offset: Type.Integer(),
  store: RunStore,
});

export const RunSnapshot = Type.Object({
  line_number: Type.Integer(),
  created_at: Type.String(),
  turn: NullableInteger,
  archive: NullableString,
  label: Type.String(),
  latest: Type.Boolean(),
});

export const RunSession = Type.Object({
  session_id: Type.String(),
  parent_session_id: NullableString,
  depth: Type.Integer(),
  title: NullableString,
  latest_line: Type.Integer(),
  validation_error: NullableString,
  stats: RunStats,
  turn_source: TurnSource,
  turns: Type.Array(Turn),
  snapshots: Type.Array(RunSnapshot),
  spawned: Type.Union([
    Type.Object({ parent_session_id: Type.String(), at: Type.String(), turn: NullableInteger, parent_line: NullableInteger, parent_event_index: NullableInteger }),
    Type.Null(),
  ]),
  children: Type.Array(Type.String()),
  missing_children: Type.Array(Type.String()),
});

export const RunFailure = Type.Object({
  session_id: Type.String(),
  line_number: Type.Integer(),
  event_index: NullableInteger,
  slice_type: NullableString,
  item_index: NullableInteger,
  transcript_rowid: NullableInteger,
  kind: Type.Union([Type.Literal("tool_call"), Type.Literal("prompt"), Type.Literal("event")]),
  title: Type.String(),
  call_id: NullableString,
  argument: Type.Union([Type.Object({ name: Type.String(), value: Type.String() }), Type.Null()]),
  message: Type.String(),
  turn: NullableInteger,
  created_at: Type.String(),
  offset_ms: Type.Union([Type.Number(), Type.Null()]),
});

export const Run = Type.Object({ ...runSummaryProperties, sessions: Type.Array(RunSession), failures: Type.Array(RunFailure) });

/**
 * A page of the runs, newest first: `offset`/`limit` (default: every run), `q` (the file's
 * path contains it, case-insensitively), `since`/`until` (the file's modification time, ISO
 * 8601 date or date-time; `until` a date includes that whole day).
 */
export const RunsQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    q: Type.Optional(Type.String({ maxLength: 256 })),
    since: Type.Optional(Type.String({ maxLength: 64 })),
    until: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** `file`: the run's session file (default: the newest run). */
export const RunQuery = Type.Object({ file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) }, { additionalProperties: false });

export const RunSearchQuery = Type.Object(
  {
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** The session searched with its children (default: the run's root session). */
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    q: Type.String({ minLength: 1, maxLength: 1000 }),
    /** `1`: `q` is a regular expression (linear-time: no backreferences or lookarounds; case-sensitive). */
    regex: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
  },
  { additionalProperties: false },
);

export const RunSearchResult = Type.Object({
  query: Type.String(),
  regex: Type.Boolean(),
  groups: Type.Array(
    Type.Object({
      session_id: Type.String(),
      line_number: Type.Integer(),
      turn: NullableInteger,
      scope: Type.Union([Type.Literal("events"), Type.Literal("state"), Type.Literal("files")]),
      label: Type.String(),
      hits: Type.Array(SearchHit),
    }),
  ),
  hit_count: Type.Integer(),
  truncated: Type.Boolean(),
  snapshots_searched: Type.Integer(),
  scanned_files: Type.Integer(),
  scanned_bytes: Type.Integer(),
  /** Files that could not be read (a corrupt or refused archive entry), with the snapshot holding them: skipped, and the search went on. */
  skipped_files: Type.Array(Type.Object({ path: Type.String(), detail: Type.String(), session_id: Type.String(), line_number: Type.Integer() })),
});
