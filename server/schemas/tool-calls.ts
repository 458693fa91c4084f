/**
 * The per-tool-call undo store in the timeline: the request schema of one changed file's diff
 * (the responses' shapes are the library's, `shared/viewer/schemas/tool-calls.ts`).
 */
import { Type } from "typebox";
import { selectorProperties } from "./common.js";

export { TimelineChanges, ToolCallChanges, ToolCallFile, ToolCallFileDiff } from "../../shared/viewer/schemas/index.js";

/** One changed file of one tool call (`call_id` as the timeline event's `call_id`, `path` as listed in `changes`). */
export const ToolCallDiffQuery = Type.Object(
  {
    ...selectorProperties,
    call_id: Type.String({ minLength: 1, maxLength: 1024 }),
    path: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);
