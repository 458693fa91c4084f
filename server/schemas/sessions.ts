/**
 * Session files and a session's timeline: the request schemas (the responses' shapes are the
 * library's, `shared/viewer/schemas/sessions.ts`).
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export { FileList, LineError, SessionFile, SessionNode, Timeline, TimelineError, TimelineEvent, Turn, TurnSource } from "../../shared/viewer/schemas/sessions.js";

export const FilesQuery = Type.Object(
  {
    /** Only this file. */
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** `1`: wait until every file is indexed (default: answer at once, pending files marked). */
    wait: Type.Optional(Type.Union([Type.Literal("0"), Type.Literal("1")])),
  },
  { additionalProperties: false },
);

export const TimelineQuery = Type.Object(selectorProperties, { additionalProperties: false });
