/**
 * Regular-expression search that never hangs the caller.
 *
 * A user pattern can backtrack for minutes (`(a+)+$` on 30 characters takes seconds in V8).
 * So matching runs in a worker thread with a wall-clock budget: the event loop keeps serving
 * other work, and a pattern that runs out of time ends with ETIMEDOUT instead of a hang
 * (the worker is terminated, which interrupts even a backtracking regex). The worker also
 * turns on V8's linear-time fallback for excessive backtracking, so most pathological
 * patterns finish quickly instead of timing out.
 *
 * Semantics (documented in docs/filesystem.md): JavaScript RegExp syntax, without the `u` flag
 * unless the pattern uses `\p{…}`/`\u{…}`; a leading inline-flag group such as
 * `(?i)` is accepted; matching is per line (Python's `str.splitlines()` lines, as WINK, see
 * `text.ts`);
 * only the first match of a line is reported; files that are not valid UTF-8 or contain a
 * NUL byte are skipped.
 */
import { Worker } from "node:worker_threads";
import { InvalidArgumentError, OperationTimeoutError } from "../errors.js";
import type { GrepMatch } from "./protocol.js";
import { LINE_BREAK_SOURCE } from "./text.js";

export interface CompiledPattern {
  readonly source: string;
  readonly flags: string;
}

/** Validate and compile a grep pattern; EINVAL "Invalid regex" when it does not compile. */
export function compileGrepPattern(pattern: unknown, options: { ignoreCase?: boolean; maxLength: number }): CompiledPattern {
  if (typeof pattern !== "string") throw new InvalidArgumentError("Invalid regex: pattern must be a string", { pattern: String(pattern) });
  if (pattern.length > options.maxLength) {
    throw new InvalidArgumentError(`Invalid regex: pattern longer than ${options.maxLength} characters (unsupported)`, {
      pattern: pattern.slice(0, 100),
      reason: "too-long",
    });
  }
  let source = pattern;
  let flags = options.ignoreCase ? "i" : "";
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const flag of inline[1] as string) {
      if (flag === "i" && !flags.includes("i")) flags += "i";
      if (flag === "s" && !flags.includes("s")) flags += "s";
      if (flag === "x") throw new InvalidArgumentError("Invalid regex: verbose mode (?x) is not supported", { pattern });
    }
  }
  // Without `u` by default: V8's linear-time fallback (which defuses most catastrophic
  // patterns) does not support it. Patterns that need Unicode escapes get it.
  const candidates = /\\[pPu]\{/.test(source) ? [`${flags}u`] : [flags, `${flags}u`];
  for (const candidate of candidates) {
    try {
      new RegExp(source, candidate);
      return { source, flags: candidate };
    } catch (error) {
      if (candidate === candidates[candidates.length - 1]) {
        const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : String(error);
        throw new InvalidArgumentError(`Invalid regex: ${reason}`, { pattern, reason: "syntax" });
      }
    }
  }
  /* c8 ignore next */
  throw new InvalidArgumentError("Invalid regex", { pattern });
}

export interface GrepFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

interface WorkerRequest {
  readonly id: number;
  readonly source: string;
  readonly flags: string;
  readonly files: readonly GrepFile[];
  readonly maxMatches: number;
}

type WorkerReply = { id: number; matches: GrepMatch[] } | { id: number; error: string };

/**
 * The worker's program, as plain JavaScript source (`eval: true`): it then runs the same from
 * TypeScript sources under test and from the compiled package, untouched by any transform.
 * Protocol: WorkerRequest in, WorkerReply out.
 */
const WORKER_SOURCE = String.raw`
const { parentPort } = require("node:worker_threads");
const LINE_BREAK = ${JSON.stringify(LINE_BREAK_SOURCE)};
require("node:v8").setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
let cached = null;

// Exact semantics are per line, lines being Python's str.splitlines() lines. To avoid
// slicing every line, a pattern without lookarounds is first run over the whole text ("gm")
// when "\n" is the text's only line break: any line that matches on its own also matches
// there (a substring match stays a match; ^/$ with "m" sit at "\n"), so the whole-text
// matches only point at candidate lines, each then checked alone. Text with other breaks
// ("\r", "\v", "\u2028"…) is searched line by line.
const OTHER_BREAK = /[\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
function compile(source, flags) {
  const line = new RegExp(source, flags);
  const scannable = !/\(\?<?[=!]/.test(source);
  const scan = scannable ? new RegExp(source, flags + "gm") : null;
  return { line, scan };
}

function countNewlines(text, from, to) {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function matchLine(regex, line, lineNumber, path, matches) {
  const match = regex.exec(line);
  if (match === null) return false;
  matches.push({ path, lineNumber, lineContent: line, matchStart: match.index, matchEnd: match.index + match[0].length });
  return true;
}

function searchFile(compiled, path, text, matches, maxMatches) {
  if (!OTHER_BREAK.test(text)) {
    if (compiled.scan !== null) {
      const scan = compiled.scan;
      scan.lastIndex = 0;
      let counted = 0;
      let lineNumber = 1;
      for (;;) {
        const found = scan.exec(text);
        if (found === null) return;
        const lineStart = found.index === 0 ? 0 : text.lastIndexOf("\n", found.index - 1) + 1;
        if (lineStart >= text.length) return;
        let lineEnd = text.indexOf("\n", found.index);
        if (lineEnd === -1) lineEnd = text.length;
        lineNumber += countNewlines(text, counted, lineStart);
        counted = lineStart;
        if (matchLine(compiled.line, text.slice(lineStart, lineEnd), lineNumber, path, matches) && matches.length >= maxMatches) return;
        if (lineEnd >= text.length) return;
        scan.lastIndex = lineEnd + 1;
      }
    }
    let start = 0;
    let lineNumber = 0;
    while (start < text.length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      lineNumber++;
      if (matchLine(compiled.line, text.slice(start, end), lineNumber, path, matches) && matches.length >= maxMatches) return;
      start = end + 1;
    }
    return;
  }
  const breaks = new RegExp(LINE_BREAK, "g");
  let start = 0;
  let lineNumber = 0;
  while (start < text.length) {
    breaks.lastIndex = start;
    const found = breaks.exec(text);
    const end = found === null ? text.length : found.index;
    lineNumber++;
    if (matchLine(compiled.line, text.slice(start, end), lineNumber, path, matches) && matches.length >= maxMatches) return;
    start = found === null ? text.length : end + found[0].length;
  }
}

parentPort.on("message", (request) => {
  try {
    const key = request.flags + "/" + request.source;
    if (cached === null || cached.key !== key) cached = { key, compiled: compile(request.source, request.flags) };
    const matches = [];
    for (const file of request.files) {
      if (file.bytes.includes(0)) continue;
      let text;
      try {
        text = decoder.decode(file.bytes);
      } catch {
        continue;
      }
      searchFile(cached.compiled, file.path, text, matches, request.maxMatches);
      if (matches.length >= request.maxMatches) break;
    }
    parentPort.postMessage({ id: request.id, matches });
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;
const MAX_IDLE_WORKERS = 2;
const idleWorkers: Worker[] = [];
let nextRequestId = 1;

function takeWorker(): Worker {
  const worker = idleWorkers.pop() ?? new Worker(WORKER_SOURCE, { eval: true });
  worker.unref();
  return worker;
}

function releaseWorker(worker: Worker): void {
  if (idleWorkers.length < MAX_IDLE_WORKERS) idleWorkers.push(worker);
  else void worker.terminate();
}

/**
 * One grep call's matcher: feed it batches of files in path order until it reports enough
 * matches. Every batch shares the call's deadline; `close()` returns the worker to the pool.
 */
export class GrepMatcher {
  private worker: Worker | null = null;
  private readonly deadline: number;

  constructor(
    private readonly pattern: CompiledPattern,
    private readonly budgetMs: number,
    private readonly signal?: AbortSignal,
  ) {
    this.deadline = Date.now() + budgetMs;
  }

  /** Remaining wall-clock budget; throws ETIMEDOUT once it is spent. */
  checkBudget(): void {
    if (Date.now() > this.deadline) this.timeout();
  }

  private timeout(): never {
    throw new OperationTimeoutError(`grep timed out after ${this.budgetMs} ms (pattern too expensive or tree too large): ${this.pattern.source.slice(0, 100)}`, {
      pattern: this.pattern.source.slice(0, 100),
      budgetMs: this.budgetMs,
    });
  }

  async match(files: readonly GrepFile[], maxMatches: number): Promise<GrepMatch[]> {
    if (files.length === 0 || maxMatches <= 0) return [];
    this.signal?.throwIfAborted();
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) this.timeout();
    const worker = (this.worker ??= takeWorker());
    const id = nextRequestId++;
    return await new Promise<GrepMatch[]>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        this.signal?.removeEventListener("abort", onAbort);
      };
      const kill = (): void => {
        cleanup();
        this.worker = null;
        void worker.terminate();
      };
      const onMessage = (reply: WorkerReply): void => {
        if (reply.id !== id) return;
        cleanup();
        if ("error" in reply) reject(new InvalidArgumentError(`Invalid regex: ${reply.error}`, { pattern: this.pattern.source }));
        else resolve(reply.matches);
      };
      const onError = (error: Error): void => {
        kill();
        reject(error);
      };
      const onAbort = (): void => {
        kill();
        reject(this.signal?.reason ?? new Error("aborted"));
      };
      const timer = setTimeout(() => {
        kill();
        try {
          this.timeout();
        } catch (error) {
          reject(error);
        }
      }, remaining);
      worker.on("message", onMessage);
      worker.on("error", onError);
      this.signal?.addEventListener("abort", onAbort, { once: true });
      const request: WorkerRequest = { id, source: this.pattern.source, flags: this.pattern.flags, files, maxMatches };
      worker.postMessage(request);
    });
  }

  close(): void {
    if (this.worker !== null) releaseWorker(this.worker);
    this.worker = null;
  }
}
