/**
 * What a tool handler is: parameters in, `{message, value, success}` out, never a throw.
 *
 * Handlers work over `context.filesystem` only, so the same tools run on every backend. The
 * JSON schema of each tool (a TypeBox schema, `parameters.ts`) is what an LLM tool definition
 * uses, and `parseParams` enforces the same schema at run time (models send malformed arguments).
 */
import type { TObject } from "typebox";
import type { Filesystem } from "../filesystem/protocol.js";

/** The result every tool returns; `message` is what the model reads. */
export interface ToolResult<T = unknown> {
  readonly message: string;
  readonly value: T | null;
  readonly success: boolean;
}

export interface ToolContext {
  readonly filesystem: Filesystem | null;
  /** The session and tool call this invocation belongs to (used by undo capture). */
  readonly sessionId?: string;
  readonly toolCallId?: string;
  readonly signal?: AbortSignal;
}

/** The JSON schema of a tool's parameters: a TypeBox object schema of exactly its properties (plain JSON; see `parameters.ts`). */
export type ToolParametersSchema = TObject & { readonly additionalProperties: false };

/** A tool. Its handler takes raw (unvalidated) arguments, as a model sends them. */
export interface ToolDefinition<V = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParametersSchema;
  /** True when the tool can change the workspace (undo capture wraps these). */
  readonly mutates: boolean;
  handler(params: unknown, context: ToolContext): Promise<ToolResult<V>>;
}

export function ok<T>(message: string, value: T): ToolResult<T> {
  return { message, value, success: true };
}

export function fail<T = never>(message: string): ToolResult<T> {
  return { message, value: null, success: false };
}
