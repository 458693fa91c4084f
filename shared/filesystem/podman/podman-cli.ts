/**
 * The podman command line, as every part of the container backend calls it: always an argv
 * array (never a shell), with the OCI runtime chosen once.
 *
 * Runtime: `options.runtime`, else `$WINK_PODMAN_RUNTIME` (empty = podman's default), else
 * `runc` when it is installed (the machines we test on need it: crun is absent), else
 * podman's own default.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { BackendUnavailableError } from "../../errors.js";
import { runProcess, spawnFailure, type ProcessOptions, type ProcessResult } from "./process.js";

export interface PodmanOptions {
  /** The podman binary (default `$WINK_PODMAN` or "podman" on PATH). */
  readonly podmanPath?: string;
  /** OCI runtime passed as `--runtime`; null for podman's default (see module comment). */
  readonly runtime?: string | null;
}

function findOnPath(name: string): string | null {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
  for (const dir of dirs) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function defaultRuntime(): string | null {
  const fromEnv = process.env.WINK_PODMAN_RUNTIME;
  if (fromEnv !== undefined) return fromEnv === "" ? null : fromEnv;
  return findOnPath("runc") === null ? null : "runc";
}

/** Short, single-line excerpt of a command's stderr for error messages. */
export function stderrExcerpt(stderr: Buffer | string, max = 400): string {
  const text = (typeof stderr === "string" ? stderr : stderr.toString("utf8")).replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A configured podman CLI. */
export class Podman {
  readonly binary: string;
  readonly runtime: string | null;

  constructor(options: PodmanOptions = {}) {
    this.binary = options.podmanPath ?? process.env.WINK_PODMAN ?? "podman";
    this.runtime = options.runtime === undefined ? defaultRuntime() : options.runtime;
  }

  /** Full argv for a podman subcommand (global flags first). */
  argv(args: readonly string[]): string[] {
    return [...(this.runtime === null ? [] : ["--runtime", this.runtime]), ...args];
  }

  /** Run a podman subcommand to completion. */
  run(args: readonly string[], options: ProcessOptions = {}): Promise<ProcessResult> {
    return runProcess(this.binary, this.argv(args), options);
  }

  /** Run a subcommand that must succeed; its stdout, or EUNAVAILABLE naming `what` and podman's message. */
  async check(args: readonly string[], what: string, options: ProcessOptions = {}): Promise<Buffer> {
    const result = await this.run(args, options);
    if (result.exitCode !== 0) {
      const detail = result.timedOut ? "timed out" : stderrExcerpt(result.stderr) || `exit ${result.exitCode ?? result.signal}`;
      throw new BackendUnavailableError(`podman failed to ${what}: ${detail}`, { args: [...args], exitCode: result.exitCode, stderr: stderrExcerpt(result.stderr, 2000) });
    }
    return result.stdout;
  }

  /** Start a long-running podman subcommand with piped stdio. */
  spawn(args: readonly string[]): Promise<ChildProcessWithoutNullStreams> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, this.argv(args), { stdio: ["pipe", "pipe", "pipe"] });
      const onError = (error: unknown): void => reject(spawnFailure(this.binary, error));
      child.once("error", onError);
      child.once("spawn", () => {
        child.off("error", onError);
        resolve(child);
      });
    });
  }
}

let shared: Podman | null = null;

/** The process-wide default CLI (default binary and runtime detection). */
export function defaultPodman(): Podman {
  shared ??= new Podman();
  return shared;
}
