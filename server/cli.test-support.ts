/**
 * The real CLI as a child process, for tests that talk to it over HTTP on loopback (or send
 * it signals): started from its sources through tsx, killed by `stopClis()` if still running.
 */
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { packageRoot } from "./package-root.js";

const children: ChildProcessWithoutNullStreams[] = [];

export interface RunningCli {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: () => string;
  readonly errors: () => string;
  readonly exit: Promise<number | null>;
}

/**
 * Runs the CLI from its sources. `withoutDacOverride`: as root without the capabilities that
 * let root read any file (setpriv drops them from the bounding set), so a mode-000 file is
 * really unreadable to it, as it is to any user. `env`: its whole environment (default: this
 * process's).
 */
export function startCli(args: string[], options: { withoutDacOverride?: boolean; env?: NodeJS.ProcessEnv } = {}): RunningCli {
  const command = [process.execPath, "--import", "tsx", path.join(packageRoot(), "server", "cli.ts"), ...args];
  if (options.withoutDacOverride === true) command.unshift("setpriv", "--bounding-set", "-dac_override,-dac_read_search");
  const child = spawn(command[0] as string, command.slice(1), { cwd: packageRoot(), env: { ...(options.env ?? process.env), NODE_NO_WARNINGS: "1" } });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => stdout, errors: () => stderr, exit };
}

/** The URL the CLI prints once it listens. */
export async function waitForUrl(output: () => string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /http:\/\/127\.0\.0\.1:\d+\//.exec(output());
    if (match !== null) return match[0];
    if (Date.now() > deadline) throw new Error(`no URL printed; output: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Kills every CLI still running (SIGKILL). */
export function stopClis(): void {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
