/**
 * Pieces every route shares: the error responses, the snapshot selector. The response
 * shapes themselves live in the library (`shared/viewer/schemas/`).
 */
import { Type } from "typebox";
import { ErrorBody } from "../../shared/viewer/schemas/index.js";

export { ErrorBody, SliceKind, SnapshotRef, Tags } from "../../shared/viewer/schemas/index.js";

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
