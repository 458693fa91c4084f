// Every server error code is documented in docs/api.md with its status (Fastify's
// one-error-table discipline), and errors become {detail} with that status.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileNotFoundError, SessionLoadError } from "../../shared/errors.js";
import { SERVER_ERROR_CODES, ServerError } from "./errors.js";
import { packageRoot } from "../package-root.js";
import { describeError } from "./errors.js";
import { FIXTURES, cleanUp, get, testApp } from "../server.test-support.js";

afterEach(cleanUp);

describe("server error table", () => {
  it("documents every code with its status in docs/api.md", async () => {
    const doc = await readFile(path.join(packageRoot(), "docs", "api.md"), "utf8");
    for (const [code, { status }] of Object.entries(SERVER_ERROR_CODES)) {
      expect(doc, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });

  it("maps server, library and unknown errors to a status and a detail", () => {
    expect(describeError(new ServerError("WD_ERR_ORIGIN", "no"))).toEqual({ status: 403, detail: "no", code: "WD_ERR_ORIGIN" });
    expect(describeError(new FileNotFoundError("a.txt"))).toEqual({ status: 404, detail: "No such file or directory: a.txt", code: "ENOENT" });
    expect(describeError(new SessionLoadError("bad line"))).toEqual({ status: 400, detail: "bad line", code: "E_SESSION_LOAD" });
    const bug = describeError(new TypeError("x is undefined at /secret/path"));
    expect(bug.status).toBe(500);
    expect(bug.code).toBe("WD_ERR_INTERNAL");
    expect(bug.detail).not.toContain("/secret/path");
  });

  it("gives Fastify's own errors and the fallback's 404s the table's code for their status", async () => {
    const app = await testApp({ path: FIXTURES });
    const cases: { status: number; code: string; response: Promise<{ statusCode: number; json: () => unknown }> }[] = [
      // Schema validation of a query parameter (Fastify's own 400).
      { status: 400, code: "WD_ERR_BAD_REQUEST", response: get(app, "/api/slices/x?offset=-1") },
      { status: 415, code: "WD_ERR_MEDIA_TYPE", response: app.app.inject({ method: "POST", url: "/api/reload", headers: { host: "127.0.0.1:8000", "content-type": "text/plain" }, payload: "x" }) },
      { status: 413, code: "WD_ERR_TOO_LARGE", response: app.app.inject({ method: "POST", url: "/api/reload", headers: { host: "127.0.0.1:8000", "content-type": "application/json" }, payload: JSON.stringify({ pad: "x".repeat(70_000) }) }) },
      { status: 404, code: "WD_ERR_NOT_FOUND", response: get(app, "/api/no-such-route") },
    ];
    for (const { status, code, response } of cases) {
      const answer = await response;
      expect(answer.statusCode, code).toBe(status);
      expect(answer.json(), code).toMatchObject({ code, detail: expect.any(String) });
      expect(SERVER_ERROR_CODES[code as keyof typeof SERVER_ERROR_CODES].status, code).toBe(status);
    }
  });
});
