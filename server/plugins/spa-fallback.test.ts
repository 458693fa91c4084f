import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WinkApp } from "../app.js";
import { cleanUp, get, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";
import { EVAL_PRELOAD, LANDING_PRELOAD } from "./spa-fallback.js";

describe("index.html on the landing page", () => {
  let app: WinkApp;
  beforeAll(async () => {
    const webDir = path.join(await tempDir(), "web");
    await mkdir(path.join(webDir, "assets"), { recursive: true });
    await writeFile(path.join(webDir, "index.html"), '<!doctype html><html><head><title>app</title><script type="module" src="/assets/index.js"></script></head><body></body></html>');
    await writeFile(path.join(webDir, "assets", "index.js"), "console.log('app')");
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
    app = await testApp({ path: dir, webDir });
  });
  afterAll(cleanUp);

  it("preloads the newest run where the URL names no run, and only there", async () => {
    for (const target of ["/", "/?view=timeline", "/index.html", "/some/page"]) {
      const page = await get(app, target, { accept: "text/html" });
      expect(page.statusCode, target).toBe(200);
      expect(page.body, target).toContain(`${LANDING_PRELOAD}\n  </head>`);
      expect(page.body.match(/rel="preload"/g), target).toHaveLength(1);
    }
    for (const target of ["/?view=eval", "/?view=eval&outcome=failed"]) {
      const page = await get(app, target, { accept: "text/html" });
      expect(page.statusCode, target).toBe(200);
      // The eval shows no run: its own first answer is what the page waits for.
      expect(page.body, target).toContain(`${EVAL_PRELOAD}\n  </head>`);
      expect(page.body, target).not.toContain("/api/run");
    }
    for (const target of ["/?file=run.jsonl&line=1", "/?view=compare&file=run.jsonl"]) {
      const page = await get(app, target, { accept: "text/html" });
      expect(page.statusCode, target).toBe(200);
      expect(page.body, target).toContain('<script type="module" src="/assets/index.js">');
      expect(page.body, target).not.toContain("/api/run");
    }
  });

  it("preloads a request the page's CSP allows and the app makes", async () => {
    const page = await get(app, "/", { accept: "text/html" });
    expect(page.headers["content-security-policy"]).toContain("connect-src 'self'");
    const run = await get(app, "/api/run");
    expect(run.statusCode).toBe(200);
    expect((await get(app, "/api/failures")).statusCode).toBe(200);
  });
});
