/**
 * A generated eval for the `wink-debug failures` tests: session files written by the
 * library's WINK writer (`Session`, `dumpsPython`) with failed tool calls whose messages vary
 * in their numbers, ids and paths, and real WINK debug bundles given an `error.json` (rewritten
 * by Python's `zipfile`, the manifest's checksum updated, as WINK's writer would have it).
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { BUNDLE_SNIFF_BYTES } from "../shared/debug-bundle/index.js";
import { dumpsPython } from "../shared/session/python-json-dumps.js";
import { Session, pythonIsoTimestamp } from "../shared/session/session-model.js";

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
