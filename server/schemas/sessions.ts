/**
 * Session files and a session's timeline: the request schemas (the responses' shapes are the
 * library's, `shared/viewer/schemas/sessions.ts`).
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export { FileList, LineError, SessionFile, SessionNode, Timeline, TimelineError, TimelineEvent, Turn, TurnSource } from "../../shared/viewer/schemas/index.js";

export const FilesQuery = Type.Object(
  {
    /** Only this file. */
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** `1`: wait until every file is indexed (default: answer at once, pending files marked). */
    wait: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
    /** A page of the files, in path order (default: the first 500). */
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    /** A page of each file's line errors (default: its first 100). */
    errors_offset: Type.Optional(Type.Integer({ minimum: 0 })),
    errors_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    /** A page of each file's top-level sessions (default: its first 1,000). */
    sessions_offset: Type.Optional(Type.Integer({ minimum: 0 })),
    sessions_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000 })),
  },
  { additionalProperties: false },
);

export const TimelineQuery = Type.Object(selectorProperties, { additionalProperties: false });
