/**
 * Failures across the runs of a target (an eval, a night of CI): each run in a few fields,
 * the failure groups their failed calls and run errors form, and the report `wink-debug
 * failures --json` prints (docs/eval.md documents every field).
 */
import { Type } from "typebox";
import { NullableInteger, NullableString } from "./common.js";
import { RunSourceKind } from "./runs.js";
import { TimelineArgument } from "./sessions.js";

/** `call`: a failed tool call (or an event carrying an error); `run_error`: the run's own error (a bundle's `error.json`). */
export const FailureKind = Type.Union([Type.Literal("call"), Type.Literal("run_error")]);

/** One failure of a run: a failed call, or the run's error. */
export const RunFailureDigest = Type.Object({
  kind: FailureKind,
  /** The tool (or the event's title) of a failed call; null for a run error. */
  tool: NullableString,
  /** A run error's type (`error.json`'s `type`); null for a call, or when the error names none. */
  error_type: NullableString,
  argument: Type.Union([TimelineArgument, Type.Null()]),
  message: Type.String(),
  session_id: NullableString,
  turn: NullableInteger,
  call_id: NullableString,
  /** When it happened: the call's time; for a run error, when the run ended (else started, else the file's time). */
  created_at: NullableString,
});

/** A run as the failure report counts it: loaded (its outcome, times and failures), or not loaded and why. */
export const RunDigest = Type.Object({
  /** Relative to the target (POSIX separators). */
  run: Type.String(),
  kind: RunSourceKind,
  /**
   * `failed` as the run list says it; `not_loaded` when the run could not be read or holds no
   * loadable line; `not_session` for a `.json` file with no session line (an eval's
   * `truth.json`, an `index.json`): not a run, listed apart as the run list does.
   */
  outcome: Type.Union([Type.Literal("ok"), Type.Literal("failed"), Type.Literal("not_loaded"), Type.Literal("not_session")]),
  /** Why the run did not load; null when it did. */
  reason: NullableString,
  /** The file's modification time. */
  modified_at: Type.String(),
  started_at: NullableString,
  ended_at: NullableString,
  tool_calls: Type.Integer(),
  /** The run's `stats.failed_calls` and `stats.errors`: what its badge counts (shared/viewer/outcome-text.ts); 0 when it did not load. */
  failed_calls: Type.Integer(),
  errors: Type.Integer(),
  failures: Type.Array(RunFailureDigest),
});

/** How often a tool occurs in a group. */
export const FailureToolCount = Type.Object({ name: Type.String(), occurrences: Type.Integer() });

/** How often a key argument (`name`: the parameter, `value`: its text) occurs in a group. */
export const FailureArgumentCount = Type.Object({ name: Type.String(), value: Type.String(), occurrences: Type.Integer() });

/** The occurrence shown for a group: the first in time (then in run order). */
export const FailureExample = Type.Object({
  run: Type.String(),
  message: Type.String(),
  session_id: NullableString,
  turn: NullableInteger,
  call_id: NullableString,
  created_at: NullableString,
});

/** Failures with one signature, across runs. */
export const FailureGroup = Type.Object({
  /** `<tool>: <template>` for a call, `run error <type>: <template>` for a run error (docs/eval.md). */
  signature: Type.String(),
  kind: FailureKind,
  tool: NullableString,
  error_type: NullableString,
  /** The message with its varying parts as placeholders (`<n>`, `<id>`, `<path>`, `<str>`…). */
  template: Type.String(),
  occurrences: Type.Integer(),
  /** Runs with at least one occurrence. */
  runs: Type.Integer(),
  /** `runs` over every run of the report (those that did not load included), 0 to 1. */
  run_share: Type.Number(),
  first_seen: NullableString,
  last_seen: NullableString,
  /** The tools of its occurrences, most frequent first (none for run errors). */
  tools: Type.Array(FailureToolCount),
  /** The most frequent key arguments of its occurrences (paths, commands…), at most 5. */
  arguments: Type.Array(FailureArgumentCount),
  example: FailureExample,
  /** With a baseline only: true when the baseline has no group of this signature. */
  new: Type.Optional(Type.Boolean()),
});

/** `wink-debug failures --json`. */
export const FailureReport = Type.Object({
  format: Type.Literal("wink-debug-failures"),
  version: Type.Literal(1),
  /** Runs of the target (after `--since`), loaded or not (files that are not sessions left out). */
  runs: Type.Integer(),
  /** Runs that loaded and failed. */
  failed_runs: Type.Integer(),
  /** Runs that did not load (listed in `not_loaded`). */
  not_loaded_runs: Type.Integer(),
  since: NullableString,
  /** Sorted by runs affected, then occurrences, then signature. */
  groups: Type.Array(FailureGroup),
  not_loaded: Type.Array(Type.Object({ run: Type.String(), reason: Type.String() })),
  /** `.json` files of the target that hold no session line: not runs, not counted in `runs`. */
  not_sessions: Type.Array(Type.String()),
  /** With `--baseline`: the file, and how many groups it does not have. */
  baseline: Type.Union([Type.Object({ file: Type.String(), new_groups: Type.Integer() }), Type.Null()]),
});

/**
 * A run as the eval view lists it: its digest's outcome and times, where it sits in the eval
 * (target, sample, attempt, tags: what the run says, else its place in an EvalLoop folder
 * `{target}/{request_id}/…`), and the failure groups it has occurrences in.
 */
export const EvalRun = Type.Object({
  run: Type.String(),
  kind: RunSourceKind,
  /** `error`: the run did not load (`reason` says why). */
  outcome: Type.Union([Type.Literal("ok"), Type.Literal("failed"), Type.Literal("error")]),
  reason: NullableString,
  modified_at: Type.String(),
  started_at: NullableString,
  ended_at: NullableString,
  tool_calls: Type.Integer(),
  /** Its failures (failed calls and the run's error): its occurrences across the groups. */
  failures: Type.Integer(),
  /** As the sidebar's badge counts them (the run's stats): `outcomeText` of the row is the sidebar's badge. */
  failed_calls: Type.Integer(),
  errors: Type.Integer(),
  target: NullableString,
  /** The request or sample id the run answered: runs with the same sample are attempts at the same task. */
  sample: NullableString,
  attempt: NullableInteger,
  tags: Type.Array(Type.String()),
  /** Indexes into `groups` of the answer, ascending. */
  groups: Type.Array(Type.Integer()),
});

/** Outcomes counted over some runs. */
export const OutcomeCounts = Type.Object({ runs: Type.Integer(), ok: Type.Integer(), failed: Type.Integer(), error: Type.Integer() });

/**
 * How far the server's run index got: the answer counts the `indexed` of `total` files read so
 * far (`complete` once every one is); the page asks again until it is complete.
 */
export const IndexProgress = Type.Object({ indexed: Type.Integer(), total: Type.Integer(), complete: Type.Boolean() });

/**
 * `GET /api/failures`: the eval's landing page (outcomes, groups, tags) without its runs:
 * those come a page at a time from `/api/failures/runs`, and a group's occurrences from
 * `/api/failures/occurrences`. Listing every run here made the first answer of a 10,000-run
 * eval 4 MB of JSON, parsed before the groups were drawn.
 */
export const EvalSummary = Type.Object({
  root: Type.String(),
  index: IndexProgress,
  outcomes: OutcomeCounts,
  /** Per target and attempt, where the runs say so (none when no run does). */
  breakdown: Type.Array(Type.Object({ target: NullableString, attempt: NullableInteger, ...OutcomeCounts.properties })),
  groups: Type.Array(FailureGroup),
  tags: Type.Array(Type.String()),
  not_sessions: Type.Array(Type.String()),
});

/** A run of the eval's run list: the run, and for a failed one the newest passing run of its sample (`peer`), to compare with. */
export const EvalRunRow = Type.Object({ ...EvalRun.properties, peer: NullableString });

/**
 * `GET /api/failures/runs`: the runs the filters keep (newest first, as the eval orders them),
 * `limit` of them from `offset`; `total` counts every run the filters keep. `groups` of a run
 * index the groups of `/api/failures` (the same generation of the run index).
 */
export const EvalRunPage = Type.Object({ offset: Type.Integer(), total: Type.Integer(), runs: Type.Array(EvalRunRow) });

const { error_type: _errorType, ...occurrenceFields } = RunFailureDigest.properties;
/** One occurrence of a failure group: a run's failure (its group names the error type) and the run. */
export const FailureOccurrence = Type.Object({ run: Type.String(), ...occurrenceFields });

/** `GET /api/failures/occurrences?signature=…`: a group's occurrences, in time order, then run order. */
export const FailureOccurrences = Type.Object({ signature: Type.String(), occurrences: Type.Array(FailureOccurrence) });
