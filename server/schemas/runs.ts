/**
 * Runs and the search across a run: the request schemas (the responses' shapes are the
 * library's, `shared/viewer/schemas/runs.ts`).
 */
import { Type } from "typebox";

export { Run, RunError, RunFailure, RunList, RunSearchResult, RunSession, RunSnapshot, RunSource, RunStats, RunStore, RunSummary } from "../../shared/viewer/schemas/index.js";

/**
 * A page of the runs, newest first: `offset`/`limit` (default: every run), `q` (the file's
 * path contains it, case-insensitively), `since`/`until` (the file's modification time, ISO
 * 8601 date or date-time; `until` a date includes that whole day).
 */
export const RunsQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    q: Type.Optional(Type.String({ maxLength: 256 })),
    since: Type.Optional(Type.String({ maxLength: 64 })),
    until: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** `file`: the run's session file (default: the newest run). */
export const RunQuery = Type.Object({ file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })) }, { additionalProperties: false });

export const RunSearchQuery = Type.Object(
  {
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** The session searched with its children (default: the run's root session). */
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    q: Type.String({ minLength: 1, maxLength: 1000 }),
    /** `1`: `q` is a regular expression (linear-time: no backreferences or lookarounds; case-sensitive). */
    regex: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
  },
  { additionalProperties: false },
);
