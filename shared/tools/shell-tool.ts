/**
 * The shell tool of a container workspace: run a command in the sandbox with a deadline
 * and an output cap, and answer in the `{message, value, success}` shape of every tool.
 *
 * The command is a shell command line run by `/bin/sh -c` *inside the container* (that is
 * the tool's purpose: the agent writes shell); nothing is ever run through a host shell.
 * A timed-out command is killed with its whole process group and reports exit code 124.
 * Output beyond the cap is cut, and the message says so and how much there was.
 */
import { WinkError } from "../errors.js";
import { Type } from "typebox";
import { exposedParameters, parseParams, toolParameters, type ToolParams } from "./parameters.js";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.js";
import { TOOL_VALUE_TYPES } from "./values.js";
import { joinPath, resolveWorkspacePath } from "../filesystem/paths.js";
import type { ContainerExecOptions, ContainerExecResult } from "../filesystem/podman/container.js";

/** What the tool needs: something that runs argv in the container. */
export interface CommandRunner {
  /** Absolute workspace directory in the container (commands start there). */
  readonly workdir: string;
  exec(argv: readonly string[], options?: ContainerExecOptions): Promise<ContainerExecResult>;
}

export interface ShellToolOptions {
  /** Tool name (default "shell_execute", as the original). */
  readonly name?: string;
  /** Default deadline in seconds (default 30). */
  readonly defaultTimeoutSeconds?: number;
  /** Largest deadline a call may ask for (default 120). */
  readonly maxTimeoutSeconds?: number;
  /** Bytes of stdout and of stderr kept each (default 32 KiB). */
  readonly maxOutputBytes?: number;
}

/** The shell tool's parameters, as its schema (`PARAMETERS`) declares them. */
export type ShellParams = ToolParams<typeof PARAMETERS>;

export interface ShellValue {
  /** Type id in session data (no WINK type for it: ours). */
  readonly __type__: typeof TOOL_VALUE_TYPES.shellResult;
  readonly command: string;
  /** Absolute working directory in the container. */
  readonly cwd: string;
  readonly exit_code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdout_truncated: boolean;
  readonly stderr_truncated: boolean;
  /** Bytes the command wrote (before truncation). */
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
  readonly timed_out: boolean;
  readonly duration_ms: number;
}

const MAX_COMMAND_LENGTH = 16_384;
const MAX_STDIN_LENGTH = 48_000;

function describeStream(name: string, text: string, truncated: boolean, bytes: number, cap: number): string {
  if (bytes === 0) return `${name}: (empty)`;
  const note = truncated ? `\n[${name} truncated: showing the first ${cap} of ${bytes} bytes]` : "";
  return `${name}:\n${text}${note}`;
}

/** Run one shell command line in the container and describe the outcome for an agent. */
export async function runShellCommand(runner: CommandRunner, params: ShellParams, options: ShellToolOptions = {}, signal?: AbortSignal): Promise<ToolResult<ShellValue>> {
  const maxTimeout = options.maxTimeoutSeconds ?? 120;
  const timeoutSeconds = Math.min(Math.max(params.timeout_seconds ?? options.defaultTimeoutSeconds ?? 30, 1), maxTimeout);
  const cap = options.maxOutputBytes ?? 32 * 1024;
  if (params.command.trim() === "") return { message: "command must not be empty.", value: null, success: false };
  if (params.command.length > MAX_COMMAND_LENGTH) return { message: `command is longer than ${MAX_COMMAND_LENGTH} characters.`, value: null, success: false };
  if ((params.stdin ?? "").length > MAX_STDIN_LENGTH) return { message: `stdin is longer than ${MAX_STDIN_LENGTH} characters.`, value: null, success: false };
  if (params.command.includes("\u0000") || (params.stdin ?? "").includes("\u0000")) return { message: "command and stdin must not contain NUL characters.", value: null, success: false };
  let cwd: string;
  try {
    cwd = joinPath(runner.workdir, resolveWorkspacePath(params.cwd ?? "", { mountPoint: runner.workdir }));
  } catch (error) {
    return { message: `Invalid cwd ${JSON.stringify(params.cwd)}: ${error instanceof Error ? error.message : String(error)}`, value: null, success: false };
  }
  let result: ContainerExecResult;
  try {
    result = await runner.exec(["/bin/sh", "-c", params.command], {
      cwd,
      timeoutMs: timeoutSeconds * 1000,
      maxOutputBytes: cap,
      ...(params.stdin === undefined ? {} : { stdin: params.stdin }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    const detail = error instanceof WinkError || error instanceof Error ? error.message : String(error);
    return { message: `The command could not be run in the container: ${detail}`, value: null, success: false };
  }
  const value: ShellValue = {
    __type__: TOOL_VALUE_TYPES.shellResult,
    command: params.command,
    cwd,
    exit_code: result.exitCode,
    stdout: result.stdout.toString("utf8"),
    stderr: result.stderr.toString("utf8"),
    stdout_truncated: result.stdoutTruncated,
    stderr_truncated: result.stderrTruncated,
    stdout_bytes: result.stdoutBytes,
    stderr_bytes: result.stderrBytes,
    timed_out: result.timedOut,
    duration_ms: result.durationMs,
  };
  const status = result.timedOut
    ? `Command timed out after ${timeoutSeconds} s and was killed (exit code 124).`
    : result.exitCode === 0
      ? "Command succeeded (exit code 0)."
      : `Command failed with exit code ${result.exitCode}.`;
  const message = [status, describeStream("stdout", value.stdout, value.stdout_truncated, value.stdout_bytes, cap), describeStream("stderr", value.stderr, value.stderr_truncated, value.stderr_bytes, cap)].join("\n");
  return { message, value, success: result.exitCode === 0 && !result.timedOut };
}

const PARAMETERS = toolParameters({
  command: Type.String({ description: "Shell command line, run with /bin/sh -c inside the container.", minLength: 1 }),
  cwd: Type.Optional(Type.String({ description: "Working directory, relative to the workspace (default: the workspace root)." })),
  stdin: Type.Optional(Type.String({ description: "Text passed to the command's standard input." })),
  timeout_seconds: Type.Optional(Type.Integer({ description: "Deadline in seconds; the command is killed when it passes.", minimum: 1, maximum: 600 })),
});

/** The shell tool bound to one container. */
export function createShellTool(runner: CommandRunner, options: ShellToolOptions = {}): ToolDefinition<ShellValue> {
  const maxTimeout = options.maxTimeoutSeconds ?? 120;
  return {
    name: options.name ?? "shell_execute",
    description: `Run a short shell command inside the sandbox container (no network; /workspace is the shared workspace). Deadline: ${options.defaultTimeoutSeconds ?? 30} s by default, at most ${maxTimeout} s; output is capped at ${options.maxOutputBytes ?? 32 * 1024} bytes per stream.`,
    parameters: exposedParameters(PARAMETERS),
    mutates: true,
    async handler(rawParams: unknown, context: ToolContext): Promise<ToolResult<ShellValue>> {
      const parsed = await parseParams(PARAMETERS, rawParams);
      if (!parsed.ok) return { message: `${options.name ?? "shell_execute"}: ${parsed.message}`, value: null, success: false };
      return runShellCommand(runner, parsed.params, options, context.signal);
    },
  };
}
