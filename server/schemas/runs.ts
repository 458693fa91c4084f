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

export const RunList = Type.Object({ root: Type.String(), indexing: Type.Boolean(), runs: Type.Array(RunSummary) });

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

export const RunsQuery = Type.Object({}, { additionalProperties: false });

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
