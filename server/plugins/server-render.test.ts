// The landing page rendered on the server with the built renderer (dist/web-ssr, from
// web/entry-server.tsx: needs `npm run build` first, npm test builds): hostile session text
// is escaped in the markup and in the inline run answer, and without the renderer the page
// is sent as before.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { WinkApp } from "../app.js";
import { cleanUp, get, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";
import { SignedSessionCookies } from "../auth/session-cookie.js";
import { TokenSignIn, generateToken } from "../auth/token-sign-in.js";
import { jsonForScript, LANDING_RUN_ID } from "./server-render.js";
import { LANDING_PRELOAD } from "./spa-fallback.js";

const BUILT_RENDERER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "web-ssr", "entry-server.cjs");
const TOOL_INVOKED = "weakincentives.runtime.events._types:ToolInvoked";
const HOSTILE = "</script><script>alert(1)</script><!-- \u2028\u2029 & <b>bold</b>";
const INDEX = '<!doctype html><html><head><title>app</title><script type="module" src="/assets/index.js"></script></head><body>\n    <div id="root"></div>\n  </body></html>';

async function webDir(): Promise<string> {
  const dir = path.join(await tempDir(), "web");
  await mkdir(path.join(dir, "assets"), { recursive: true });
  await writeFile(path.join(dir, "index.html"), INDEX);
  await writeFile(path.join(dir, "assets", "index.js"), "console.log('app')");
  return dir;
}

/** The inline run answer of a page, as the browser's JSON.parse reads it; null when the page has none. */
function inlineRun(html: string): unknown {
  const match = new RegExp(`<script type="application/json" id="${LANDING_RUN_ID}">([^]*?)</script>`).exec(html);
  return match?.[1] === undefined ? null : JSON.parse(match[1]);
}

describe("the landing page rendered on the server", () => {
  let app: WinkApp;
  let without: WinkApp;
  beforeAll(async () => {
    if (!existsSync(BUILT_RENDERER)) throw new Error("dist/web-ssr is not built: run `npm run build` first (npm test does)");
    const dir = await tempDir();
    const failed = { event_id: "e1", created_at: "2026-11-22T01:00:01+00:00", call_id: "call_<1>", name: "write_file", params: { file_path: "src/<evil>.py" }, result: { success: false, message: HOSTILE } };
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s", slices: [{ type: TOOL_INVOKED, items: [failed] }] })]);
    app = await testApp({ path: dir, webDir: await webDir(), ssrModule: BUILT_RENDERER });
    without = await testApp({ path: dir, webDir: await webDir(), ssrModule: path.join(await tempDir(), "missing.cjs") });
  });
  afterAll(cleanUp);

  it("puts the failures into the page, session text escaped in the markup and in the inline answer", async () => {
    const page = await get(app, "/", { accept: "text/html" });
    expect(page.statusCode).toBe(200);
    const body = page.body;
    // One script element of the app's and one of data: nothing the session wrote opened another.
    expect(body.match(/<script/g)).toHaveLength(2);
    expect(body).not.toContain("alert(1)</script>");
    expect(body).not.toMatch(/[\u2028\u2029]/);
    const root = /<div id="root">([^]*)<\/div>\s*<script type="application\/json"/.exec(body)?.[1] ?? "";
    expect(root).toContain('data-testid="failure-row"');
    expect(root).toContain("write_file");
    expect(root).toContain("src/&lt;evil&gt;.py");
    expect(root).toContain("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    // The inline answer reads back as exactly what /api/run answers, hostile text and all.
    const run = await get(app, "/api/run");
    expect(inlineRun(body)).toEqual(JSON.parse(run.body));
    expect((inlineRun(body) as { failures: { message: string }[] }).failures[0]?.message).toContain("</script><script>alert(1)</script><!--");
    // The data is in the page: no preload of it, and the CSP still allows no inline script.
    expect(body).not.toContain(LANDING_PRELOAD);
    expect(page.headers["content-security-policy"]).toMatch(/script-src 'self';/);
  });

  it("renders only the bare landing URL: any other page URL is sent as before", async () => {
    for (const target of ["/?view=timeline", "/index.html", "/some/page", "/?file=run.jsonl&line=1"]) {
      const page = await get(app, target, { accept: "text/html" });
      expect(page.statusCode, target).toBe(200);
      expect(page.body, target).toContain('<div id="root"></div>');
      expect(inlineRun(page.body), target).toBeNull();
    }
  });

  it("sends the page as before when the renderer is missing", async () => {
    const page = await get(without, "/", { accept: "text/html" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="root"></div>');
    expect(page.body).toContain(LANDING_PRELOAD);
    expect(inlineRun(page.body)).toBeNull();
  });

  it("renders the page once when the app is ready (the CLI), and again only when the run changed", async () => {
    const dir = await tempDir();
    const failure = (message: string) => ({ event_id: message, created_at: "2026-11-22T01:00:01+00:00", call_id: message, name: "read_file", params: { file_path: "a.py" }, result: { success: false, message } });
    const file = await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s", slices: [{ type: TOOL_INVOKED, items: [failure("first failure")] }] })]);
    const prerendered = await testApp({ path: dir, webDir: await webDir(), ssrModule: BUILT_RENDERER, prerenderLanding: true, watch: "poll" });
    const onDemand = await testApp({ path: dir, webDir: await webDir(), ssrModule: BUILT_RENDERER });
    await prerendered.app.ready();
    const first = await get(prerendered, "/", { accept: "text/html" });
    expect(first.body).toContain("first failure");
    // The same page a server rendering on demand sends.
    expect(first.body).toBe((await get(onDemand, "/", { accept: "text/html" })).body);
    expect((await get(prerendered, "/", { accept: "text/html" })).body).toBe(first.body);
    // The run changed: the page follows it, never an older page.
    await writeFile(file, `${snapshotLine({ sessionId: "s", slices: [{ type: TOOL_INVOKED, items: [failure("first failure"), failure("second failure")] }] })}\n`);
    await expect.poll(async () => (await get(prerendered, "/", { accept: "text/html" })).body, { timeout: 10_000 }).toContain("second failure");
    const changed = await get(prerendered, "/", { accept: "text/html" });
    expect(inlineRun(changed.body)).toEqual(JSON.parse((await get(prerendered, "/api/run")).body));
  });

  it("the run index starts after the start-up render and digests the landing run from it: the newest line is read once", async () => {
    const dir = await tempDir();
    const failed = { event_id: "e1", created_at: "2026-11-22T01:00:01+00:00", call_id: "c1", name: "read_file", params: { file_path: "a.py" }, result: { success: false, message: "read once" } };
    // A line whose parse (~3 MB counted) is not kept in a 2 MiB budget: a second use parses it again.
    const note = { text: "x".repeat(2_000_000) };
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s", slices: [{ type: TOOL_INVOKED, items: [failed] }, { type: "Note", items: [note] }] })]);
    const served = await testApp({ path: dir, webDir: await webDir(), ssrModule: BUILT_RENDERER, prerenderLanding: true, indexInBackground: true, memoryBytes: 2 * 1024 * 1024 });
    const reads = vi.spyOn(served.state.directory.store, "readLine");
    // How many times the line had been read when the index started: the render's read only.
    const readsAtStart: number[] = [];
    const start = served.runIndex.start.bind(served.runIndex);
    vi.spyOn(served.runIndex, "start").mockImplementation(() => {
      readsAtStart.push(reads.mock.calls.length);
      return start();
    });
    await served.app.ready();
    await served.runIndex.whenStarted();
    await served.runIndex.whenComplete();
    expect(readsAtStart[0]).toBe(1);
    expect((await get(served, "/", { accept: "text/html" })).body).toContain("read once");
    expect(served.runIndex.digests()).toMatchObject([{ outcome: "failed" }]);
    // Before, the index digested the run beside the render: a big line was parsed twice, at times both at once.
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it("under sign-in, draws the landing page for the signed-in user who asked for it, and sends no one else anything", async () => {
    const dir = await tempDir();
    const failed = { event_id: "e1", created_at: "2026-11-22T01:00:01+00:00", call_id: "c1", name: "read_file", params: { file_path: "a.py" }, result: { success: false, message: "drawn for the signed-in user" } };
    await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s", slices: [{ type: TOOL_INVOKED, items: [failed] }] })]);
    const sessions = new SignedSessionCookies({ secret: Buffer.from("s".repeat(40)), basePath: "/", secure: false });
    const token = generateToken();
    const served = await testApp({ path: dir, webDir: await webDir(), ssrModule: BUILT_RENDERER, prerenderLanding: true, auth: { method: new TokenSignIn(token), context: { sessions, basePath: "/" } } });
    await served.app.ready();
    const signedOut = await get(served, "/", { accept: "text/html" });
    expect(signedOut.statusCode).toBe(302);
    expect(signedOut.body).not.toContain("drawn for the signed-in user");
    const cookie = `wink_session=${sessions.issue({ name: "ada", email: "ada@example.com", via: "token" })}`;
    const page = await get(served, "/", { accept: "text/html", cookie });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-testid="failure-row"');
    expect(page.body).toContain("drawn for the signed-in user");
    expect(inlineRun(page.body)).toEqual(JSON.parse((await get(served, "/api/run", { cookie })).body));
  });

  it("escapes what could end a script element or a line in JSON text, which still parses to the same value", () => {
    const text = JSON.stringify({ message: HOSTILE });
    const safe = jsonForScript(text);
    expect(safe).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(safe)).toEqual({ message: HOSTILE });
  });
});
