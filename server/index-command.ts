/**
 * `wink-debug index TARGET [-r] -o FILE.parquet`: the run index of a folder or a remote store as one Parquet
 * file (docs/eval.md "The Parquet index"), one row per run and one per failure, from the same
 * digests `wink-debug failures` groups, so that DuckDB, Athena or Spark count what it counts.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { runIndexRows } from "../shared/viewer/index.js";
import { writeRunIndex } from "./library/parquet-index.js";
import { packageVersion } from "./package-root.js";
import type { RemoteTargetOptions } from "./library/open-target.js";
import { REMOTE_CLI_OPTIONS, REMOTE_COMMAND_USAGE, S3_OPTIONS_USAGE, remoteOptionsFromCli } from "./remote-cli.js";
import { parseSubcommandArgs } from "./subcommand-args.js";
import { plural, processIo, readTargetDigests } from "./target-digests.js";
import type { TargetIo } from "./target-digests.js";

/** A problem with the command line or its inputs, reported as one line with exit code 2. */
export class IndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IndexError";
  }
}

export const INDEX_USAGE = `Usage: wink-debug index DIR|FILE|URL [-r] -o FILE.parquet [--no-cache] [--cache-dir DIR] [S3 options]

Writes the run index of DIR, or of a remote store's URL (session files and WINK debug
bundles), as one Parquet file: one row per run (outcome, times, tool calls, its error,
its place in an eval) and one per failure (tool, key argument, message, signature, turn,
time, call id), the runs and failures wink-debug failures counts. Query it with DuckDB, Athena or Spark; the columns
are in docs/eval.md. The file is written whole (a temporary file, then renamed), only
where -o says. Progress goes to stderr. Runs read before (by the viewer or these commands)
come from the run index in the user's cache directory (a remote store's in --cache-dir;
docs/eval.md). A run's time and size are the ones its folder or store lists, so that the
file, put at the target's root as index.parquet (for a bucket: uploaded there), is taken
by the viewer and wink-debug failures for the runs it still describes.

Options:
  -r, --recursive        also read subdirectories (e.g. an EvalLoop's {target}/{request_id}/*.zip)
  -o, --output FILE      the Parquet file to write (replaced if it exists)
  --no-cache             read every run, and keep nothing in the user's cache directory
                         ($XDG_CACHE_HOME/wink-debug, else ~/.cache/wink-debug) nor
                         in --cache-dir
  -h, --help             show this help

${REMOTE_COMMAND_USAGE}
${S3_OPTIONS_USAGE}
Exit: 0 done, 2 bad arguments or input (missing target, no runs in it, no -o, an
output folder that does not exist or cannot be written), 4 the remote store could not
be read (unreachable, credentials, permissions, throttled).
`;

interface IndexOptions {
  readonly target: string;
  readonly recursive: boolean;
  readonly output: string;
  readonly cache: boolean;
  readonly remote: RemoteTargetOptions;
}

function parse(argv: readonly string[]): IndexOptions | "help" {
  const { values, positionals } = parseSubcommandArgs(
    argv,
    {
      recursive: { type: "boolean", short: "r" },
      output: { type: "string", short: "o" },
      "no-cache": { type: "boolean" },
      ...REMOTE_CLI_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
    INDEX_USAGE,
    (message) => new IndexError(message),
  );
  if (values.help === true) return "help";
  if (positionals.length !== 1) throw new IndexError(`expected one DIR, FILE or URL, got ${positionals.length}\n${INDEX_USAGE}`);
  const target = positionals[0] as string;
  const remote = remoteOptionsFromCli(values, target, (message) => new IndexError(message));
  if (values.output === undefined || values.output === "") throw new IndexError(`-o FILE.parquet is required: where to write the index\n${INDEX_USAGE}`);
  return { target, recursive: values.recursive === true, output: values.output, cache: values["no-cache"] !== true, remote };
}

/** Refuses an output whose folder is missing, or that names a folder: before any run is read. */
async function checkOutput(file: string): Promise<void> {
  const folder = path.dirname(path.resolve(file));
  const info = await stat(folder).catch(() => null);
  if (info === null || !info.isDirectory()) throw new IndexError(`cannot write the index ${file}: its folder ${folder} does not exist`);
  const existing = await stat(file).catch(() => null);
  if (existing?.isDirectory() === true) throw new IndexError(`cannot write the index ${file}: it is a folder`);
}

/** The `index` subcommand; returns the exit code (0). Throws `IndexError` for bad input (exit 2), a remote store's `SourceError` when it cannot be read (exit 4). */
export async function indexMain(argv: readonly string[], io: TargetIo = processIo): Promise<number> {
  const options = parse(argv);
  if (options === "help") {
    io.out(INDEX_USAGE);
    return 0;
  }
  await checkOutput(options.output);
  const { displayRoot, digests, sizes } = await readTargetDigests(options, io, (message) => new IndexError(message));
  const rows = runIndexRows(path.basename(displayRoot), digests, sizes);
  try {
    await writeRunIndex(options.output, rows, { createdBy: `wink-debug ${packageVersion()}`, root: path.basename(displayRoot) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === "string") throw new IndexError(`cannot write the index ${options.output}: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
  const runs = rows.filter((row) => row.row_kind === "run").length;
  const failures = rows.filter((row) => row.row_kind === "failure").length;
  io.out(`Wrote ${plural(runs, "run")} and ${plural(failures, "failure")} to ${options.output}\n`);
  return 0;
}
