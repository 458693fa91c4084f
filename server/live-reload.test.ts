// Live reload: new and changed files appear without a restart, and connected browsers are
// told through server-sent events.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanUp, get, snapshotLine, tempDir, testApp, writeSession } from "./server.test-support.js";

afterEach(cleanUp);

describe("GET /api/events", () => {
  for (const watch of [true, "poll"] as const) {
    it(`sends a change event when a session file appears (${watch === true ? "fs.watch" : "polling"})`, async () => {
      const dir = await tempDir();
      await writeSession(dir, "first.jsonl", [snapshotLine({ sessionId: "first" })]);
      const app = await testApp({ path: dir, watch });
      await app.app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.app.server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      const controller = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/api/events`, { signal: controller.signal });
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let received = "";
      const readUntil = async (needle: string): Promise<void> => {
        const deadline = Date.now() + 10_000;
        while (!received.includes(needle)) {
          if (Date.now() > deadline) throw new Error(`no ${needle} in ${received}`);
          const { value, done } = await reader.read();
          if (done) throw new Error("stream ended");
          received += new TextDecoder().decode(value);
        }
      };
      await readUntil("event: hello");
      const written = Date.now();
      await writeFile(path.join(dir, "second.jsonl"), `${snapshotLine({ sessionId: "second" })}\n`);
      await readUntil("second.jsonl");
      expect(received).toMatch(/event: change\ndata: \{[^\n]*"added":\["second.jsonl"\]/);
      const meta = await get(app, "/api/meta?file=second.jsonl");
      expect(meta.json().session_id).toBe("second");
      controller.abort();
      // A stream opened after the change is told when it was sent: a page that fetched before may have missed it.
      const later = await fetch(`http://127.0.0.1:${port}/api/events`);
      const laterReader = (later.body as ReadableStream<Uint8Array>).getReader();
      const { value } = await laterReader.read();
      const hello = /event: hello\ndata: (.*)\n/.exec(new TextDecoder().decode(value))?.[1];
      expect(JSON.parse(hello ?? "null").changed_at).toBeGreaterThanOrEqual(written);
      await laterReader.cancel();
    });
  }

  it("closes open event streams when the server stops", async () => {
    const dir = await tempDir();
    await writeSession(dir, "first.jsonl", [snapshotLine({ sessionId: "first" })]);
    const app = await testApp({ path: dir });
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.app.server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const response = await fetch(`http://127.0.0.1:${port}/api/events`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    expect(app.events.clientCount).toBe(1);
    const started = Date.now();
    await app.app.close();
    expect(Date.now() - started).toBeLessThan(3000);
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
  });
});
