/**
 * The eval view's routes: the request schemas (the responses' shapes are the library's,
 * `shared/viewer/schemas/failures.ts`).
 */
import { Type } from "typebox";

export { EvalSummary, FailureOccurrences } from "../../shared/viewer/schemas/index.js";

/** `signature`: a failure group's, as `/api/failures` lists it. */
export const FailureOccurrencesQuery = Type.Object({ signature: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });
