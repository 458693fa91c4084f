// Big answers (a whole slice or the raw line of a session line over 1 MiB) are written
// while they are sent: the same strict JSON as a built answer, chunked, over real HTTP.
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSessionFile, toStrictJson } from "../../shared/session/index.js";
import { slicePage } from "../../shared/viewer/index.js";
import type { WinkApp } from "../app.js";
import { cleanUp, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";

afterEach(cleanUp);

const TOOL = "weakincentives.runtime.events.types:ToolInvoked";
const NOTE = "__main__:ReviewNote";

/** A line of ~2.4 MB: 400 tool calls with 6 kB outputs (every third one markdown), a NaN and a big integer. */
function bigLine(): string {
  const items = Array.from({ length: 400 }, (_, index) => ({
    call_id: `call_${index}`,
    created_at: "2026-11-22T01:00:00.000000+00:00",
    event_id: `event-${index}`,
    rendered_output: index % 3 === 0 ? `## Step ${index}\n\n- **read** \`file_${index}\`\n\n${"lorem ipsum ".repeat(500)}` : `plain ${index} ${"dolor sit amet ".repeat(400)}`,
    score: index === 7 ? Number.NaN : index,
    big: index === 9 ? 123456789012345678901234567890n : 0,
    text: "\udc80 lone surrogate",
  }));
  return snapshotLine({ sessionId: "big", slices: [{ type: TOOL, items }, { type: NOTE, items: [{ text: "small" }] }] });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function fetchText(base: string, route: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${route}`, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
      })
      .on("error", reject);
  });
}

async function listening(app: WinkApp): Promise<string> {
  await app.app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
}

describe("streamed answers", () => {
  it("sends a whole slice and the raw line of a big line chunked, with exactly the built answers' JSON", async () => {
    const dir = await tempDir();
    const file = await writeSession(dir, "run.jsonl", [bigLine(), snapshotLine({ sessionId: "small", slices: [{ type: NOTE, items: [{ text: "x" }] }] })]);
    const [line] = (await readSessionFile(file)).snapshots;
    const tools = line?.slices.find((slice) => slice.sliceType === TOOL);
    if (line === undefined || tools === undefined) throw new Error("fixture did not load");
    const app = await testApp({ path: dir });
    const base = await listening(app);

    const whole = await fetchText(base, `/api/slices/${encodeURIComponent(TOOL)}?file=run.jsonl&line=1`);
    expect(whole.status).toBe(200);
    expect(whole.headers["transfer-encoding"]).toBe("chunked");
    expect(whole.headers["content-length"]).toBeUndefined();
    expect(whole.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(whole.body).toBe(toStrictJson(slicePage(tools, { offset: 0, limit: null, markdown: true })));
    expect(whole.body).toContain('"__markdown__"');
    expect(whole.body).toContain('{"__float__":"NaN"}');
    expect(whole.body).toContain("123456789012345678901234567890");
    expect(whole.body).toContain("\\udc80");

    // The slice request parsed the line: its raw answer is streamed from that parse, not
    // parsed again on the worker thread (a line not parsed yet goes there: heavy-work.test.ts).
    const raw = await fetchText(base, "/api/raw?file=run.jsonl&line=1");
    expect(raw.headers["transfer-encoding"]).toBe("chunked");
    expect(raw.body).toBe(toStrictJson(line.raw));
    expect(app.heavy.pool.tasksRun).toBe(0);

    const plain = await fetchText(base, `/api/slices/${encodeURIComponent(TOOL)}?file=run.jsonl&line=1&markdown=0&offset=390`);
    expect(plain.body).toBe(toStrictJson(slicePage(tools, { offset: 390, limit: null, markdown: false })));
  });

  it("builds pages the web app asks for and small lines' answers whole", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [bigLine(), snapshotLine({ sessionId: "small", slices: [{ type: NOTE, items: [{ text: "x" }] }] })]);
    const base = await listening(await testApp({ path: dir }));
    const page = await fetchText(base, `/api/slices/${encodeURIComponent(TOOL)}?file=run.jsonl&line=1&limit=50`);
    expect(page.headers["content-length"]).toBe(String(Buffer.byteLength(page.body)));
    expect((JSON.parse(page.body) as { items: unknown[] }).items).toHaveLength(50);
    const small = await fetchText(base, "/api/raw?file=run.jsonl&line=2");
    expect(small.headers["content-length"]).toBe(String(Buffer.byteLength(small.body)));
    expect(JSON.parse(small.body)).toMatchObject({ tags: { session_id: "small" } });
  });

  it("keeps serving when a client goes away in the middle of a streamed answer", async () => {
    const dir = await tempDir();
    await writeSession(dir, "run.jsonl", [bigLine()]);
    const base = await listening(await testApp({ path: path.join(dir, "run.jsonl") }));
    for (let round = 0; round < 5; round++) {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(`${base}/api/raw`, (response) => {
          response.once("data", () => {
            request.destroy();
            resolve();
          });
        });
        request.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? resolve() : reject(error)));
      });
    }
    const after = await fetchText(base, `/api/slices/${encodeURIComponent(TOOL)}`);
    expect(after.status).toBe(200);
    expect((JSON.parse(after.body) as { total: number }).total).toBe(400);
  });
});
