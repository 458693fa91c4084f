/**
 * The one place where tool input is validated and filesystem errors become failed results,
 * so each handler only states what it does. Messages tell the model what to do next.
 */
import { WinkError } from "../errors.js";
import type { Filesystem } from "../filesystem/protocol.js";
import type { ToolContext, ToolDefinition, ToolParametersSchema, ToolResult } from "./types.js";
import { fail } from "./types.js";

/** Check raw arguments against a tool's schema; a message naming the bad parameter, or the typed params. */
export function parseParams<P>(schema: ToolParametersSchema, raw: unknown): { ok: true; params: P } | { ok: false; message: string } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, message: "Parameters must be a JSON object." };
  const input = raw as Record<string, unknown>;
  const params: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (!Object.prototype.hasOwnProperty.call(schema.properties, key)) {
      return { ok: false, message: `Unknown parameter "${key}". Allowed: ${Object.keys(schema.properties).join(", ")}.` };
    }
  }
  for (const [key, spec] of Object.entries(schema.properties)) {
    let value = Object.prototype.hasOwnProperty.call(input, key) ? input[key] : undefined;
    if (value === undefined || value === null) {
      if (schema.required.includes(key)) return { ok: false, message: `Missing required parameter "${key}" (${spec.description}).` };
      if (spec.default !== undefined) params[key] = spec.default;
      continue;
    }
    if (spec.type === "integer") {
      if (typeof value !== "number" || !Number.isInteger(value)) return { ok: false, message: `Parameter "${key}" must be an integer.` };
      if (spec.minimum !== undefined && value < spec.minimum) return { ok: false, message: `Parameter "${key}" must be at least ${spec.minimum}.` };
      if (spec.maximum !== undefined && value > spec.maximum) return { ok: false, message: `Parameter "${key}" must be at most ${spec.maximum}.` };
    } else if (spec.type === "boolean") {
      if (typeof value !== "boolean") return { ok: false, message: `Parameter "${key}" must be true or false.` };
    } else {
      if (typeof value !== "string") return { ok: false, message: `Parameter "${key}" must be a string.` };
      if (spec.minLength !== undefined && value.length < spec.minLength) {
        return { ok: false, message: `Parameter "${key}" must not be empty.` };
      }
      if (spec.enum !== undefined && !spec.enum.includes(value)) {
        return { ok: false, message: `Parameter "${key}" must be one of: ${spec.enum.join(", ")}.` };
      }
      value = value as string;
    }
    params[key] = value;
  }
  return { ok: true, params: params as P };
}

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

export interface ToolSpec<P, V> {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParametersSchema;
  readonly mutates: boolean;
  /** The tool's work; may throw filesystem errors, which become failed results. */
  run(params: P, filesystem: Filesystem, context: ToolContext): Promise<ToolResult<V>>;
}

/** Build a tool whose handler validates its input and never throws. */
export function defineTool<P, V>(spec: ToolSpec<P, V>): ToolDefinition<V> {
  return {
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    mutates: spec.mutates,
    async handler(rawParams: unknown, context: ToolContext): Promise<ToolResult<V>> {
      const filesystem = context.filesystem;
      if (filesystem === null || filesystem === undefined) return fail("No filesystem available in this context.");
      const parsed = parseParams<P>(spec.parameters, rawParams);
      if (!parsed.ok) return fail(`${spec.name}: ${parsed.message}`);
      try {
        return await spec.run(parsed.params, filesystem, context);
      } catch (error) {
        return failureFrom(error, spec.name);
      }
    },
  };
}
