// The generated request validators: they match the routes' schemas as they are now, every
// route uses one, and each behaves exactly as the validator Fastify would have compiled
// (coercion, defaults, removed properties, errors). The schemas are checked against Ajv's
// meta-schema here, since the server no longer compiles them when it starts.
import { readFile } from "node:fs/promises";
import path from "node:path";
import AjvCompiler from "@fastify/ajv-compiler";
import { afterEach, describe, expect, it } from "vitest";
import * as schemas from "../schemas/index.js";
import { GENERATED_VALIDATORS, routeRequestSchemas, validatorsModule } from "../schemas/generate-validators.js";
import { PRECOMPILED_VALIDATORS } from "../schemas/request-validators.generated.js";
import { cleanUp, get, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";
import { requestValidatorFactory, schemaKey, type RequestSchemaNotice, type RouteSchemaDefinition } from "./request-validators.js";

afterEach(cleanUp);

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Build = (externalSchemas: Record<string, unknown>, options?: { customOptions?: Record<string, unknown> }) => (route: RouteSchemaDefinition) => Validate;

/** Fastify's own validator for `schema` (a fresh Ajv each time: schemas reuse $ids). */
function fastifyDefault(schema: unknown, customOptions: Record<string, unknown> = {}): Validate {
  return (AjvCompiler() as unknown as Build)({}, { customOptions })({ schema, method: "GET", url: "/", httpPart: "querystring" });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isSchema = (value: unknown): value is Record<string, unknown> => isObject(value) && ["type", "anyOf", "oneOf", "allOf", "$ref"].some((key) => key in value);

describe("generated request validators", () => {
  it("are up to date with the routes' request schemas (regenerate: node --import tsx server/schemas/generate-validators.ts)", async () => {
    const generated = validatorsModule(await routeRequestSchemas());
    expect(generated === (await readFile(GENERATED_VALIDATORS, "utf8")), `${path.basename(GENERATED_VALIDATORS)} is stale`).toBe(true);
  });

  it("serve every route's request schema, so nothing is compiled at start-up", async () => {
    const notices: RequestSchemaNotice[] = [];
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
    const app = await testApp({ path: dir, onRequestSchema: (notice) => notices.push(notice) });
    await app.app.ready();
    expect(notices.length).toBeGreaterThan(10);
    expect(notices.filter((notice) => !notice.precompiled).map((notice) => `${notice.method} ${notice.url} ${notice.httpPart}`)).toEqual([]);
    // …and they do validate: coercion, refusals, removed properties.
    expect((await get(app, "/api/filesystem/file?path=x&line=abc")).statusCode).toBe(400);
    expect((await get(app, `/api/filesystem/file?path=${"a".repeat(4097)}`)).statusCode).toBe(400);
    expect((await get(app, "/api/meta?line=1&unknown=1")).statusCode).toBe(200);
  });

  it("give the same verdicts, coercions, defaults and errors as the validator Fastify compiles", () => {
    const inputs: Record<string, unknown>[] = [
      {},
      { line: "3", offset: "0", limit: "10" },
      { line: "0" },
      { line: "x" },
      { line: ["2"] },
      { line: ["2", "3"] },
      { file: "" },
      { file: "a".repeat(5000) },
      { file: "日本".repeat(2100) },
      { path: "p", q: "needle", extra: "dropped" },
      { base_file: "a.jsonl", base_line: "1", target_file: "b.jsonl", target_line: "2", compare: "none" },
      { scope: "files", slice_type: "x" },
      { q: "", limit: "-1" },
    ];
    expect(PRECOMPILED_VALIDATORS.size).toBeGreaterThan(10);
    for (const [key, generated] of PRECOMPILED_VALIDATORS) {
      const compiled = fastifyDefault(JSON.parse(key));
      for (const input of inputs) {
        const a = structuredClone(input);
        const b = structuredClone(input);
        expect(generated(a), `${key} ${JSON.stringify(input)}`).toBe(compiled(b));
        expect(a).toEqual(b);
        expect((generated as Validate).errors ?? null).toEqual(compiled.errors ?? null);
      }
    }
  });

  it("fall back to Fastify's validator, compiled on first use, for a schema that was not generated", () => {
    const notices: RequestSchemaNotice[] = [];
    const build = requestValidatorFactory((notice) => notices.push(notice)) as unknown as Build;
    const compile = build({}, { customOptions: {} });
    const never = compile({ schema: { type: "object", properties: { a: { type: "no-such-type" } } }, method: "GET", url: "/never", httpPart: "querystring" });
    expect(typeof never).toBe("function"); // an invalid schema fails only when used
    expect(() => never({})).toThrow(/schema is invalid/);
    const schema = { type: "object", properties: { n: { type: "integer" }, mode: { type: "string", default: "all" } }, additionalProperties: false };
    const validate = compile({ schema, method: "GET", url: "/q", httpPart: "querystring" });
    expect(notices.map((notice) => [notice.url, notice.precompiled])).toEqual([
      ["/never", false],
      ["/q", false],
    ]);
    expect(Boolean(validate.schemaEnv)).toBe(true);
    const data: Record<string, unknown> = { n: "4", x: 1 };
    expect(validate(data, { parentData: { query: data }, parentDataProperty: "query" })).toBe(true);
    expect(data).toEqual({ n: 4, mode: "all" });
    expect(validate({ n: "four" })).toBe(false);
    const reference = fastifyDefault(schema);
    expect(reference({ n: "four" })).toBe(false);
    expect(validate.errors).toEqual(reference.errors);
    expect(compile({ schema: schemas.FileQuery, method: "GET", url: "/f", httpPart: "querystring" })).toBe(PRECOMPILED_VALIDATORS.get(schemaKey(schemas.FileQuery)));
  });
});

describe("route schemas", () => {
  it("are valid JSON Schema, with Ajv's meta-schema check", () => {
    const checked: string[] = [];
    for (const [name, value] of Object.entries(schemas)) {
      // Response maps (status → schema) hold schemas too.
      const found = isSchema(value) ? [[name, value] as const] : isObject(value) ? Object.entries(value).filter(([, inner]) => isSchema(inner)).map(([key, inner]) => [`${name}.${key}`, inner] as const) : [];
      for (const [label, schema] of found) {
        expect(() => fastifyDefault(schema, { validateSchema: true }), label).not.toThrow();
        checked.push(label);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(["FileQuery", "DiffQuery", "SearchQuery", "FileTree", "SnapshotDiff", "errorResponses.400"]));
    expect(() => fastifyDefault({ type: "object", properties: { a: { type: "no-such-type" } } }, { validateSchema: true })).toThrow(/schema is invalid/);
  });
});
