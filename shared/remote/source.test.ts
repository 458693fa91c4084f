/**
 * The shared layer above the drivers: key order, backoff, the block cache, coalescing,
 * time budgets and the line index, on the local driver and real loopback sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SourceError } from "../errors.js";
import { readPhysicalLines } from "../session/session-file.node.js";
import { createHttpDriver } from "./http-driver.node.js";
import { compareKeys } from "./keys.js";
import { LineIndex } from "./line-index.js";
import { createLocalDriver } from "./local-driver.node.js";
import { RangeCache } from "./range-cache.js";
import { retryDelay } from "./retry.js";
import { Source } from "./source.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "wink-source-layer-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

function localSource(body: Uint8Array | string, options: ConstructorParameters<typeof Source>[1] = {}): { source: Source; key: string } {
  const key = `f${++files}.bin`;
  writeFileSync(path.join(root, key), body);
  return { source: new Source(createLocalDriver({ root }), options), key };
}

describe("key order", () => {
  it("is UTF-8 byte order (S3's), not UTF-16 code-unit order", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(Math.sign(compareKeys(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2000 },
    );
    expect(compareKeys("a\uff61", "a\u{1f600}")).toBeLessThan(0);
    expect("a\uff61" < "a\u{1f600}").toBe(false);
  });
});

describe("retry backoff", () => {
  const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };
  it("doubles its ceiling per attempt, jitters below it, and stops after the last attempt", () => {
    expect([1, 2, 3].map((attempt) => retryDelay(policy, attempt, null, () => 0.999999))).toEqual([100, 200, 400]);
    expect(retryDelay(policy, 2, null, () => 0)).toBe(0);
    expect(retryDelay(policy, 4, null)).toBeNull();
    expect(retryDelay({ ...policy, attempts: 20 }, 10, null, () => 0.999999)).toBe(1000);
  });
  it("honours Retry-After within the cap and gives up at once beyond it", () => {
    expect(retryDelay(policy, 1, 300)).toBe(300);
    expect(retryDelay(policy, 1, 60_000)).toBeNull();
  });
});

describe("range cache", () => {
  it("counts bytes exactly, never holds more than its cap, and drops least recently used blocks first", () => {
    const cache = new RangeCache({ maxBytes: 1200 });
    for (let i = 0; i < 4; i++) cache.set(`k${i}`, new Uint8Array(300));
    expect(cache.stats.bytes).toBe(1200);
    expect(cache.get("k0")).toBeDefined(); // k1 is now the oldest
    cache.set("k4", new Uint8Array(300));
    expect(cache.stats.bytes).toBe(1200);
    expect(cache.get("k1")).toBeUndefined();
    expect(cache.get("k0")).toBeDefined();
    cache.set("huge", new Uint8Array(1201));
    expect(cache.get("huge")).toBeUndefined();
    cache.forget("s", "x");
    cache.set(RangeCache.entryKey("s", "x", '"v1"', 0), new Uint8Array(10));
    cache.set(RangeCache.entryKey("s", "x", '"v2"', 0), new Uint8Array(10));
    cache.set(RangeCache.entryKey("s", "xy", '"v1"', 0), new Uint8Array(10));
    cache.forget("s", "x");
    expect(cache.get(RangeCache.entryKey("s", "x", '"v1"', 0))).toBeUndefined();
    expect(cache.get(RangeCache.entryKey("s", "xy", '"v1"', 0))).toBeDefined();
  });

  it("holds a reader's blocks within its cap, whatever the reader reads", async () => {
    const body = new Uint8Array(3_000_000).map((_, i) => i % 256);
    const cache = new RangeCache({ maxBytes: 256 * 1024 });
    const { source, key } = localSource(body, { cache });
    const reader = await source.open(key);
    for (let offset = 0; offset < body.length; offset += 100_000) {
      expect(await reader.read(offset, 5_000)).toEqual(body.subarray(offset, offset + 5_000));
      expect(cache.stats.bytes).toBeLessThanOrEqual(256 * 1024);
    }
  });
});

describe("random-access reader", () => {
  it("coalesces concurrent reads of the same blocks into one request", async () => {
    const body = new Uint8Array(500_000).map((_, i) => (i * 13) % 256);
    const { source, key } = localSource(body);
    const reader = await source.open(key);
    const before = source.stats.requests;
    const reads = await Promise.all(Array.from({ length: 8 }, (_, i) => reader.read(10_000 + i * 1000, 20_000)));
    reads.forEach((bytes, i) => expect(bytes).toEqual(body.subarray(10_000 + i * 1000, 30_000 + i * 1000)));
    expect(source.stats.requests - before).toBe(1);
  });

  it("reads a member sequentially in a few growing requests, not one per call", async () => {
    const body = new Uint8Array(2_000_000).map((_, i) => i % 251);
    const { source, key } = localSource(body);
    const reader = await source.open(key);
    const before = source.stats.requests;
    for (let offset = 0; offset < 1_000_000; offset += 16_384) await reader.read(offset, 16_384);
    expect(source.stats.requests - before).toBeLessThan(10);
  });
});

describe("time budgets", () => {
  it("gives E_SOURCE_TIMEOUT naming the URL when a server accepts and never answers (a real socket that stays silent)", async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const source = new Source(createHttpDriver({ url: `http://127.0.0.1:${port}/runs/` }), { timeoutMs: 300, retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 } });
      const started = Date.now();
      const error = await source.stat("a.jsonl").catch((caught: unknown) => caught as SourceError);
      expect(error).toBeInstanceOf(SourceError);
      expect((error as SourceError).code).toBe("E_SOURCE_TIMEOUT");
      expect((error as SourceError).message).toContain(`http://127.0.0.1:${port}/runs/a.jsonl`);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("ends a read whose body drips within the budget between chunks but past its deadline (budget + length at the slowest rate)", async () => {
    // A real socket answering 206 at once, then one byte every 50 ms: every chunk comes within the 300 ms budget.
    const sockets = new Set<Socket>();
    const drip: Server = createServer((socket) => {
      sockets.add(socket);
      // The client resets the socket at its deadline: a write after that is an error here, not the test's.
      socket.on("error", () => undefined);
      socket.once("data", () => {
        socket.write("HTTP/1.1 206 Partial Content\r\nContent-Length: 1000\r\nContent-Range: bytes 0-999/1000\r\nETag: \"v1\"\r\n\r\n");
        const timer = setInterval(() => socket.write("x"), 50);
        socket.on("close", () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => drip.listen(0, "127.0.0.1", resolve));
    const port = (drip.address() as { port: number }).port;
    try {
      const source = new Source(createHttpDriver({ url: `http://127.0.0.1:${port}/` }), { timeoutMs: 300, minBytesPerSecond: 1000 });
      const started = Date.now();
      const error = await source.read("a.jsonl", { offset: 0, length: 1000 }).catch((caught: unknown) => caught as SourceError);
      const took = Date.now() - started;
      expect(error).toBeInstanceOf(SourceError);
      expect((error as SourceError).code).toBe("E_SOURCE_TIMEOUT");
      expect((error as SourceError).message).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/a\\.jsonl sent only \\d+ of 1000 bytes in 1300 ms \\(slower than 1000 B/s\\)$`));
      expect((error as SourceError).data).toMatchObject({ reason: "too-slow", retryable: false, expected: 1000 });
      // One attempt (not retried), ended at its deadline: 300 ms + 1000 bytes at 1000 B/s.
      expect(source.stats.requests).toBe(1);
      expect(took).toBeGreaterThanOrEqual(1_250);
      expect(took).toBeLessThan(4_000);
      // Its socket is closed with it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect([...sockets].every((socket) => socket.destroyed)).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => drip.close(() => resolve()));
    }
  });

  it("passes the caller's own abort through untouched", async () => {
    const { source, key } = localSource("x".repeat(1000));
    const controller = new AbortController();
    controller.abort(new Error("user left"));
    await expect(source.read(key, { offset: 0, length: 10 }, { signal: controller.signal })).rejects.toThrow("user left");
  });
});

describe("JSONL line index", () => {
  async function physicalLines(file: string): Promise<string[]> {
    const lines: string[] = [];
    for await (const line of readPhysicalLines(file)) lines.push(Buffer.from(line.bytes ?? []).toString("latin1"));
    return lines;
  }

  it("finds the same lines as the session reader, newest first and numbered, for any content", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom("a", "{}", "\n", "\r\n", "", "\n\n", "x".repeat(300)), { maxLength: 60 }), fc.integer({ min: 1, max: 64 }), async (parts, chunk) => {
        const text = parts.join("");
        const { source, key } = localSource(text);
        const expected = await physicalLines(path.join(root, key));
        const reader = await source.open(key).catch((error: unknown) => {
          throw error;
        });
        const index = new LineIndex(source, reader, { tailChunkBytes: chunk });
        const newest = await index.newest(3);
        const decode = async (span: (typeof newest)[number]): Promise<string> => Buffer.from(await index.readLine(span)).toString("latin1");
        expect(await Promise.all(newest.map(decode))).toEqual(expected.slice(-3).reverse());
        await index.build();
        expect(index.lineCount).toBe(expected.length);
        for (let n = 1; n <= expected.length; n++) expect(await decode(await index.line(n))).toBe(expected[n - 1]);
      }),
      { numRuns: 60 },
    );
  });

  it("opens the newest line of a large file reading a small fraction of it", async () => {
    const line = (n: number): string => JSON.stringify({ n, items: "y".repeat(20_000) });
    const text = `${Array.from({ length: 1000 }, (_, i) => line(i + 1)).join("\n")}\n`;
    const { source, key } = localSource(text);
    const reader = await source.open(key);
    const index = new LineIndex(source, reader);
    const [last] = await index.newest(1);
    expect(JSON.parse(Buffer.from(await index.readLine(last!)).toString()).n).toBe(1000);
    expect(source.stats.bytesReceived).toBeLessThan(text.length / 100);
  });

  it("refuses a line longer than its limit with E_SOURCE_LIMIT", async () => {
    const { source, key } = localSource(`short\n${"z".repeat(5000)}\n`);
    const index = new LineIndex(source, await source.open(key), { maxLineBytes: 1000 });
    const [last] = await index.newest(1);
    await expect(index.readLine(last!)).rejects.toMatchObject({ code: "E_SOURCE_LIMIT" });
  });
});
