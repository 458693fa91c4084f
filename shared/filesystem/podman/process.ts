/**
 * Running a child process with a deadline and bounded output: the one place where the podman
 * CLI and commands in containers are started. Output beyond the cap is counted but dropped,
 * so a chatty command can never exhaust our memory.
 */
import { spawn } from "node:child_process";
import { BackendUnavailableError } from "../../errors.js";
import { errnoCode } from "../errno.js";

export interface ProcessOptions {
  /** Bytes written to the process's stdin (then closed). Default: stdin closed at once. */
  readonly stdin?: Uint8Array | null;
  /** Kill the process after this many milliseconds (default: no deadline). */
  readonly timeoutMs?: number | null;
  /** Keep at most this many bytes of stdout and of stderr each (default 8 MiB). */
  readonly maxOutputBytes?: number;
  /** Called once when the deadline passes, before the process itself is killed. */
  readonly onTimeout?: () => Promise<void>;
  /** Abort like a timeout. */
  readonly signal?: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
  /** Rewrites stdout chunks before they are counted and kept (e.g. to strip a preamble). */
  readonly transformStdout?: (chunk: Buffer) => Buffer;
}

export interface ProcessResult {
  /** Exit code, or null when the process was ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** Bytes the process wrote, including those dropped beyond the cap. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly durationMs: number;
}

const DEFAULT_MAX_OUTPUT = 8 * 1024 * 1024;

/** Collects up to `cap` bytes of a stream, counting the rest. */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }
}

/** The error for a program that could not be started at all (missing binary, no permission). */
export function spawnFailure(command: string, error: unknown): BackendUnavailableError {
  const code = errnoCode(error);
  const reason = code === "ENOENT" ? "not found on PATH" : error instanceof Error ? error.message : String(error);
  return new BackendUnavailableError(`Cannot run ${command}: ${reason}`, { command, errno: code ?? null }, { cause: error });
}

/** Run `command args` to completion. Rejects only when the program cannot be started. */
export function runProcess(command: string, args: readonly string[], options: ProcessOptions = {}): Promise<ProcessResult> {
  const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env });
    const stdout = new CappedBuffer(cap);
    const stderr = new CappedBuffer(cap);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let timer: NodeJS.Timeout | null = null;

    const stop = (why: "timeout" | "abort"): void => {
      if (settled || timedOut || aborted) return;
      if (why === "timeout") timedOut = true;
      else aborted = true;
      const hook = options.onTimeout ? options.onTimeout().catch(() => undefined) : Promise.resolve();
      // The hook ends the work where it runs (e.g. inside a container); the client goes too.
      void hook.finally(() => {
        if (!settled) child.kill("SIGKILL");
      });
    };
    const onAbort = (): void => stop("abort");

    if (options.timeoutMs !== undefined && options.timeoutMs !== null) timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    if (options.signal) {
      if (options.signal.aborted) queueMicrotask(onAbort);
      else options.signal.addEventListener("abort", onAbort, { once: true });
    }

    const transform = options.transformStdout;
    child.stdout.on("data", (chunk: Buffer) => stdout.push(transform ? transform(chunk) : chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    // EPIPE on stdin when the program exits without reading everything is not our error.
    child.stdin.on("error", () => undefined);
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(spawnFailure(command, error));
    });
    child.on("close", (exitCode, signal) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        signal,
        stdout: stdout.toBuffer(),
        stderr: stderr.toBuffer(),
        stdoutBytes: stdout.total,
        stderrBytes: stderr.total,
        timedOut,
        aborted,
        durationMs: Date.now() - started,
      });
    });
    if (options.stdin && options.stdin.length > 0) child.stdin.end(options.stdin);
    else child.stdin.end();
  });
}
