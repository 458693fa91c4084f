/**
 * The server's CPU worker (a `worker_threads` thread started by `cpu-pool.ts`): the work
 * that would hold the event loop for hundreds of milliseconds or seconds on big inputs —
 * a line diff of a fully rewritten multi-MiB file (jsdiff, then `git diff --no-index` and
 * parsing its output), the line counts of `/api/diff/stat` for big file pairs, writing a
 * huge session line back as strict JSON.
 * Each task answers with its JSON response as chunks of UTF-8 bytes, each posted as soon as
 * it is written and transferred (not copied), so the event loop only sends them and a huge
 * answer is never whole in the worker.
 */
import { isUtf8 } from "node:buffer";
import { parentPort } from "node:worker_threads";
import { SessionLoadError, WinkError } from "../../shared/errors.js";
import { lineBody, lineFromBytes, parseSnapshotLine, scanEnvelope, strictJsonChunks, transcodeStrictJson } from "../../shared/session/index.js";
import { countChangedLines, diffFileContents } from "../../shared/viewer/index.js";
import type { FileDiffView } from "../../shared/viewer/index.js";
import { gitDiffHunks } from "../library/git-diff.js";
import { COLLECT_AFTER_BYTES } from "../library/memory-pressure.js";

/** A task as the pool sends it. */
export type CpuTask =
  | { readonly kind: "file-diff"; readonly view: FileDiffView; readonly base: Uint8Array; readonly target: Uint8Array; readonly timeoutMs: number }
  | { readonly kind: "raw-line"; readonly bytes: Uint8Array; readonly lineNumber: number }
  | { readonly kind: "line-counts"; readonly before: Uint8Array; readonly after: Uint8Array };

export type CpuRequest = CpuTask & { readonly id: number };

/**
 * What a task posts: the chunks of its response's JSON bytes, in order, then that it ended,
 * or the error to throw (a library error's code and data survive). Errors come before any
 * chunk (a line is checked whole before it is written), unless the thread itself fails.
 * The end may hand a huge input back (`spent`), to be freed by the event loop's thread.
 */
export type CpuReply =
  | { readonly id: number; readonly chunk: Uint8Array }
  | { readonly id: number; readonly ok: true; readonly spent?: ArrayBuffer }
  | { readonly id: number; readonly ok: false; readonly spent?: ArrayBuffer; readonly error: { readonly message: string; readonly code: string | null; readonly data: Record<string, unknown> } };

const encoder = new TextEncoder();
/** Chunks of a huge answer (each its own buffer, transferred whole). */
const CHUNK_BYTES = 1024 * 1024;

/** Hands one chunk of the answer on (its buffer is the chunk's own, so it moves to the event loop). */
type Emit = (chunk: Uint8Array) => void;

/**
 * `value` as strict JSON bytes, encoded chunk by chunk: `toStrictJson` of a 100 MiB line
 * built millions of small strings, their joined text and its bytes, ~575 MiB on top of the
 * parsed line (issue 33). Each chunk a fresh buffer of its own (never a pooled one).
 */
function emitStrictJson(value: unknown, emit: Emit): void {
  // Depth 4: a session line's items (line → slices → slice → items), each item written whole.
  for (const text of strictJsonChunks(value, { streamDepth: 4, chunkChars: CHUNK_BYTES })) {
    const bytes = encoder.encode(text);
    emit(bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice());
  }
}

/**
 * A session line as strict JSON. Straight from its bytes when they are valid UTF-8, the
 * envelope scan accepts them and the transcoder vouches for them (a JSON object it writes
 * exactly as the parser and `toStrictJson` would): a 101 MiB line then costs its bytes and
 * the chunks in flight, where its text, its parsed tree and the whole answer cost 5.9× the
 * line. Any other line is parsed, for its answer or (in the parser's words) its error.
 */
function emitRawLine(bytes: Uint8Array, lineNumber: number, emit: Emit): void {
  const body = lineBody(bytes, lineNumber);
  if (body !== null && isUtf8(body) && scanEnvelope(body, lineNumber).ok && transcodeStrictJson(body, emit, { chunkBytes: CHUNK_BYTES })) return;
  emitStrictJson(parsedLine(bytes, lineNumber), emit);
}

function parsedLine(bytes: Uint8Array, lineNumber: number): unknown {
  const line = lineFromBytes(bytes, lineNumber);
  if (line.kind !== "text") {
    const reason = line.kind === "blank" ? "The line is blank" : line.error.reason;
    throw new SessionLoadError(`Line ${lineNumber} does not load: ${reason}`, { lineNumber });
  }
  const parsed = parseSnapshotLine(line.text, lineNumber);
  if (!parsed.ok) throw new SessionLoadError(`Line ${lineNumber} does not load: ${parsed.error.reason}`, { lineNumber });
  return parsed.snapshot.raw;
}

async function run(task: CpuTask, emit: Emit): Promise<void> {
  if (task.kind === "file-diff") emitStrictJson(await diffFileContents(task.view, task.base, task.target, { timeoutMs: task.timeoutMs, fallback: gitDiffHunks }), emit);
  else if (task.kind === "line-counts") emitStrictJson(countChangedLines(task.before, task.after), emit);
  else emitRawLine(task.bytes, task.lineNumber, emit);
}

/**
 * A huge input, to go back with the task's end and be freed on the event loop's thread:
 * kept here, the 100 MiB of a line outlived its task, collections of this thread's heap or not.
 */
function spentInput(request: CpuRequest): { spent?: ArrayBuffer } {
  return request.kind === "raw-line" && request.bytes.byteLength >= COLLECT_AFTER_BYTES ? { spent: request.bytes.buffer as ArrayBuffer } : {};
}

parentPort?.on("message", (request: CpuRequest) => {
  const emit: Emit = (chunk) => parentPort?.postMessage({ id: request.id, chunk } satisfies CpuReply, [chunk.buffer as ArrayBuffer]);
  const end = (reply: CpuReply & { spent?: ArrayBuffer }): void => parentPort?.postMessage(reply, reply.spent === undefined ? [] : [reply.spent]);
  run(request, emit).then(
    () => end({ id: request.id, ok: true, ...spentInput(request) }),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      end({ id: request.id, ok: false, error: { message, code: error instanceof WinkError ? error.code : null, data: error instanceof WinkError ? { ...error.data } : {} }, ...spentInput(request) });
    },
  );
});
