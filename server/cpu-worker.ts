/**
 * The server's CPU worker (a `worker_threads` thread started by `cpu-pool.ts`): the work
 * that would hold the event loop for hundreds of milliseconds or seconds on big inputs —
 * a line diff of a fully rewritten multi-MiB file (jsdiff, then `git diff --no-index` and
 * parsing its output), the line counts of `/api/diff/stat` for big file pairs, writing a
 * huge session line back as strict JSON.
 * Each task answers with the finished JSON response as chunks of UTF-8 bytes, transferred
 * (not copied) back, so the event loop only sends them.
 */
import { isUtf8 } from "node:buffer";
import { parentPort } from "node:worker_threads";
import { SessionLoadError, WinkError } from "../shared/errors.js";
import { scanEnvelope } from "../shared/session/envelope-scan.js";
import { lineBody, lineFromBytes } from "../shared/session/line-text.js";
import { parseSnapshotLine } from "../shared/session/snapshot-line.js";
import { strictJsonChunks } from "../shared/session/strict-json.js";
import { transcodeStrictJson } from "../shared/session/strict-json-transcoder.js";
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

/** What a task answers: the response's JSON bytes (in chunks), or the error to throw (a library error's code and data survive). */
export type CpuReply =
  | { readonly id: number; readonly ok: true; readonly json: Uint8Array[] }
  | { readonly id: number; readonly ok: false; readonly error: { readonly message: string; readonly code: string | null; readonly data: Record<string, unknown> } };

const encoder = new TextEncoder();
/** Chunks of a huge answer (each its own buffer, transferred whole). */
const CHUNK_BYTES = 1024 * 1024;

/**
 * `value` as strict JSON bytes, encoded chunk by chunk: `toStrictJson` of a 100 MiB line
 * built millions of small strings, their joined text and its bytes, ~575 MiB on top of the
 * parsed line (issue 33). Each chunk a fresh buffer of its own (never a pooled one): safe
 * to transfer.
 */
function strictJsonBytes(value: unknown): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  // Depth 4: a session line's items (line → slices → slice → items), each item written whole.
  for (const text of strictJsonChunks(value, { streamDepth: 4, chunkChars: CHUNK_BYTES })) {
    const bytes = encoder.encode(text);
    chunks.push(bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice());
  }
  return chunks;
}

/**
 * A session line as strict JSON. Straight from its bytes when the transcoder vouches for
 * them (valid UTF-8, a JSON object it writes exactly as the parser and `toStrictJson`
 * would, an envelope the scan accepts): a 101 MiB line then costs its bytes and the
 * answer's, where its text, its parsed tree and the answer cost 5.9× the line. Any other
 * line is parsed, for its answer or its error.
 */
function rawLine(bytes: Uint8Array, lineNumber: number): Uint8Array[] {
  const body = lineBody(bytes, lineNumber);
  if (body !== null && isUtf8(body)) {
    const chunks: Uint8Array[] = [];
    // The JSON is checked whole first (the parser's errors come before the envelope's).
    if (transcodeStrictJson(body, (chunk) => chunks.push(chunk), { chunkBytes: CHUNK_BYTES })) {
      const envelope = scanEnvelope(body, lineNumber);
      if (!envelope.ok) throw new SessionLoadError(`Line ${lineNumber} does not load: ${envelope.error.reason}`, { lineNumber });
      return chunks;
    }
  }
  return strictJsonBytes(parsedLine(bytes, lineNumber));
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

async function run(task: CpuTask): Promise<Uint8Array[]> {
  if (task.kind === "file-diff") return strictJsonBytes(await diffFileContents(task.view, task.base, task.target, { timeoutMs: task.timeoutMs, fallback: gitDiffHunks }));
  if (task.kind === "line-counts") return strictJsonBytes(countChangedLines(task.before, task.after));
  return rawLine(task.bytes, task.lineNumber);
}

parentPort?.on("message", (request: CpuRequest) => {
  run(request).then(
    (json) => {
      parentPort?.postMessage({ id: request.id, ok: true, json } satisfies CpuReply, json.map((chunk) => chunk.buffer as ArrayBuffer));
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const reply: CpuReply = { id: request.id, ok: false, error: { message, code: error instanceof WinkError ? error.code : null, data: error instanceof WinkError ? { ...error.data } : {} } };
      parentPort?.postMessage(reply);
    },
  );
});
