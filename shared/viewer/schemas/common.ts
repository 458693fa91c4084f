/**
 * Pieces every viewer shape shares: the error body, tags, slice kinds, a snapshot reference.
 * The schemas of this folder are the HTTP contract (the server validates its responses
 * against them in tests); `../types.ts` derives the viewer's types from them.
 */
import { Type } from "typebox";

/**
 * Every error: `{"detail": "...", "code": "..."}` with a 4xx status, or a 5xx when a remote
 * store failed (`E_SOURCE_*`: 502, 503, 504); any other 500 is a bug. `code` is the stable
 * code of docs/api.md and docs/errors.md, on every error (Fastify's own get their status's row).
 */
export const ErrorBody = Type.Object({ detail: Type.String(), code: Type.String() }, { $id: "ErrorBody" });

export const Tags = Type.Record(Type.String(), Type.String());

/** Whether a slice holds events (tool calls, prompts) or state (plans, files…). */
export const SliceKind = Type.Union([Type.Literal("state"), Type.Literal("event")]);

/** A snapshot as a point of a timeline, a diff side or a search scope. */
export const SnapshotRef = Type.Object({
  file: Type.String(),
  line_number: Type.Integer(),
  session_id: Type.String(),
  created_at: Type.String(),
});

export const NullableString = Type.Union([Type.String(), Type.Null()]);
export const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
export const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
