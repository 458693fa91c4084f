/**
 * Tool parameters as TypeBox schemas: the one declaration gives the JSON schema an LLM tool
 * definition uses (plain JSON: `type: "object"`, `properties`, `required`,
 * `additionalProperties: false`) and, through `Static`, the type a tool runs with. Arguments
 * are checked against it with TypeBox at run time (models send malformed arguments); the
 * messages say which parameter is wrong and how, so the model can fix its call.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from "typebox";
import type * as TypeBoxValue from "typebox/value";

import type { ToolParametersSchema } from "./types.js";

/**
 * TypeBox's value checker, loaded by the first tool call: importing it costs ~200 ms and
 * ~5 MB of heap, which every process that imports the library would otherwise pay at
 * startup, tools or not (and its young objects make the first garbage collection of such
 * a process, often in the middle of its first operation, tens of milliseconds longer).
 */
let valueChecker: Promise<typeof TypeBoxValue> | null = null;

declare const DEFAULTED: unique symbol;
/** A parameter with a default (type-level mark: the tool always receives it). */
export type TDefaulted<T extends TSchema> = ReturnType<typeof Type.Optional<T>> & { readonly [DEFAULTED]: true };

/** A parameter the model may leave out; the tool then receives `value`. */
export function withDefault<T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> {
  return Type.Optional({ ...schema, default: value } as T) as TDefaulted<T>;
}

/** The parameters of a tool: an object of exactly these properties (`required` always present, possibly empty). */
export function toolParameters<P extends TProperties>(properties: P): TObject<P> {
  const schema = Type.Object(properties, { additionalProperties: false });
  if (schema.required === undefined) Object.assign(schema, { required: [] });
  return schema;
}

/** A schema made by `toolParameters`, as tool definitions expose it. */
export function exposedParameters(schema: TObject): ToolParametersSchema {
  if ((schema as { additionalProperties?: unknown }).additionalProperties !== false || !Array.isArray(schema.required)) throw new TypeError("Tool parameters must come from toolParameters()");
  return schema as ToolParametersSchema;
}

type DefaultedKeys<P> = { [K in keyof P]: P[K] extends { readonly [DEFAULTED]: true } ? K : never }[keyof P];

/** What a tool runs with: the schema's static type, defaulted parameters always present. */
export type ToolParams<S extends TObject> = Omit<Static<S>, DefaultedKeys<S["properties"]>> & { [K in DefaultedKeys<S["properties"]> & keyof Static<S>]-?: Exclude<Static<S>[K], undefined> };

/** The JSON schema of one parameter as far as messages need it. */
interface ParameterSpec {
  readonly type?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: unknown;
}

/** Why `value` does not fit parameter `key`, for the model. */
function complaint(key: string, spec: ParameterSpec, keyword: string | undefined): string {
  switch (keyword) {
    case "minimum":
      return `Parameter "${key}" must be at least ${spec.minimum}.`;
    case "maximum":
      return `Parameter "${key}" must be at most ${spec.maximum}.`;
    case "minLength":
      return `Parameter "${key}" must not be empty.`;
    case "enum":
      return `Parameter "${key}" must be one of: ${(spec.enum ?? []).join(", ")}.`;
    default:
      return spec.type === "integer" ? `Parameter "${key}" must be an integer.` : spec.type === "boolean" ? `Parameter "${key}" must be true or false.` : `Parameter "${key}" must be a string.`;
  }
}

/** Check raw arguments against a tool's schema: the typed params (defaults filled in), or a message naming the bad parameter. */
export async function parseParams<S extends TObject>(schema: S, raw: unknown): Promise<{ ok: true; params: ToolParams<S> } | { ok: false; message: string }> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, message: "Parameters must be a JSON object." };
  const { Value } = await (valueChecker ??= import("typebox/value"));
  const input = raw as Record<string, unknown>;
  const properties = schema.properties as Readonly<Record<string, TSchema>>;
  for (const key of Object.keys(input)) {
    if (!Object.prototype.hasOwnProperty.call(properties, key)) return { ok: false, message: `Unknown parameter "${key}". Allowed: ${Object.keys(properties).join(", ")}.` };
  }
  const required: readonly string[] = schema.required ?? [];
  const params: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const spec = property as ParameterSpec;
    const value = Object.prototype.hasOwnProperty.call(input, key) ? input[key] : undefined;
    // A null is taken for an absent parameter (models send them for "not given").
    if (value === undefined || value === null) {
      if (required.includes(key)) return { ok: false, message: `Missing required parameter "${key}" (${spec.description ?? key}).` };
      if (spec.default !== undefined) params[key] = spec.default;
      continue;
    }
    if (!Value.Check(property, value)) return { ok: false, message: complaint(key, spec, Value.Errors(property, value)[0]?.keyword) };
    params[key] = value;
  }
  return { ok: true, params: params as ToolParams<S> };
}
