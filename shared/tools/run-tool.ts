/**
 * The one place where tool input is validated and filesystem errors become failed results,
 * so each handler only states what it does. Messages tell the model what to do next.
 */
import { WinkError } from "../errors.js";
import type { Filesystem } from "../filesystem/protocol.js";
import type { TObject } from "typebox";
import { exposedParameters, parseParams, type ToolParams } from "./parameters.js";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.js";
import { fail } from "./types.js";

export { parseParams } from "./parameters.js";

/** Turn any error into a failed result whose message an agent can act on. */
export function failureFrom(error: unknown, subject: string): ToolResult<never> {
  if (error instanceof WinkError) {
    switch (error.code) {
      case "ENOENT":
        return fail(`${error.message}. Use ls or glob to find existing paths.`);
      case "EISDIR":
        return fail(`${subject} is a directory. Use ls to see its contents.`);
      case "ENOTDIR":
        return fail(`${error.message}: a file is in the way of this path.`);
      case "EEXIST":
        return fail(`${error.message}. Read it first, then use edit_file (or write_file with mode "overwrite").`);
      case "ENOTEMPTY":
        return fail(`${error.message}. Pass recursive: true to remove it with its contents.`);
      case "ETIMEDOUT":
        return fail(`${error.message}. Simplify the pattern or narrow the path.`);
      default:
        return fail(error.message);
    }
  }
  return fail(`${subject}: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
}

export interface ToolSpec<S extends TObject, V> {
  readonly name: string;
  readonly description: string;
  /** The parameters (`toolParameters(...)`): the JSON schema the model sees and the type `run` gets. */
  readonly parameters: S;
  readonly mutates: boolean;
  /** The tool's work; may throw filesystem errors, which become failed results. */
  run(params: ToolParams<S>, filesystem: Filesystem, context: ToolContext): Promise<ToolResult<V>>;
}

/** Build a tool whose handler validates its input and never throws. */
export function defineTool<S extends TObject, V>(spec: ToolSpec<S, V>): ToolDefinition<V> {
  return {
    name: spec.name,
    description: spec.description,
    parameters: exposedParameters(spec.parameters),
    mutates: spec.mutates,
    async handler(rawParams: unknown, context: ToolContext): Promise<ToolResult<V>> {
      const filesystem = context.filesystem;
      if (filesystem === null || filesystem === undefined) return fail("No filesystem available in this context.");
      const parsed = await parseParams(spec.parameters, rawParams);
      if (!parsed.ok) return fail(`${spec.name}: ${parsed.message}`);
      try {
        return await spec.run(parsed.params, filesystem, context);
      } catch (error) {
        return failureFrom(error, spec.name);
      }
    },
  };
}
