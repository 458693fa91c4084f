/**
 * Failures across runs: each run in a few fields (its digest, from the run model the viewer
 * builds: the same failed calls the run's "failures" card lists, and its error), the groups
 * that their signatures form, and the report `wink-debug failures` prints. Everything here is
 * ordered by value, never by arrival, so the same runs give the same report on any machine.
 *
 * Browser-safe: the CLI and (later) the eval view count with the same code.
 */
import { callSignature, messageTemplate, runErrorSignature } from "./failure-signature.js";
import { compareTimes } from "./times.js";
import type { FailureGroupView, FailureReportView, RunDigestView, RunFailureDigestView, RunSourceView, RunView } from "./types.js";

/** Key arguments listed per group, most frequent first. */
export const MAX_GROUP_ARGUMENTS = 5;

/** A run's digest: its outcome, times and failures (failed calls in time order, then its error). */
export function runDigest(run: RunView): RunDigestView {
  if (run.state === "error") return notLoadedDigest(run.source, run.modified_at, run.problem ?? "The run does not load");
  if (run.state === "not_session") return { ...notLoadedDigest(run.source, run.modified_at, "not a session file"), outcome: "not_session" };
  const failures: RunFailureDigestView[] = run.failures.map((failure) => ({
    kind: "call",
    tool: failure.title,
    error_type: null,
    argument: failure.argument,
    message: failure.message,
    session_id: failure.session_id,
    turn: failure.turn,
    call_id: failure.call_id,
    created_at: failure.created_at === "" ? null : failure.created_at,
  }));
  if (run.error !== null) {
    failures.push({
      kind: "run_error",
      tool: null,
      error_type: run.error.type,
      argument: null,
      message: run.error.message,
      session_id: run.root_session_id,
      turn: null,
      call_id: null,
      created_at: run.stats.ended_at ?? run.stats.started_at ?? run.modified_at,
    });
  }
  return {
    run: run.source.path,
    kind: run.source.kind,
    outcome: run.stats.outcome,
    reason: null,
    modified_at: run.modified_at,
    started_at: run.stats.started_at,
    ended_at: run.stats.ended_at,
    tool_calls: run.stats.tool_calls,
    failed_calls: run.stats.failed_calls,
    errors: run.stats.errors,
    failures,
  };
}

/** The digest of a run that could not be read, or holds no loadable line: counted, with why. */
export function notLoadedDigest(source: RunSourceView, modifiedAt: string, reason: string): RunDigestView {
  return { run: source.path, kind: source.kind, outcome: "not_loaded", reason, modified_at: modifiedAt, started_at: null, ended_at: null, tool_calls: 0, failed_calls: 0, errors: 0, failures: [] };
}

/** Each digest's failure's signature, with what it was made from (a failure changed since is signed again). */
const signed = new WeakMap<RunFailureDigestView, { readonly kind: string; readonly tool: string | null; readonly errorType: string | null; readonly message: string; readonly callId: string | null; readonly signature: string }>();

/** A failure's signature (docs/eval.md): `<tool>: <template>`, or `run error <type>: <template>`. */
export function failureSignature(failure: RunFailureDigestView): string {
  // Templating a message is most of the cost of grouping, and the server's digests are signed
  // over and over (each eval answer, each group's occurrences): once per failure.
  const known = signed.get(failure);
  if (known !== undefined && known.kind === failure.kind && known.tool === failure.tool && known.errorType === failure.error_type && known.message === failure.message && known.callId === failure.call_id) return known.signature;
  const signature = failure.kind === "run_error" ? runErrorSignature(failure.error_type, failure.message) : callSignature(failure.tool ?? "", failure.message, failure.call_id);
  signed.set(failure, { kind: failure.kind, tool: failure.tool, errorType: failure.error_type, message: failure.message, callId: failure.call_id, signature });
  return signature;
}

interface Occurrence {
  readonly run: string;
  readonly failure: RunFailureDigestView;
}

interface GroupBuilder {
  readonly signature: string;
  example: Occurrence;
  occurrences: number;
  readonly runs: Set<string>;
  firstSeen: string | null;
  lastSeen: string | null;
  readonly tools: Map<string, number>;
  readonly arguments: Map<string, { name: string; value: string; occurrences: number }>;
}

/** Text order by UTF-16 code units: the same on every machine (no locale). */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Earlier first; unknown times last; then by run. */
function earlier(a: Occurrence, b: Occurrence): boolean {
  return (compareTimes(a.failure.created_at ?? "", b.failure.created_at ?? "") || byText(a.run, b.run)) < 0;
}

/**
 * The failure groups of `runs`: one per signature, sorted by runs affected, then
 * occurrences, then signature. `totalRuns` (default: `runs.length`) is what `run_share`
 * divides by.
 */
export function groupFailures(runs: readonly RunDigestView[], totalRuns: number = runs.length): FailureGroupView[] {
  const groups = new Map<string, GroupBuilder>();
  for (const digest of runs) {
    for (const failure of digest.failures) {
      const signature = failureSignature(failure);
      const occurrence = { run: digest.run, failure };
      let group = groups.get(signature);
      if (group === undefined) {
        group = { signature, example: occurrence, occurrences: 0, runs: new Set(), firstSeen: null, lastSeen: null, tools: new Map(), arguments: new Map() };
        groups.set(signature, group);
      }
      group.occurrences += 1;
      group.runs.add(digest.run);
      if (earlier(occurrence, group.example)) group.example = occurrence;
      const at = failure.created_at;
      if (at !== null && !Number.isNaN(Date.parse(at))) {
        if (group.firstSeen === null || compareTimes(at, group.firstSeen) < 0) group.firstSeen = at;
        if (group.lastSeen === null || compareTimes(at, group.lastSeen) > 0) group.lastSeen = at;
      }
      if (failure.tool !== null) group.tools.set(failure.tool, (group.tools.get(failure.tool) ?? 0) + 1);
      if (failure.argument !== null) {
        const key = `${failure.argument.name}\n${failure.argument.value}`;
        const known = group.arguments.get(key) ?? { ...failure.argument, occurrences: 0 };
        known.occurrences += 1;
        group.arguments.set(key, known);
      }
    }
  }
  const views = [...groups.values()].map((group): FailureGroupView => {
    const { failure } = group.example;
    return {
      signature: group.signature,
      kind: failure.kind,
      tool: failure.tool,
      error_type: failure.error_type,
      template: messageTemplate(failure.message, failure.call_id),
      occurrences: group.occurrences,
      runs: group.runs.size,
      run_share: totalRuns === 0 ? 0 : Math.round((group.runs.size / totalRuns) * 10_000) / 10_000,
      first_seen: group.firstSeen,
      last_seen: group.lastSeen,
      tools: [...group.tools].map(([name, occurrences]) => ({ name, occurrences })).sort((a, b) => b.occurrences - a.occurrences || byText(a.name, b.name)),
      arguments: [...group.arguments.values()].sort((a, b) => b.occurrences - a.occurrences || byText(a.name, b.name) || byText(a.value, b.value)).slice(0, MAX_GROUP_ARGUMENTS),
      example: { run: group.example.run, message: failure.message, session_id: failure.session_id, turn: failure.turn, call_id: failure.call_id, created_at: failure.created_at },
    };
  });
  return views.sort((a, b) => b.runs - a.runs || b.occurrences - a.occurrences || byText(a.signature, b.signature));
}

export interface FailureReportOptions {
  /** The `--since` bound the runs were chosen by, as given. */
  readonly since?: string | null;
  /** Signatures of an earlier report: groups without one are marked `new`. */
  readonly baseline?: { readonly file: string; readonly signatures: ReadonlySet<string> } | null;
}

/** The report of `runs` (every run of the target, loaded or not): counts, groups, and the runs that did not load. */
export function failureReport(runs: readonly RunDigestView[], options: FailureReportOptions = {}): FailureReportView {
  const all = [...runs].sort((a, b) => byText(a.run, b.run));
  const ordered = all.filter((run) => run.outcome !== "not_session");
  const baseline = options.baseline ?? null;
  const groups = groupFailures(ordered).map((group) => (baseline === null ? group : { ...group, new: !baseline.signatures.has(group.signature) }));
  const notLoaded = ordered.filter((run) => run.outcome === "not_loaded");
  return {
    format: "wink-debug-failures",
    version: 1,
    runs: ordered.length,
    failed_runs: ordered.filter((run) => run.outcome === "failed").length,
    not_loaded_runs: notLoaded.length,
    since: options.since ?? null,
    groups,
    not_loaded: notLoaded.map((run) => ({ run: run.run, reason: run.reason ?? "" })),
    not_sessions: all.filter((run) => run.outcome === "not_session").map((run) => run.run),
    baseline: baseline === null ? null : { file: baseline.file, new_groups: groups.filter((group) => group.new === true).length },
  };
}

/**
 * The signatures of an earlier report (`wink-debug failures --json`): throws an `Error` saying
 * what is wrong when `document` is not one.
 */
export function reportSignatures(document: unknown): Set<string> {
  const groups = typeof document === "object" && document !== null && !Array.isArray(document) ? (document as { groups?: unknown }).groups : undefined;
  if (!Array.isArray(groups)) throw new Error('it has no "groups" list (is it the output of wink-debug failures --json?)');
  const signatures = new Set<string>();
  groups.forEach((group: unknown, index) => {
    const signature = typeof group === "object" && group !== null ? (group as { signature?: unknown }).signature : undefined;
    if (typeof signature !== "string") throw new Error(`groups[${index}] has no "signature" string`);
    signatures.add(signature);
  });
  return signatures;
}
