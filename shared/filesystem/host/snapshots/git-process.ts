/**
 * Running the git CLI for snapshots, hardened against the workspace and the user.
 *
 * Every invocation gets a clean environment (no `GIT_*` from the caller, no system or
 * global config, HOME pointing at an empty directory) and `-c` overrides that switch off
 * everything that could execute code or rewrite bytes: hooks, fsmonitor, autocrlf,
 * filters (attributes force `-text -diff -merge -filter`), signing, excludes, replace
 * refs, transports. Command-line `-c` wins over whatever a (custom) git directory's own
 * config says. Arguments are passed as an argv array (`execFile`/`spawn`, never a shell)
 * and every path that reaches git goes after `--` or through stdin.
 */
import { execFile, spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";

import { BackendUnavailableError } from "../../../errors.js";
import { errnoCode } from "../../errno.js";

/** The attributes every snapshot repository uses: bytes in, bytes out. */
export const FORCED_ATTRIBUTES = "* -text -diff -merge -filter binary\n";

/** Where the repository keeps our own files (home for git, workspace index). */
export const WINK_SUBDIR = "wink";

export interface GitResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
}

/** A git command that exited non-zero (or could not start). */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly errno?: string,
  ) {
    super(`git ${args.filter((a) => !a.startsWith("-c")).slice(0, 3).join(" ")} failed (${errno ?? `exit ${exitCode}`}): ${stderr.trim().slice(0, 500)}`);
    this.name = "GitCommandError";
  }
}

function hardeningConfig(gitDir: string): string[] {
  const settings = [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.protectNTFS=false",
    "core.protectHFS=false",
    `core.attributesFile=${path.join(gitDir, "info", "attributes")}`,
    "core.excludesFile=/dev/null",
    "core.pager=cat",
    "core.quotePath=true",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "gpg.program=/bin/false",
    "safe.directory=*",
    "color.ui=false",
    "protocol.allow=never",
    "gc.autoDetach=false",
    "maintenance.auto=false",
    "fastimport.unpackLimit=64",
    "user.name=WINK Snapshots",
    "user.email=wink@localhost",
  ];
  return settings.flatMap((setting) => ["-c", setting]);
}

/** Environment for git: only PATH (and TMPDIR) survive from the caller. */
export function isolatedGitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_PROTOCOL_FROM_USER: "0",
    LC_ALL: "C",
    LANG: "C",
    // fast-import and cat-file allocate and free a zlib stream per object at the top of
    // glibc's heap; with the default 128 KiB trim threshold every free returns the pages
    // with brk() and the next object asks for them again. 50,000 blobs made ~200,000 brk
    // calls: 15.8 s of a first snapshot instead of 0.56 s on this VM, where each costs ~33 us.
    // Other libcs ignore the variable.
    GLIBC_TUNABLES: "glibc.malloc.trim_threshold=67108864",
  };
  if (process.env.TMPDIR !== undefined) env.TMPDIR = process.env.TMPDIR;
  return env;
}

/** Runs git against one bare repository (and optionally a work tree). */
export class GitProcess {
  readonly gitDir: string;
  readonly workTree: string | null;
  private readonly binary: string;
  private readonly home: string;

  constructor(gitDir: string, workTree: string | null, binary = "git") {
    this.gitDir = gitDir;
    this.workTree = workTree;
    this.binary = binary;
    this.home = path.join(gitDir, WINK_SUBDIR, "home");
  }

  /** argv prefix: hardening, then the repository and work tree (as `--opt=value`, so no path is read as an option). */
  private baseArgs(): string[] {
    const args = [...hardeningConfig(this.gitDir), `--git-dir=${this.gitDir}`];
    if (this.workTree !== null) args.push(`--work-tree=${this.workTree}`);
    return args;
  }

  private spawnOptions(): { env: NodeJS.ProcessEnv; cwd: string } {
    // HOME must exist but stay empty; created lazily because a git dir can be adopted.
    mkdirSync(this.home, { recursive: true });
    return { env: isolatedGitEnv(this.home), cwd: this.gitDir };
  }

  /** Run to completion; rejects with GitCommandError unless the exit code is in `okCodes`. */
  run(args: readonly string[], options: { input?: Buffer | string; okCodes?: readonly number[] } = {}): Promise<GitResult> {
    const okCodes = options.okCodes ?? [0];
    const fullArgs = [...this.baseArgs(), ...args];
    return new Promise((resolve, reject) => {
      let spawnOptions: { env: NodeJS.ProcessEnv; cwd: string };
      try {
        spawnOptions = this.spawnOptions();
      } catch (error) {
        reject(new GitCommandError(args, null, error instanceof Error ? error.message : String(error), errnoCode(error)));
        return;
      }
      const child = execFile(
        this.binary,
        fullArgs,
        { ...spawnOptions, encoding: "buffer", maxBuffer: 1024 * 1024 * 1024, windowsHide: true },
        (error, stdout, stderr) => {
          const stderrText = stderr.toString("utf8");
          if (error && typeof (error as { code?: unknown }).code === "string") {
            reject(new GitCommandError(args, null, stderrText || error.message, (error as { code: string }).code));
            return;
          }
          const exitCode = error ? (typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : -1) : 0;
          if (!okCodes.includes(exitCode)) {
            reject(new GitCommandError(args, exitCode, stderrText));
            return;
          }
          resolve({ stdout, stderr: stderrText, exitCode });
        },
      );
      child.stdin?.on("error", () => {
        // git may exit before reading all input (e.g. on a usage error); the exit code reports it.
      });
      if (options.input !== undefined) child.stdin?.end(options.input);
      else child.stdin?.end();
    });
  }

  /** Start a long-running git process (fast-import, cat-file --batch) with piped stdio. */
  spawn(args: readonly string[]): ChildProcessWithoutNullStreams {
    return spawn(this.binary, [...this.baseArgs(), ...args], { ...this.spawnOptions(), stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
  }

  /**
   * `spawn`, started by `/bin/sh` running `prelude` first (with `env` added to git's and a
   * fourth pipe, fd 3), which then runs `exec "$@"`: git with its arguments, never part of
   * the script text. One process start for git and a helper (see FindWalk.besideGit).
   */
  spawnAfterShell(prelude: string, env: Record<string, string>, args: readonly string[]): ChildProcess {
    const options = this.spawnOptions();
    return spawn("/bin/sh", ["-c", prelude, "sh", this.binary, ...this.baseArgs(), ...args], { ...options, env: { ...options.env, ...env }, stdio: ["pipe", "pipe", "pipe", "pipe"], windowsHide: true });
  }
}

let gitAvailable: Promise<boolean> | null = null;

/** True when a working `git` binary is on PATH (checked once per process). */
export function isGitAvailable(): Promise<boolean> {
  gitAvailable ??= new Promise((resolve) => {
    execFile("git", ["--version"], { env: isolatedGitEnv("/nonexistent"), timeout: 10_000 }, (error, stdout) => {
      resolve(!error && /^git version \d+\.\d+/.test(String(stdout)));
    });
  });
  return gitAvailable;
}

/** Fail early with a clear message when git is missing. */
export async function requireGit(): Promise<void> {
  if (!(await isGitAvailable())) {
    throw new BackendUnavailableError("The git snapshot strategy needs the `git` command, which was not found or does not run", { strategy: "git" });
  }
}
