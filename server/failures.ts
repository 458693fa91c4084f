/**
 * `wink-debug failures TARGET [-r] [--json] [--since DATE] [--baseline FILE] [--fail-on-new]`:
 * what failed across the runs of a folder or a remote store (an eval, a night of CI), grouped by signature
 * (docs/eval.md). Every run is read with the run model the viewer opens on; the groups go to
 * stdout (a table, or one JSON document), progress to stderr.
 */
import { readFile } from "node:fs/promises";
import { InvalidArgumentError } from "../shared/errors.js";
import { failureReport, reportSignatures, timeBound } from "../shared/viewer/index.js";
import type { FailureGroupView, FailureReportView } from "../shared/viewer/index.js";
import type { RemoteTargetOptions } from "./library/open-target.js";
import { REMOTE_CLI_OPTIONS, REMOTE_COMMAND_USAGE, S3_OPTIONS_USAGE, remoteOptionsFromCli } from "./remote-cli.js";
import { parseSubcommandArgs } from "./subcommand-args.js";
import { plural, processIo, readTargetDigests } from "./target-digests.js";
import type { TargetIo } from "./target-digests.js";

/** A problem with the command line or its inputs, reported as one line with exit code 2. */
export class FailuresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FailuresError";
  }
}

export const FAILURES_USAGE = `Usage: wink-debug failures DIR|FILE|URL [-r] [--json] [--since DATE] [--baseline FILE] [--fail-on-new] [--no-cache] [--cache-dir DIR] [S3 options]

What failed across the runs of DIR, or of a remote store's URL (session files and WINK
debug bundles), grouped: each failed tool call and each run error (a bundle's error.json)
gets a signature, the tool (or error type) and its message with numbers, ids, paths and
quoted strings as placeholders; failures with one signature are one group. Groups are
listed by the runs they affect, each with one example (run and turn). Progress goes to
stderr. Runs read before (by the viewer or these commands) come from the run index in
the user's cache directory (a remote store's in --cache-dir), so a second run reads only
new and changed runs (docs/eval.md).

Options:
  -r, --recursive   also read subdirectories (e.g. an EvalLoop's {target}/{request_id}/*.zip)
  --json            print one JSON document instead of the table (fields: docs/eval.md)
  --since DATE      only runs from DATE on (ISO 8601 date or date-time; a bundle's time
                    is the one in its name, a session file's its file time), as the
                    viewer's run list filters them
  --baseline FILE   an earlier --json output: groups it does not have are marked new
  --fail-on-new     exit 1 when a group is new against --baseline
  --no-cache        read every run, and keep nothing in the user's cache directory
                    ($XDG_CACHE_HOME/wink-debug, else ~/.cache/wink-debug) nor in
                    --cache-dir
  -h, --help        show this help

${REMOTE_COMMAND_USAGE}
${S3_OPTIONS_USAGE}
Exit: 0 done, 1 a new group with --fail-on-new, 2 bad arguments or input (missing
target, no runs in it, unreadable baseline, bad date), 4 the remote store could not be
read (unreachable, credentials, permissions, throttled).
`;

interface FailuresOptions {
  readonly target: string;
  readonly recursive: boolean;
  readonly json: boolean;
  readonly since: string | null;
  readonly baseline: string | null;
  readonly failOnNew: boolean;
  readonly cache: boolean;
  readonly remote: RemoteTargetOptions;
}

function parse(argv: readonly string[]): FailuresOptions | "help" {
  const { values, positionals } = parseSubcommandArgs(
    argv,
    {
      recursive: { type: "boolean", short: "r" },
      json: { type: "boolean" },
      since: { type: "string" },
      baseline: { type: "string" },
      "fail-on-new": { type: "boolean" },
      "no-cache": { type: "boolean" },
      ...REMOTE_CLI_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
    FAILURES_USAGE,
    (message) => new FailuresError(message),
  );
  if (values.help === true) return "help";
  if (positionals.length !== 1) throw new FailuresError(`expected one DIR, FILE or URL, got ${positionals.length}\n${FAILURES_USAGE}`);
  const target = positionals[0] as string;
  const remote = remoteOptionsFromCli(values, target, (message) => new FailuresError(message));
  const since = values.since ?? null;
  try {
    timeBound(since ?? undefined, "--since", false);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new FailuresError(error.message);
    throw error;
  }
  if (values["fail-on-new"] === true && values.baseline === undefined) throw new FailuresError("--fail-on-new needs --baseline FILE (an earlier --json output)");
  if (values.baseline === "") throw new FailuresError("--baseline must name a file");
  return { target, recursive: values.recursive === true, json: values.json === true, since, baseline: values.baseline ?? null, failOnNew: values["fail-on-new"] === true, cache: values["no-cache"] !== true, remote };
}

/** The signatures of an earlier report, or a `FailuresError` naming the file and what is wrong with it. */
async function readBaseline(file: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new FailuresError(`cannot read the baseline ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return reportSignatures(JSON.parse(text) as unknown);
  } catch (error) {
    throw new FailuresError(`the baseline ${file} is not a wink-debug failures --json document: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Control characters (a terminal's escape sequences) shown, not sent: agent messages and file names are data. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** One line of at most `max` characters (then `…`). */
function clipped(text: string, max: number): string {
  const line = printable(text.replace(/\s+/g, " ").trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const MESSAGE_CHARS = 200;

/** Where a group's example happened: its run, and its turn when known. */
function exampleLine(group: FailureGroupView): string {
  const { example } = group;
  return `e.g. ${printable(example.run)}${example.turn === null ? "" : `, turn ${example.turn}`}: ${clipped(example.message, MESSAGE_CHARS)}`;
}

/** The report as the table `wink-debug failures` prints. */
export function formatFailureTable(report: FailureReportView): string {
  const passed = report.runs - report.failed_runs - report.not_loaded_runs;
  const counts = [`${report.failed_runs} failed`, `${passed} passed`, ...(report.not_loaded_runs > 0 ? [`${report.not_loaded_runs} did not load`] : [])].join(", ");
  const lines = [`${plural(report.runs, "run")}${report.since === null ? "" : ` since ${report.since}`}: ${counts}; ${plural(report.groups.length, "failure group")}`];
  if (report.baseline !== null) lines.push(`${plural(report.baseline.new_groups, "new group")} against ${printable(report.baseline.file)}`);
  if (report.groups.length > 0) {
    const marks = report.baseline !== null;
    lines.push("", `${"RUNS".padStart(5)}  ${"SHARE".padStart(5)}  ${"OCCURRENCES".padStart(11)}  ${marks ? "NEW  " : ""}SIGNATURE`);
    const indent = " ".repeat(5 + 2 + 5 + 2 + 11 + 2 + (marks ? 5 : 0));
    for (const group of report.groups) {
      const share = `${Math.round(group.run_share * 100)}%`;
      lines.push(`${String(group.runs).padStart(5)}  ${share.padStart(5)}  ${String(group.occurrences).padStart(11)}  ${marks ? (group.new === true ? "new  " : "     ") : ""}${clipped(group.signature, MESSAGE_CHARS + 40)}`);
      lines.push(`${indent}${exampleLine(group)}`);
    }
  }
  if (report.not_loaded.length > 0) {
    lines.push("", `Did not load (${report.not_loaded.length}):`);
    for (const run of report.not_loaded) lines.push(`  ${printable(run.run)}: ${clipped(run.reason, MESSAGE_CHARS)}`);
  }
  if (report.not_sessions.length > 0) lines.push("", `Not session files, left out (${report.not_sessions.length}): ${report.not_sessions.map(printable).join(", ")}`);
  return `${lines.join("\n")}\n`;
}

export type FailuresIo = TargetIo;

/**
 * The `failures` subcommand; returns the exit code (0 done, 1 a new group with
 * `--fail-on-new`). Throws `FailuresError` for bad input (exit 2), a remote store's
 * `SourceError` when it cannot be read (exit 4).
 */
export async function failuresMain(argv: readonly string[], io: FailuresIo = processIo): Promise<number> {
  const options = parse(argv);
  if (options === "help") {
    io.out(FAILURES_USAGE);
    return 0;
  }
  const baseline = options.baseline === null ? null : { file: options.baseline, signatures: await readBaseline(options.baseline) };
  const { digests } = await readTargetDigests(options, io, (message) => new FailuresError(message));
  const report = failureReport(digests, { since: options.since, baseline });
  io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatFailureTable(report));
  return options.failOnNew && (report.baseline?.new_groups ?? 0) > 0 ? 1 : 0;
}
