/**
 * Small pieces the route modules share: reading the selector from a query, checking a
 * workspace path parameter, formatting times, sending JSON that is already serialised.
 */
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { resolveWorkspacePath } from "../../shared/filesystem/index.js";
import type { StrictJsonChunkOptions } from "../../shared/session/index.js";
import { strictJsonChunks } from "../../shared/session/index.js";
import type { CpuPool } from "../cpu/cpu-pool.js";
import type { ComputedResponses, JsonAnswer } from "../library/computed-responses.js";
import { badRequest } from "../http/errors.js";
import type { SnapshotSelector } from "../library/viewer-state.js";

/** The snapshot selector of a query (`file`, `line`, `session`). */
export function selectorOf(query: { file?: string | undefined; line?: number | undefined; session?: string | undefined }): SnapshotSelector {
  return { file: query.file, line: query.line, session: query.session };
}

/** The base or target selector of a diff query. */
export function sideSelector(query: Record<string, unknown>, side: "base" | "target"): SnapshotSelector | null {
  const file = query[`${side}_file`];
  const line = query[`${side}_line`];
  const session = query[`${side}_session`];
  if (file === undefined && line === undefined && session === undefined) return null;
  return {
    file: typeof file === "string" ? file : undefined,
    line: typeof line === "number" ? line : undefined,
    session: typeof session === "string" ? session : undefined,
  };
}

/**
 * A workspace-relative file path from a request: `..` segments are refused outright (not
 * resolved), as are NUL, control characters, drive letters and backslashes.
 */
export function workspacePath(input: string): string {
  if (input.split(/[\\/]/).includes("..")) throw badRequest(`Path must not contain '..' segments: ${JSON.stringify(input.slice(0, 200))}`);
  if (input.includes("\\")) throw badRequest(`Path must use '/' separators: ${JSON.stringify(input.slice(0, 200))}`);
  const resolved = resolveWorkspacePath(input);
  if (resolved === "") throw badRequest("Path names the workspace root, not a file");
  return resolved;
}

/** Milliseconds since the epoch as ISO-8601 (UTC). */
/** Answers of session lines at least this big are streamed (see {@link sendStreamedJson}). */
export const STREAM_LINE_BYTES = 1024 * 1024;

/**
 * Sends `value` as strict JSON written while it is sent, in chunks of 64 KiB with the
 * socket's back-pressure: a whole 20 MB slice costs the memory of a chunk and an item, where
 * building its text first held the items' copies, the text and its bytes at once. (The
 * route's schema still documents the shape; serialisation is the same `toStrictJson`.)
 */
export function sendStreamedJson(reply: FastifyReply, value: unknown, options: Pick<StrictJsonChunkOptions, "streamDepth"> = {}): FastifyReply {
  const chunks = Readable.from(strictJsonChunks(value, options), { objectMode: false, highWaterMark: 64 * 1024 });
  return reply.type("application/json; charset=utf-8").send(chunks);
}

/** Sends JSON text written as it is sent (chunks pulled with the socket's back-pressure). */
export function sendJsonChunks(reply: FastifyReply, chunks: AsyncIterable<string>): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 }));
}

/** Where routes run CPU-heavy work: a worker thread, and the answers it computed. */
export interface HeavyWork {
  readonly pool: CpuPool;
  readonly responses: ComputedResponses;
}

/**
 * Sends JSON already serialised (the route's schema documents its shape). Chunks are sent
 * one after the other with the socket's back-pressure, never joined (a 100 MiB answer
 * joined cost its size twice while it was); chunks still being written are sent as they come.
 */
export function sendJsonBytes(reply: FastifyReply, json: Uint8Array | string | JsonAnswer): FastifyReply {
  reply.type("application/json; charset=utf-8");
  if (typeof json === "string") return reply.send(json);
  if (json instanceof Uint8Array) return reply.send(asBuffer(json));
  if (Array.isArray(json)) {
    const chunks = json as readonly Uint8Array[];
    if (chunks.length === 1) return reply.send(asBuffer(chunks[0] as Uint8Array));
    reply.header("content-length", chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  }
  return reply.send(Readable.from(json, { objectMode: false }));
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

