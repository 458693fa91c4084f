// Error answers never echo an absolute path the client sent (issue 29, item 10).
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanUp, get, post, snapshotLine, tempDir, testApp, writeSession } from "./server.test-support.js";

afterEach(cleanUp);

const FILE_ROUTES = [
  "/api/files", "/api/meta", "/api/entries", "/api/raw", "/api/run", "/api/runs", "/api/transcript", "/api/logs", "/api/timeline",
  "/api/filesystem/tree", "/api/filesystem/meta", "/api/bundle", "/api/manifest", "/api/search?q=x", "/api/run/search?q=x",
];

describe("error bodies and client-sent absolute paths", () => {
  it("answers an unknown absolute file without repeating it, on every route that takes one", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "one" })]);
    const app = await testApp({ path: dir });
    const foreign = "/secret-canary-dir/private/run.jsonl";
    for (const route of FILE_ROUTES) {
      const url = `${route}${route.includes("?") ? "&" : "?"}file=${encodeURIComponent(foreign)}`;
      const response = await get(app, url);
      expect(response.statusCode, url).toBeLessThan(500);
      expect(response.body, url).not.toContain("secret-canary");
    }
    const relative = await get(app, "/api/files?file=missing.jsonl");
    expect(relative.statusCode).toBe(404);
    expect(relative.json().detail).toBe("Unknown session file: missing.jsonl");
  });

  it("names a missing file under the root by its relative name in /api/switch and /api/select", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "one" })]);
    const app = await testApp({ path: dir });
    const missing = path.join(dir, "nested", "missing.jsonl");
    const switched = await post(app, "/api/switch", { path: missing });
    expect(switched.statusCode).toBe(400);
    expect(switched.body).not.toContain(dir);
    expect(switched.json().detail).toBe("No snapshot file at nested/missing.jsonl");
    const selected = await post(app, "/api/select", { file: missing });
    expect(selected.statusCode).toBeLessThan(500);
    expect(selected.body).not.toContain(dir);
  });
});
