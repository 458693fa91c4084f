/**
 * A generated eval (issue 30's figures): RUNS runs in an EvalLoop layout
 * (`sample-NNNNN/<run file>`, one or two attempts a sample), session files and debug bundles
 * mixed, whose failures are drawn from {@link FAILURE_KINDS} (30 kinds) with messages that
 * vary in their numbers, ids, paths, URLs and quoted strings. Each kind says the signature its
 * messages must group under, so a test can ask for exactly those groups and a benchmark can
 * time indexing a realistic store.
 *
 * Session files are written by the library's WINK writer (`Session`, `dumpsPython`), padded
 * with passing calls to sizes drawn from the fixtures' range (9 KB–0.9 MB, mostly small);
 * bundles are copies of the real, failure-free WINK bundles of `fixtures/wink-bundles` (01 and
 * 06), given an `error.json` (rewritten by Python's `zipfile`, the manifest updated as WINK's
 * writer would have it) when the run errored. Deterministic: the same seed gives the same
 * files, byte for byte.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, readdir, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../fixtures/paths.js";
import { dumpsPython } from "../shared/session/python-json-dumps.js";
import { Session } from "../shared/session/session-model.js";
import { TOOL_INVOKED, toolInvoked } from "./failures.test-support.js";

const execFileAsync = promisify(execFile);

/** A small seeded generator (mulberry32): the same seed, the same eval. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  hex(length: number): string {
    let text = "";
    while (text.length < length) text += Math.floor(this.next() * 16).toString(16);
    // Both letters and digits, as a real id (all-digit hex reads as a number).
    return `${text.slice(0, length - 2)}a7`;
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

const DIRS = ["src", "src/pay", "lib/core", "services/api/handlers", "tests/unit", "docs/guide", "calc-service/src/calc", "web/components"];
const NAMES = ["parser", "main", "utils", "handler", "models", "views", "config", "client"];
const EXTS = ["py", "ts", "md", "rs", "go"];
const HOSTS = ["https://api.internal.example", "http://10.0.3.7:8080", "https://registry.example.org"];
const COMMANDS = ["pytest -q", "npm test", "make build", "cargo check", "go vet ./..."];

const filePath = (r: Random) => `${r.pick(DIRS)}/${r.pick(NAMES)}${r.int(0, 99)}.${r.pick(EXTS)}`;
const url = (r: Random) => `${r.pick(HOSTS)}/v${r.int(1, 3)}/items/${r.int(1, 99999)}`;
const seconds = (r: Random) => `${r.int(0, 59)}.${r.int(10, 99)}`;

/** A kind of failure: how its messages are made, and the signature they all must have (docs/eval.md "Signatures"). */
export interface FailureKind {
  /** The tool of a failed call; null for a run error (a bundle's `error.json`). */
  readonly tool: string | null;
  /** A run error's type. */
  readonly errorType?: string;
  readonly signature: string;
  readonly message: (r: Random, callId: string) => string;
  /** The call's parameters (its key argument first). */
  readonly params?: (r: Random) => Record<string, string>;
}

const call = (tool: string, template: string, message: FailureKind["message"], params?: FailureKind["params"]): FailureKind => ({ tool, signature: `${tool}: ${template}`, message, ...(params === undefined ? {} : { params }) });
const runError = (type: string, template: string, message: FailureKind["message"]): FailureKind => ({ tool: null, errorType: type, signature: `run error ${type}: ${template}`, message });

/** 24 kinds of failed call and 6 of run error, each with messages that vary as real ones do. */
export const FAILURE_KINDS: readonly FailureKind[] = [
  call("read_file", "File not found: <path>", (r) => `File not found: ${filePath(r)}`),
  call("read_file", "No such file or directory: <path>. Use ls or glob to find existing paths.", (r) => `No such file or directory: ${filePath(r)}. Use ls or glob to find existing paths.`),
  call("read_file", "File is too large to read: <path> is <n> bytes (limit <n>)", (r) => `File is too large to read: ${filePath(r)} is ${r.int(2, 90)},${r.int(100, 999)},${r.int(100, 999)} bytes (limit ${r.int(1, 9)},048,576)`),
  call("write_file", "File <str> must be read before overwriting.", (r) => `File '${filePath(r)}' must be read before overwriting.`),
  call("write_file", "Error: refusing to write outside the workspace: <path>", (r) => `Error: refusing to write outside the workspace: ../../${r.pick(["etc/hosts", "root/.ssh/id_rsa", "var/log/syslog"])}`),
  call("edit_file", "old_string occurs <n> times in <path>. Include more surrounding text to make the match unique.", (r) => `old_string occurs ${r.int(2, 40)} times in ${filePath(r)}. Include more surrounding text to make the match unique.`),
  call("edit_file", "No match for old_string in <path>", (r) => `No match for old_string in ${filePath(r)}`),
  call("apply_patch", "Patch failed at hunk <n> of <path>", (r) => `Patch failed at hunk ${r.int(1, 30)} of ${filePath(r)}`),
  call("run_tests", "exit code <n>: <n> failed, <n> passed in <n>s", (r) => `exit code ${r.int(1, 2)}: ${r.int(1, 40)} failed, ${r.int(0, 900)} passed in ${seconds(r)}s`),
  call("run_tests", "AssertionError at <path>: expected <n> but got <n>", (r) => `AssertionError at ${filePath(r)}:${r.int(1, 900)}: expected ${r.int(0, 1000)} but got ${r.int(0, 1000)}`),
  call("run_tests", "Test session <id> crashed with signal <n>", (r) => `Test session ${r.uuid()} crashed with signal ${r.pick([6, 9, 11])}`),
  call("bash", "Command <str> exited with status <n> after <n>s", (r) => `Command \`${r.pick(COMMANDS)}\` exited with status ${r.int(1, 255)} after ${seconds(r)}s`, (r) => ({ command: r.pick(COMMANDS) })),
  call("bash", "Timed out after <n> seconds waiting for process <n>", (r) => `Timed out after ${r.int(30, 600)} seconds waiting for process ${r.int(100, 65000)}`, (r) => ({ command: r.pick(COMMANDS) })),
  call("bash", "Killed: process used <n> MiB, over the limit of <n> MiB", (r) => `Killed: process used ${r.int(513, 4096)} MiB, over the limit of ${r.pick([512, 1024])} MiB`, (r) => ({ command: r.pick(COMMANDS) })),
  call("bash", "Working directory <path> does not exist", (r) => `Working directory /work/${r.pick(DIRS)} does not exist`, (r) => ({ command: r.pick(COMMANDS) })),
  call("search", "Validation error: Invalid regex pattern: unterminated character set at position <n>", (r) => `Validation error: Invalid regex pattern: unterminated character set at position ${r.int(0, 40)}`, (r) => ({ pattern: `[${r.pick(NAMES)}` })),
  call("list_dir", "Permission denied: <path>", (r) => `Permission denied: /${r.pick(DIRS)}`),
  call("lint", "<n> lint errors in <path>", (r) => `${r.int(1, 99)} lint errors in ${filePath(r)}`),
  call("git", "merge conflict in <path> (commit <id>)", (r) => `merge conflict in ${filePath(r)} (commit ${r.hex(12)})`, () => ({ command: "git merge origin/main" })),
  call("query_db", "relation <str> does not exist", (r) => `relation "${r.pick(["users", "orders", "invoices", "events"])}_${r.int(1, 9)}" does not exist`, () => ({ sql: "select * from users" })),
  call("install", "Package version <n> not found in registry", (r) => `Package version ${r.int(0, 9)}.${r.int(0, 30)}.${r.int(0, 99)} not found in registry`, () => ({ package: "left-pad" })),
  call("fetch_url", "Request to <url> timed out after <n> ms", (r) => `Request to ${url(r)} timed out after ${r.int(1000, 30000)} ms`, (r) => ({ url: url(r) })),
  call("fetch_url", "GET <url> returned <n> Service Unavailable", (r) => `GET ${url(r)} returned 503 Service Unavailable`, (r) => ({ url: url(r) })),
  call("note", "Validation error: target: expected str", () => "Validation error: target: expected str", () => ({ target: "" })),
  runError("DeadlineExceededError", "Deadline of <n>s exceeded at <id>", (r, callId) => `Deadline of ${r.int(10, 600)}s exceeded at ${callId}`),
  runError("BudgetExceededError", "Token budget of <n> exceeded: used <n> tokens", (r) => `Token budget of ${r.int(10, 200)},000 exceeded: used ${r.int(200, 900)},${r.int(100, 999)} tokens`),
  runError("ToolTimeoutError", "Tool <str> timed out after <n> s", (r) => `Tool '${r.pick(["bash", "run_tests", "fetch_url"])}' timed out after ${r.int(30, 900)} s`),
  runError("PromptEvaluationError", "Model returned invalid JSON at line <n> column <n>", (r) => `Model returned invalid JSON at line ${r.int(1, 400)} column ${r.int(1, 120)}`),
  runError("ConnectionError", "Connection to <url> refused", (r) => `Connection to ${url(r)} refused`),
  runError("RuntimeError", "Sandbox <id> exited unexpectedly with code <n>", (r) => `Sandbox ${r.uuid()} exited unexpectedly with code ${r.int(1, 255)}`),
];

export interface EvalCorpusOptions {
  readonly runs: number;
  readonly seed?: number;
  /** Share of runs that fail (a failed call or a run error), default 0.3. */
  readonly failedShare?: number;
  /** Share of runs that are debug bundles, default 0.4. */
  readonly bundleShare?: number;
  /** Cap on a session file's size in bytes (default 900 KB, the fixtures' largest). */
  readonly maxSessionBytes?: number;
  /** Told after each run written. */
  readonly onProgress?: (written: number, total: number) => void;
}

/** What was written: per signature, its occurrences and the runs it is in, as the groups must count them. */
export interface EvalCorpus {
  readonly runs: number;
  readonly failedRuns: number;
  readonly bytes: number;
  readonly kinds: ReadonlyMap<string, { occurrences: number; runs: number }>;
}

interface BundleJob {
  readonly source: string;
  readonly target: string;
  readonly error: string | null;
  readonly mtime: number;
}

/** Sizes drawn as the fixtures' are: most runs small, a few near the largest. */
function sessionSize(r: Random, max: number): number {
  const min = 9_000;
  return Math.min(max, Math.round(min * Math.pow(max / min, r.next() ** 3)));
}

const PADDING = "All good. ".repeat(40);

async function writeSessionRun(file: string, r: Random, sessionId: string, startedAt: number, failed: readonly { kind: FailureKind; callId: string }[], size: number): Promise<number> {
  let at = startedAt;
  const session = new Session({ sessionId, tags: { agent: "generated-eval" }, clock: () => new Date(at) });
  // Passing calls to the size drawn (each ~1 KB as written), the failed ones among them.
  const passing = Math.max(1, Math.round(size / 1100));
  const failAt = new Map<number, { kind: FailureKind; callId: string }[]>();
  for (const entry of failed) {
    const at = r.int(0, passing);
    failAt.set(at, [...(failAt.get(at) ?? []), entry]);
  }
  let index = 0;
  const append = (tool: string, params: Record<string, string>, message: string, success: boolean, callId: string) => {
    at = startedAt + (index + 1) * 2000;
    session.append(TOOL_INVOKED, toolInvoked(sessionId, index, new Date(at), { tool, params, message, success, callId }, "generated-eval"));
    index += 1;
  };
  for (let i = 0; i <= passing; i++) {
    for (const { kind, callId } of failAt.get(i) ?? []) append(kind.tool as string, kind.params?.(r) ?? { file_path: filePath(r) }, kind.message(r, callId), false, callId);
    if (i < passing) append("read_file", { file_path: filePath(r) }, PADDING, true, `call_${r.hex(16)}`);
  }
  const text = `${dumpsPython(session.snapshot().raw, { sortKeys: true })}\n`;
  await writeFile(file, text);
  const modified = new Date(at + 60_000);
  await utimes(file, modified, modified);
  return Buffer.byteLength(text);
}

const BUNDLE_SCRIPT = [
  "import hashlib, json, os, sys, time, zipfile",
  "for job in json.load(sys.stdin):",
  "    source, target, error, mtime = job['source'], job['target'], job['error'], job['mtime']",
  "    with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, 'w', zipfile.ZIP_DEFLATED) as out:",
  "        manifest = json.loads(z.read('debug_bundle/manifest.json'))",
  "        if error is not None:",
  "            data = error.encode()",
  "            manifest['request']['status'] = 'error'",
  "            manifest['files'] = sorted(set(manifest['files']) | {'error.json'})",
  "            manifest['integrity']['checksums']['error.json'] = hashlib.sha256(data).hexdigest()",
  "            stamp = zipfile.ZipInfo('debug_bundle/error.json', date_time=time.gmtime(mtime)[:6])",
  "            stamp.compress_type = zipfile.ZIP_DEFLATED",
  "            out.writestr(stamp, data)",
  "        for info in z.infolist():",
  "            if info.filename == 'debug_bundle/error.json': continue",
  "            out.writestr(info, json.dumps(manifest, indent=2).encode() if info.filename == 'debug_bundle/manifest.json' else z.read(info))",
  "    os.utime(target, (mtime, mtime))",
].join("\n");

/** Writes the eval under `root` (which should be empty). */
export async function writeEvalCorpus(root: string, options: EvalCorpusOptions): Promise<EvalCorpus> {
  const r = new Random(options.seed ?? 30);
  const failedShare = options.failedShare ?? 0.3;
  const bundleShare = options.bundleShare ?? 0.4;
  const maxSessionBytes = options.maxSessionBytes ?? 900_000;
  const callKinds = FAILURE_KINDS.filter((kind) => kind.tool !== null);
  const errorKinds = FAILURE_KINDS.filter((kind) => kind.tool === null);
  const bundleSources = [path.join(WINK_BUNDLE_FIXTURES, "01-small-success"), path.join(WINK_BUNDLE_FIXTURES, "06-iterations")];
  const bundles: string[] = [];
  for (const dir of bundleSources) for (const name of (await readdir(dir)).sort()) if (name.endsWith(".zip")) bundles.push(path.join(dir, name));
  const passingSession = path.join(WINK_FIXTURES, "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl");
  const kinds = new Map<string, { occurrences: number; runs: number }>(FAILURE_KINDS.map((kind) => [kind.signature, { occurrences: 0, runs: 0 }]));
  const count = (kind: FailureKind, occurrences: number) => {
    const entry = kinds.get(kind.signature) as { occurrences: number; runs: number };
    entry.occurrences += occurrences;
    entry.runs += 1;
  };
  const jobs: BundleJob[] = [];
  const start = Date.UTC(2026, 10, 1);
  let bytes = 0;
  let failedRuns = 0;
  for (let run = 0; run < options.runs; run++) {
    // Every kind occurs at least once (the first runs go through them in turn), then at random.
    const forced = run < FAILURE_KINDS.length ? (FAILURE_KINDS[run] as FailureKind) : null;
    const fails = forced !== null || r.next() < failedShare;
    const asBundle = forced !== null ? forced.tool === null : r.next() < bundleShare;
    const dir = path.join(root, `sample-${String(Math.floor(run / 2)).padStart(5, "0")}`);
    await mkdir(dir, { recursive: true });
    const startedAt = start + run * 97_000;
    if (fails) failedRuns += 1;
    if (asBundle) {
      let error: string | null = null;
      if (fails) {
        const kind = forced ?? r.pick(errorKinds);
        error = JSON.stringify({ type: kind.errorType, message: kind.message(r, `call_${r.hex(16)}`), traceback: ["Traceback (most recent call last):\n", `${kind.errorType}: failed\n`] }, null, 2);
        count(kind, 1);
      }
      const stamp = new Date(startedAt).toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
      jobs.push({ source: r.pick(bundles), target: path.join(dir, `${r.uuid()}_${stamp}.zip`), error, mtime: Math.floor(startedAt / 1000) + 300 });
    } else if (fails || r.next() < 0.5) {
      const failed: { kind: FailureKind; callId: string }[] = [];
      if (fails) {
        const first = forced ?? r.pick(callKinds);
        failed.push({ kind: first, callId: `call_${r.hex(16)}` });
        // Some runs fail twice, once in the same way.
        if (r.next() < 0.25) failed.push({ kind: r.next() < 0.5 ? first : r.pick(callKinds), callId: `toolu_01${r.hex(14)}` });
        const seen = new Map<FailureKind, number>();
        for (const entry of failed) seen.set(entry.kind, (seen.get(entry.kind) ?? 0) + 1);
        for (const [kind, occurrences] of seen) count(kind, occurrences);
      }
      bytes += await writeSessionRun(path.join(dir, `${r.uuid()}.jsonl`), r, r.uuid(), startedAt, failed, sessionSize(r, maxSessionBytes));
    } else {
      const file = path.join(dir, `${r.uuid()}.jsonl`);
      await copyFile(passingSession, file);
      await utimes(file, new Date(startedAt + 60_000), new Date(startedAt + 60_000));
      bytes += 9145;
    }
    options.onProgress?.(run + 1, options.runs);
  }
  for (let at = 0; at < jobs.length; at += 2000) {
    const batch = jobs.slice(at, at + 2000);
    const child = execFileAsync("python3", ["-c", BUNDLE_SCRIPT], { maxBuffer: 1 << 20 });
    child.child.stdin?.end(JSON.stringify(batch));
    await child;
  }
  for (const job of jobs) bytes += (await stat(job.target)).size;
  for (const [signature, entry] of kinds) if (entry.runs === 0) kinds.delete(signature);
  return { runs: options.runs, failedRuns, bytes, kinds };
}
