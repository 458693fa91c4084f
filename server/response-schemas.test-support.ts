/**
 * Test support: every JSON answer an app gives in the tests is checked against the response
 * schema its route declares for that status (the schemas in `server/schemas/` are the HTTP
 * contract; Fastify's serializer only shapes answers to them, it does not check them).
 * Violations are collected and `takeResponseViolations()` hands them to `cleanUp()`, which
 * fails the test file that caused them.
 */
import type { FastifyInstance } from "fastify";
import type { TSchema } from "typebox";
import { Value } from "typebox/value";

const violations: string[] = [];
let checked = 0;

function schemaFor(responses: Record<string, unknown> | undefined, status: number): TSchema | undefined {
  if (responses === undefined) return undefined;
  return (responses[String(status)] ?? responses[`${String(status).charAt(0)}xx`] ?? responses.default) as TSchema | undefined;
}

/** Checks every JSON answer of `app` against its route's response schema (call before the app is ready). */
export function checkResponseSchemas(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    const responses = (request.routeOptions.schema as { response?: Record<string, unknown> } | undefined)?.response;
    const schema = schemaFor(responses, reply.statusCode);
    const type = String(reply.getHeader("content-type") ?? "");
    if (schema === undefined || !type.startsWith("application/json")) return payload;
    const text = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : null;
    if (text === null) return payload; // a stream: not buffered here
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      violations.push(`${request.method} ${request.url} → ${reply.statusCode}: not JSON`);
      return payload;
    }
    checked += 1;
    if (!Value.Check(schema, body)) {
      const errors = Value.Errors(schema, body)
        .slice(0, 5)
        .map((error) => `${error.instancePath || "/"} ${error.message}`);
      violations.push(`${request.method} ${request.url} → ${reply.statusCode}: ${errors.join("; ")}`);
    }
    return payload;
  });
}

/** The violations seen since the last call (and forgets them). */
export function takeResponseViolations(): string[] {
  return violations.splice(0);
}

/** How many answers were checked so far (in this test file's process). */
export function checkedResponses(): number {
  return checked;
}
