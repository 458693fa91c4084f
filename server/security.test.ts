// The security corpus: every Host/Origin/Sec-Fetch/CSRF/traversal case of
// http-host-origin-cases.jsonl over real HTTP on loopback, and every line of
// hostile-session.jsonl (as served, and wrapped into snapshot envelopes).
import { copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WinkApp } from "./app.js";
import { SECURITY, cleanUp, get, snapshotLine, tempDir, testApp, writeSession } from "./server.test-support.js";

interface HttpCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  expect: number | "policy";
  why: string;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends exactly these request headers (no Host is added) and reads the whole response. */
function rawRequest(port: number, method: string, target: string, headers: Record<string, string>, body = ""): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error(`timeout: ${method} ${target}`)));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        if (colon > 0) parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers: parsed, body: rest.join("\r\n\r\n") });
    });
    const lines = [`${method} ${target} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), "Connection: close"];
    if (body !== "") lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
  });
}

async function loadCases(): Promise<HttpCase[]> {
  const text = await readFile(path.join(SECURITY, "http-host-origin-cases.jsonl"), "utf8");
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as HttpCase);
}

async function servedDirectory(): Promise<string> {
  const dir = await tempDir();
  await writeSession(dir, "run.jsonl", [snapshotLine({ sessionId: "s" })]);
  await writeFile(path.join(dir, "planted-secret.txt"), "wink-canary");
  return dir;
}

for (const withWebApp of [false, true]) {
  describe(`http-host-origin-cases.jsonl over HTTP (${withWebApp ? "built web app" : "placeholder page"})`, () => {
    let app: WinkApp;
    let port = 0;
    beforeAll(async () => {
      const webDir = path.join(await tempDir(), "web");
      if (withWebApp) {
        await mkdir(path.join(webDir, "assets"), { recursive: true });
        await writeFile(path.join(webDir, "index.html"), "<!doctype html><title>app</title><script type=module src=/assets/index.js></script>");
        await writeFile(path.join(webDir, "assets", "index.js"), "console.log('app')");
        await writeFile(path.join(webDir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
        await writeFile(path.join(webDir, ".secret"), "wink-canary dotfile");
        const outside = path.join(path.dirname(webDir), "outside-planted.js");
        await writeFile(outside, "wink-canary outside");
        await symlink(outside, path.join(webDir, "assets", "link.js"));
      }
      app = await testApp({ path: await servedDirectory(), webDir });
      await app.app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.app.server.address();
      port = typeof address === "object" && address !== null ? address.port : 0;
    });
    afterAll(cleanUp);

    it("answers each case with the expected status, never with CORS headers", async () => {
      const cases = await loadCases();
      expect(cases.length).toBeGreaterThanOrEqual(26);
      for (const testCase of cases) {
        const headers = Object.fromEntries(Object.entries(testCase.headers).map(([name, value]) => [name, value.replaceAll("${PORT}", String(port))]));
        const body = testCase.method === "POST" ? JSON.stringify({ path: "run.jsonl" }) : "";
        const response = await rawRequest(port, testCase.method, testCase.path, headers, body);
        // Policy: *.localhost is loopback in browsers (RFC 6761), so it is answered.
        const expected = testCase.expect === "policy" ? 200 : testCase.expect;
        expect(response.status, `${testCase.method} ${testCase.path} ${JSON.stringify(headers)}: ${testCase.why}`).toBe(expected);
        expect(response.headers["access-control-allow-origin"]).toBeUndefined();
        expect(response.body).not.toContain("root:x:0:0");
        expect(response.body).not.toContain("wink-canary");
        if (response.status >= 400 && response.headers["content-type"]?.includes("json")) expect(JSON.parse(response.body).detail).toBeTypeOf("string");
      }
    });

    it("puts a strict CSP, nosniff and no-store on API responses and pages", async () => {
      for (const target of ["/api/meta", "/", "/sessions/deep/link"]) {
        const response = await rawRequest(port, "GET", target, { Host: `127.0.0.1:${port}`, Accept: "text/html" });
        expect(response.status, target).toBe(200);
        expect(response.headers["content-security-policy"]).toContain("script-src 'self'");
        expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
        expect(response.headers["x-content-type-options"]).toBe("nosniff");
      }
      const api = await rawRequest(port, "GET", "/api/meta", { Host: `localhost:${port}` });
      expect(api.headers["cache-control"]).toBe("no-store");
      const page = await rawRequest(port, "GET", "/", { Host: `localhost:${port}`, Accept: "text/html" });
      expect(page.headers["cache-control"]).toBe("no-cache");
      if (withWebApp) {
        const asset = await rawRequest(port, "GET", "/assets/index.js", { Host: `localhost:${port}` });
        expect(asset.status).toBe(200);
        expect(asset.headers["cache-control"]).toContain("immutable");
        expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8");
        expect(asset.body).toBe("console.log('app')");
        const icon = await rawRequest(port, "GET", "/favicon.svg", { Host: `localhost:${port}` });
        expect([icon.status, icon.headers["content-type"], icon.headers["cache-control"]]).toEqual([200, "image/svg+xml", "no-cache"]);
        // Only the regular files listed at start-up are served: no dotfile, no symlink.
        for (const target of ["/.secret", "/assets/link.js", "/assets/../.secret", "/assets/%2e%2e/.secret"]) {
          const refused = await rawRequest(port, "GET", target, { Host: `localhost:${port}` });
          expect(refused.status, target).toBe(404);
          expect(refused.body, target).not.toContain("wink-canary");
        }
      }
      const missing = await rawRequest(port, "GET", "/assets/missing.js", { Host: `localhost:${port}` });
      expect(missing.status).toBe(404);
    });
  });
}

describe("hostile-session.jsonl", () => {
  afterAll(cleanUp);

  interface Expectation {
    line: number;
    expect: string;
    why: string;
  }

  const ITEM_TYPE = "hostile.corpus:Message";

  async function expectations(): Promise<Expectation[]> {
    const text = await readFile(path.join(SECURITY, "hostile-session.expect.jsonl"), "utf8");
    return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Expectation);
  }

  /** Our policy where the corpus leaves one (or where WINK's format decides otherwise). */
  function verdict(expectation: Expectation): "load" | "skip" | "error" {
    if (expectation.expect === "skip") return "skip";
    // Python's json.dumps writes bare NaN: WINK files must load it (MISSION.md, "Formats").
    if (expectation.line === 9) return "load";
    // Invalid UTF-8 (lines 15-17; line 19 holds the same raw CESU-8 bytes as 17) is decoded
    // strictly: the line is reported, never silently altered. Nesting is capped at 1,000.
    if (expectation.expect === "policy" || expectation.line === 19) return "error";
    return expectation.expect === "error-line" ? "error" : "load";
  }

  /** Each hostile line wrapped as the one item of a snapshot envelope, byte for byte. */
  function wrap(bytes: Buffer, lineNumber: number): Buffer {
    let body = bytes;
    let prefix: Buffer = Buffer.alloc(0);
    let suffix: Buffer = Buffer.alloc(0);
    if (lineNumber === 1 && body.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) {
      prefix = body.subarray(0, 3);
      body = body.subarray(3);
    }
    if (body.at(-1) === 0x0d) {
      suffix = Buffer.from("\r");
      body = body.subarray(0, -1);
    }
    if (body.toString("latin1").trim() === "") return bytes;
    const head = `{"children_ids": [], "created_at": "2026-11-22T01:00:00+00:00", "parent_id": null, "slices": [{"item_type": "${ITEM_TYPE}", "items": [`;
    const tail = `], "slice_type": "${ITEM_TYPE}"}], "tags": {"session_id": "hostile-${lineNumber}"}, "version": "1"}`;
    return Buffer.concat([prefix, Buffer.from(head), body, Buffer.from(tail), suffix]);
  }

  it("reports each bad line with its number, and every other line still reads as JSON", async () => {
    const dir = await tempDir();
    await copyFile(path.join(SECURITY, "hostile-session.jsonl"), path.join(dir, "hostile.jsonl"));
    await writeSession(dir, "good.jsonl", [snapshotLine({ sessionId: "good" })]);
    const app = await testApp({ path: dir });
    const response = await get(app, "/api/files?file=hostile.jsonl");
    expect(response.statusCode).toBe(200);
    const [file] = response.json().files;
    expect(file.line_count).toBe(40);
    const errors = new Map<number, { kind: string }>(file.errors.map((error: { line_number: number; kind: string }) => [error.line_number, error]));
    for (const expectation of await expectations()) {
      const reported = errors.get(expectation.line);
      const outcome = verdict(expectation);
      const label = `line ${expectation.line} (${expectation.why})`;
      if (outcome === "skip") expect(reported, label).toBeUndefined();
      // None of these lines is a WINK envelope: loadable JSON is reported at the envelope layer only.
      else if (outcome === "load") expect(reported?.kind, label).toBe("envelope");
      else expect(["json", "encoding", "too-long"], label).toContain(reported?.kind);
    }
    expect((await get(app, "/api/meta")).json().session_id).toBe("good");
  });

  it("loads every acceptable line wrapped in an envelope, serves it without a 500, and never runs its markup", async () => {
    const dir = await tempDir();
    const raw = await readFile(path.join(SECURITY, "hostile-session.jsonl"));
    const physical: Buffer[] = [];
    for (let start = 0; start <= raw.length; ) {
      const end = raw.indexOf(0x0a, start);
      physical.push(raw.subarray(start, end === -1 ? raw.length : end));
      if (end === -1) break;
      start = end + 1;
    }
    await writeFile(path.join(dir, "wrapped.jsonl"), Buffer.concat(physical.flatMap((line, index) => [wrap(line, index + 1), Buffer.from(index < physical.length - 1 ? "\n" : "")])));
    const app = await testApp({ path: dir });
    const [file] = (await get(app, "/api/files?file=wrapped.jsonl")).json().files;
    const loaded = new Set<number>(flatten(file.sessions).map((node) => node.line_number));
    const type = encodeURIComponent(ITEM_TYPE);
    for (const expectation of await expectations()) {
      const outcome = verdict(expectation);
      const label = `line ${expectation.line} (${expectation.why})`;
      if (outcome !== "load") {
        expect(loaded.has(expectation.line), label).toBe(false);
        continue;
      }
      expect(loaded.has(expectation.line), label).toBe(true);
      const selector = `file=wrapped.jsonl&line=${expectation.line}`;
      for (const url of [`/api/meta?${selector}`, `/api/slices/${type}?${selector}`, `/api/raw?${selector}`, `/api/timeline?${selector}`, `/api/search?${selector}&q=message`, `/api/filesystem/meta?${selector}`]) {
        const response = await get(app, url);
        expect(response.statusCode, `${label}: ${url}`).toBe(200);
        expect(response.headers["content-type"], url).toContain("application/json");
        JSON.parse(response.body);
      }
      const slice = (await get(app, `/api/slices/${type}?${selector}`)).json();
      for (const html of markdownHtml(slice.items)) expectInertHtml(html, label);
      if (expectation.expect === "parse-escaped" && expectation.line === 31) {
        expect(markdownHtml(slice.items).join("")).toContain("&lt;img");
      }
    }
    expect((await get(app, `/api/raw?file=wrapped.jsonl&line=26`)).body).toContain("18446744073709551617");
    const polluted = {} as Record<string, unknown>;
    expect(polluted.polluted).toBeUndefined();
    expect(polluted.isAdmin).toBeUndefined();
    expect(polluted.polluted2).toBeUndefined();
  });
});

const MARKDOWN_TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "strong", "em", "code", "pre", "a", "blockquote", "hr", "br"]);

/** Every real tag (text `<` is escaped) is a markdown tag without handlers or script URLs. */
function expectInertHtml(html: string, label: string): void {
  for (const match of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)) {
    const [, name = "", attributes = ""] = match;
    expect(MARKDOWN_TAGS.has(name.toLowerCase()), `${label}: <${name}>`).toBe(true);
    expect(attributes, label).not.toMatch(/\son\w+\s*=/i);
    for (const href of attributes.matchAll(/(?:href|src)="([^"]*)"/gi)) expect(href[1] ?? "", label).toMatch(/^(?:https?:|mailto:|#|\/(?!\/)|[^:]*$)/i);
  }
}

function flatten(nodes: { line_number: number; children: unknown[] }[]): { line_number: number }[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children as { line_number: number; children: unknown[] }[])]);
}

function markdownHtml(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(markdownHtml);
  if (typeof value !== "object" || value === null) return [];
  const record = value as Record<string, unknown>;
  const wrapper = record.__markdown__ as { html?: unknown } | undefined;
  if (wrapper !== undefined && typeof wrapper.html === "string") return [wrapper.html];
  return Object.values(record).flatMap(markdownHtml);
}
