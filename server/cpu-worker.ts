/**
 * The server's CPU worker (a `worker_threads` thread started by `cpu-pool.ts`): the work
 * that would hold the event loop for hundreds of milliseconds or seconds on big inputs —
 * a line diff of a fully rewritten multi-MiB file (jsdiff, then `git diff --no-index` and
 * parsing its output), the line counts of `/api/diff/stat` for big file pairs, parsing a
 * huge session line and writing it back as strict JSON.
 * Each task answers with the finished JSON response as UTF-8 bytes, transferred (not
 * copied) back, so the event loop only sends them.
 */
import { parentPort } from "node:worker_threads";
import { SessionLoadError, WinkError } from "../shared/errors.js";
import { lineFromBytes } from "../shared/session/line-text.js";
import { parseSnapshotLine } from "../shared/session/snapshot-line.js";
import { toStrictJson } from "../shared/session/strict-json.js";
import { countChangedLines } from "../shared/viewer/diff-stat.js";
import { diffFileContents } from "../shared/viewer/snapshot-diff.js";
import type { FileDiffView } from "../shared/viewer/types.js";
import { gitDiffHunks } from "./library/git-diff.js";

/** A task as the pool sends it. */
export type CpuTask =
  | { readonly kind: "file-diff"; readonly view: FileDiffView; readonly base: Uint8Array; readonly target: Uint8Array; readonly timeoutMs: number }
  | { readonly kind: "raw-line"; readonly bytes: Uint8Array; readonly lineNumber: number }
  | { readonly kind: "line-counts"; readonly before: Uint8Array; readonly after: Uint8Array };

export type CpuRequest = CpuTask & { readonly id: number };

/** What a task answers: the response's JSON bytes, or the error to throw (a library error's code and data survive). */
export type CpuReply =
  | { readonly id: number; readonly ok: true; readonly json: Uint8Array }
  | { readonly id: number; readonly ok: false; readonly error: { readonly message: string; readonly code: string | null; readonly data: Record<string, unknown> } };

const encoder = new TextEncoder();

async function run(task: CpuTask): Promise<unknown> {
  if (task.kind === "file-diff") return diffFileContents(task.view, task.base, task.target, { timeoutMs: task.timeoutMs, fallback: gitDiffHunks });
  if (task.kind === "line-counts") return countChangedLines(task.before, task.after);
  const line = lineFromBytes(task.bytes, task.lineNumber);
  if (line.kind !== "text") {
    const reason = line.kind === "blank" ? "The line is blank" : line.error.reason;
    throw new SessionLoadError(`Line ${task.lineNumber} does not load: ${reason}`, { lineNumber: task.lineNumber });
  }
  const parsed = parseSnapshotLine(line.text, task.lineNumber);
  if (!parsed.ok) throw new SessionLoadError(`Line ${task.lineNumber} does not load: ${parsed.error.reason}`, { lineNumber: task.lineNumber });
  return parsed.snapshot.raw;
}

parentPort?.on("message", (request: CpuRequest) => {
  run(request).then(
    (value) => {
      // A fresh buffer of its own (TextEncoder never hands out a pooled one): safe to transfer.
      const json = encoder.encode(toStrictJson(value));
      parentPort?.postMessage({ id: request.id, ok: true, json } satisfies CpuReply, [json.buffer as ArrayBuffer]);
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const reply: CpuReply = { id: request.id, ok: false, error: { message, code: error instanceof WinkError ? error.code : null, data: error instanceof WinkError ? { ...error.data } : {} } };
      parentPort?.postMessage(reply);
    },
  );
});
