// Every server error code is documented in docs/api.md with its status (Fastify's
// one-error-table discipline), and errors become {detail} with that status.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileNotFoundError, SessionLoadError } from "../shared/errors.js";
import { SERVER_ERROR_CODES, ServerError } from "./errors.js";
import { packageRoot } from "./package-root.js";
import { describeError } from "./plugins/error-handler.js";

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
    expect(bug.detail).not.toContain("/secret/path");
  });
});
