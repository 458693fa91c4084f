import Fastify from "fastify";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { ErrorBody } from "../shared/viewer/schemas/index.js";
import { checkResponseSchemas, checkedResponses, takeResponseViolations } from "./response-schemas.test-support.js";
import { cleanUp, get, testApp } from "./server.test-support.js";
import { WINK_FIXTURES } from "../fixtures/paths.js";

afterAll(cleanUp);

describe("response schema checks in the tests", () => {
  it("reports an answer that breaks its route's schema, and passes one that keeps it", async () => {
    const app = Fastify();
    checkResponseSchemas(app);
    const schema = { response: { 200: Type.Object({ name: Type.String() }), 404: ErrorBody } };
    app.get("/good", { schema }, async (_request, reply) => reply.type("application/json").send('{"name":"x"}'));
    app.get("/bad", { schema }, async (_request, reply) => reply.type("application/json").send('{"name":1}'));
    app.get("/missing", { schema }, async (_request, reply) => reply.code(404).type("application/json").send('{"code":"WD_ERR_NOT_FOUND"}'));
    const before = checkedResponses();
    expect((await app.inject("/good")).statusCode).toBe(200);
    expect(takeResponseViolations()).toEqual([]);
    await app.inject("/bad");
    await app.inject("/missing");
    const violations = takeResponseViolations();
    expect(violations).toHaveLength(2);
    expect(violations[0]).toMatch(/^GET \/bad → 200: \/name must be string/);
    expect(violations[1]).toMatch(/^GET \/missing → 404: .*detail/);
    expect(checkedResponses() - before).toBe(3);
    await app.close();
  });

  it("is on for every app the server tests build", async () => {
    const app = await testApp({ path: WINK_FIXTURES });
    const before = checkedResponses();
    expect((await get(app, "/api/runs")).statusCode).toBe(200);
    expect((await get(app, "/api/meta?file=nope.jsonl")).statusCode).toBe(404);
    expect(checkedResponses() - before).toBe(2);
  });
});
