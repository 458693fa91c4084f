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
import { lineFromBytes } from "../shared/session/index.js";
import { parseSnapshotLine } from "../shared/session/index.js";
import { strictJsonChunks } from "../shared/session/index.js";
import { countChangedLines } from "../shared/viewer/index.js";
import { diffFileContents } from "../shared/viewer/index.js";
import type { FileDiffView } from "../shared/viewer/index.js";
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

/**
 * `value` as strict JSON bytes, encoded chunk by chunk: `toStrictJson` of a 100 MiB line
 * built millions of small strings, their joined text and its bytes, ~575 MiB on top of the
 * parsed line; chunks cost only the bytes, twice while they are joined (issue 33).
 * A fresh buffer of its own (never a pooled one): safe to transfer.
 */
function strictJsonBytes(value: unknown): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Depth 4: a session line's items (line → slices → slice → items), each item written whole.
  for (const text of strictJsonChunks(value, { streamDepth: 4, chunkChars: 1024 * 1024 })) {
    const bytes = encoder.encode(text);
    chunks.push(bytes);
    total += bytes.byteLength;
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const json = new Uint8Array(total);
  let at = 0;
  for (const [index, bytes] of chunks.entries()) {
    json.set(bytes, at);
    at += bytes.byteLength;
    chunks[index] = EMPTY;
  }
  return json;
}

const EMPTY = new Uint8Array(0);

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
      const json = strictJsonBytes(value);
      parentPort?.postMessage({ id: request.id, ok: true, json } satisfies CpuReply, [json.buffer as ArrayBuffer]);
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const reply: CpuReply = { id: request.id, ok: false, error: { message, code: error instanceof WinkError ? error.code : null, data: error instanceof WinkError ? { ...error.data } : {} } };
      parentPort?.postMessage(reply);
    },
  );
});
