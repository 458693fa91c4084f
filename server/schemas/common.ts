/**
 * Pieces every route shares: the error body, the snapshot selector and pagination.
 */
import { Type } from "typebox";

/**
 * Every error: `{"detail": "...", "code": "..."}` with a 4xx status, or a 5xx when a remote
 * store failed (`E_SOURCE_*`: 502, 503, 504); any other 500 is a bug. `code` is the stable
 * code of docs/api.md and docs/errors.md (absent for Fastify's own validation errors).
 */
export const ErrorBody = Type.Object({ detail: Type.String(), code: Type.Optional(Type.String()) }, { $id: "ErrorBody" });

/** Error responses every route may give. */
export const errorResponses = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 415: ErrorBody, 422: ErrorBody, 500: ErrorBody } as const;

/** The explicit snapshot selector every snapshot route accepts (omitted: the current snapshot). */
export const selectorProperties = {
  /** Session file relative to the served directory, e.g. `run-1/abc.jsonl`. */
  file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  /** 1-based physical line number in that file. */
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Session id: the first line of that session in the file. */
  session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
};

export const SelectorQuery = Type.Object(selectorProperties, { additionalProperties: false });

export const Tags = Type.Record(Type.String(), Type.String());

export const SliceKind = Type.Union([Type.Literal("state"), Type.Literal("event")]);

export const SnapshotRef = Type.Object({
  file: Type.String(),
  line_number: Type.Integer(),
  session_id: Type.String(),
  created_at: Type.String(),
});
