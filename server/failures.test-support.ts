/**
 * A generated eval for the `wink-debug failures` tests: session files written by the
 * library's WINK writer (`Session`, `dumpsPython`) with failed tool calls whose messages vary
 * in their numbers, ids and paths, and real WINK debug bundles given an `error.json` (rewritten
 * by Python's `zipfile`, the manifest's checksum updated, as WINK's writer would have it).
 */
import { execFile } from "node:child_process";
import { cp, mkdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { BUNDLE_SNIFF_BYTES } from "../shared/debug-bundle/index.js";
import { dumpsPython } from "../shared/session/python-json-dumps.js";
import { Session, pythonIsoTimestamp } from "../shared/session/session-model.js";
import { EVAL_RUN_PAGE_LIMIT } from "../shared/viewer/routes/requests.js";
import type { EvalRunPageView, EvalRunRowView, EvalSummaryView } from "../shared/viewer/index.js";

const execFileAsync = promisify(execFile);

export const TOOL_INVOKED = "weakincentives.runtime.events._types:ToolInvoked";

/** One tool call of a generated run. */
export interface GeneratedCall {
  readonly tool: string;
  readonly params: Record<string, string>;
  readonly message: string;
  readonly success: boolean;
  readonly callId: string;
}

/** A `ToolInvoked` event as WINK writes it: the `index`-th call of session `sessionId`, at `at`, from prompt `promptName`. */
export function toolInvoked(sessionId: string, index: number, at: Date, call: GeneratedCall, promptName: string): Record<string, unknown> {
  return {
    __type__: TOOL_INVOKED,
    created_at: pythonIsoTimestamp(at),
    event_id: `${sessionId.slice(0, 8)}-event-${index}`,
    session_id: sessionId,
    adapter: "scripted",
    call_id: call.callId,
    name: call.tool,
    params: call.params,
    prompt_name: promptName,
    rendered_output: call.message,
    result: { exclude_value_from_context: false, message: call.message, success: call.success, value: null },
    value: null,
  };
}

/**
 * Writes a one-line session file whose `ToolInvoked` events are `calls` (one every 2 s from
 * `startedAt`), with the file's modification time `startedAt` plus a minute.
 */
export async function writeSessionRun(file: string, sessionId: string, startedAt: Date, calls: readonly GeneratedCall[]): Promise<void> {
  let at = startedAt.getTime();
  const session = new Session({ sessionId, tags: { agent: "generated" }, clock: () => new Date(at) });
  calls.forEach((call, index) => {
    at = startedAt.getTime() + (index + 1) * 2000;
    session.append(TOOL_INVOKED, toolInvoked(sessionId, index, new Date(at), call, "generated"));
  });
  at += 1000;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${dumpsPython(session.snapshot().raw, { sortKeys: true })}\n`);
  const modified = new Date(startedAt.getTime() + 60_000);
  await utimes(file, modified, modified);
}

/** Copies the debug bundle `source` to `target` with an `error.json` of `type` and `message` (status `error`). */
export async function writeErroredBundle(source: string, target: string, type: string, message: string): Promise<void> {
  const error = JSON.stringify({ type, message, traceback: ["Traceback (most recent call last):\n", `${type}: ${message}\n`] }, null, 2);
  const script = [
    "import hashlib, json, sys, zipfile",
    "source, target, error = sys.argv[1], sys.argv[2], sys.argv[3].encode()",
    "with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, 'w', zipfile.ZIP_DEFLATED) as out:",
    "    manifest = json.loads(z.read('debug_bundle/manifest.json'))",
    "    manifest['request']['status'] = 'error'",
    "    manifest['files'] = sorted(set(manifest['files']) | {'error.json'})",
    "    manifest['integrity']['checksums']['error.json'] = hashlib.sha256(error).hexdigest()",
    "    out.writestr('debug_bundle/error.json', error)",
    "    for info in z.infolist():",
    "        data = json.dumps(manifest, indent=2).encode() if info.filename == 'debug_bundle/manifest.json' else z.read(info)",
    "        if info.filename != 'debug_bundle/error.json': out.writestr(info, data)",
  ].join("\n");
  await mkdir(path.dirname(target), { recursive: true });
  await execFileAsync("python3", ["-c", script, source, target, error]);
}

/**
 * `run`'s content replaced by as many bytes of garbage, its modification time kept: reading it
 * now gives "did not load", and only an index that still describes it gives its digest. A
 * bundle keeps its first bytes, so that the listing, which sniffs them, still lists it.
 */
export async function garbleRun(dir: string, run: string): Promise<void> {
  const file = path.join(dir, run);
  const before = await stat(file);
  const bytes = await readFile(file);
  bytes.fill("x", run.endsWith(".zip") ? BUNDLE_SNIFF_BYTES : 0);
  await writeFile(file, bytes);
  await utimes(file, before.atime, before.mtime);
}

const SMALL_SUCCESS = path.join(WINK_BUNDLE_FIXTURES, "01-small-success", "c958872d-4e41-4429-9f5f-48b054b977ea_20261126_054533.zip");
/** A real failed bundle of the mixed eval, as a path under `fixtures/` (its run is `pay/req-05/<its name>`). */
export const MIXED_EVAL_FAILED_RUN = path.join(WINK_BUNDLE_FIXTURES, "02-failed-run", "e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip");

const missingFile = (file: string, callId: string): GeneratedCall => ({ tool: "read_file", params: { path: file }, message: `No such file or directory: ${file}.`, success: false, callId });
/** A failed `pytest -q`, with its exit code. */
export const failedCommand = (exit: number, callId: string): GeneratedCall => ({ tool: "shell", params: { command: "pytest -q" }, message: `Command failed with exit code ${exit}`, success: false, callId });
const passedCall = (callId: string): GeneratedCall => ({ tool: "list_dir", params: { path: "." }, message: "3 entries", success: true, callId });
/** 10:00 UTC on `date` (YYYY-MM-DD). */
export const evalDay = (date: string): Date => new Date(`${date}T10:00:00Z`);
/** A file time with milliseconds, as a real file has (the index keeps milliseconds); .125 s is exact in a double, so utimes sets it to the nanosecond. */
const BUNDLE_TIME = new Date("2026-11-26T05:46:00.125Z");

/**
 * A small eval in an EvalLoop layout: session files with failed calls, real bundles (one with
 * an error.json), a file that does not load, a truth.json. Returns its files (relative paths).
 */
export async function writeMixedEval(root: string): Promise<string[]> {
  await writeSessionRun(path.join(root, "calc", "req-01", "run-01.jsonl"), "a0000000-0000-4000-8000-000000000001", evalDay("2026-11-20"), [passedCall("call_a1"), missingFile("src/a1.py", "call_4f9c2d1e8b7a")]);
  await writeSessionRun(path.join(root, "calc", "req-01", "run-02.jsonl"), "a0000000-0000-4000-8000-000000000002", evalDay("2026-11-21"), [missingFile("lib/x.ts", "call_77aa01bb02cc"), failedCommand(2, "call_0002")]);
  await writeSessionRun(path.join(root, "calc", "req-02", "run-03.jsonl"), "a0000000-0000-4000-8000-000000000003", evalDay("2026-11-22"), [passedCall("call_b1")]);
  await writeErroredBundle(SMALL_SUCCESS, path.join(root, "pay", "req-04", "b1000000-0000-4000-8000-000000000006_20261120_101500.zip"), "DeadlineExceededError", "Deadline exceeded after 30 s");
  await cp(MIXED_EVAL_FAILED_RUN, path.join(root, "pay", "req-05", path.basename(MIXED_EVAL_FAILED_RUN)));
  await writeFile(path.join(root, "calc", "req-02", "broken.jsonl"), "{not json\n");
  await writeFile(path.join(root, "truth.json"), JSON.stringify({ samples: 5 }));
  const runs = ["calc/req-01/run-01.jsonl", "calc/req-01/run-02.jsonl", "calc/req-02/run-03.jsonl", "pay/req-04/b1000000-0000-4000-8000-000000000006_20261120_101500.zip", `pay/req-05/${path.basename(MIXED_EVAL_FAILED_RUN)}`, "calc/req-02/broken.jsonl", "truth.json"];
  for (const run of runs.slice(3)) await utimes(path.join(root, run), BUNDLE_TIME, BUNDLE_TIME);
  return runs;
}

/** `/api/failures` with its runs: the summary and every run `/api/failures/runs` lists (the tests' evals fit one page). */
export type EvalWithRuns = EvalSummaryView & { readonly runs: EvalRunRowView[] };

/** Asks `/api/failures`, then its runs (one page of EVAL_RUN_PAGE_LIMIT), of a server at `url` (ending in `/`). */
export async function evalWithRuns(url: string): Promise<EvalWithRuns> {
  const ask = async <T>(route: string): Promise<T> => {
    const answer = await fetch(`${url}${route}`);
    if (answer.status !== 200) throw new Error(`${route}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as T;
  };
  const summary = await ask<EvalSummaryView>("api/failures");
  const page = await ask<EvalRunPageView>(`api/failures/runs?limit=${EVAL_RUN_PAGE_LIMIT}`);
  if (page.total > page.runs.length) throw new Error(`${page.total} runs: more than one page`);
  return { ...summary, runs: page.runs };
}
