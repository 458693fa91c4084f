/**
 * The read gate: store reads held at once stay within its bytes, in order, on the local
 * driver through `Source.read` (the reads every remote view makes) as well as alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpDriver } from "./http-driver.node.js";
import { createLocalDriver } from "./local-driver.node.js";
import { ByteGate } from "./read-gate.js";
import { Source } from "./source.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "wink-read-gate-"));
  writeFileSync(path.join(root, "big.bin"), new Uint8Array(4 * 1024 * 1024).map((_, i) => i % 253));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("ByteGate", () => {
  it("admits reads while they fit, then in the order they came, and a read larger than the bound alone", async () => {
    const gate = new ByteGate(100);
    const order: string[] = [];
    const first = await gate.acquire(60);
    const waiting = [gate.acquire(50).then((release) => (order.push("50"), release)), gate.acquire(10).then((release) => (order.push("10"), release))];
    await settled();
    // 10 would fit beside 60, but 50 came first: it does not overtake it.
    expect(order).toEqual([]);
    expect(gate.waiting).toBe(2);
    first();
    const [fifty, ten] = await Promise.all(waiting);
    expect(order).toEqual(["50", "10"]);
    expect(gate.held).toBe(60);
    const huge = gate.acquire(500).then((release) => (order.push("500"), release));
    await settled();
    expect(order).not.toContain("500");
    fifty?.();
    ten?.();
    (await huge)();
    expect(order).toContain("500");
    expect(gate.held).toBe(0);
  });

  it("lets a release count once, and an aborted wait go without blocking those behind it", async () => {
    const gate = new ByteGate(100);
    const first = await gate.acquire(100);
    first();
    first();
    expect(gate.held).toBe(0);
    const holder = await gate.acquire(90);
    const controller = new AbortController();
    const aborted = gate.acquire(50, controller.signal);
    const behind = gate.acquire(10);
    controller.abort(new Error("gone"));
    await expect(aborted).rejects.toThrow("gone");
    // The aborted read was the one that did not fit: the one behind it goes at once.
    (await behind)();
    holder();
    expect(gate.waiting).toBe(0);
    expect(gate.held).toBe(0);
  });

  it("tells its hold of each admitted read's bytes, and their release", async () => {
    const events: string[] = [];
    const gate = new ByteGate(10, { onHold: (bytes) => (events.push(`hold ${bytes}`), () => events.push(`let go ${bytes}`)) });
    const release = await gate.acquire(7);
    release();
    expect(events).toEqual(["hold 7", "let go 7"]);
  });
});

describe("ByteGate with stallMs", () => {
  it("stops a read held past stallMs from blocking those waiting, still telling its bytes held until it goes", async () => {
    const events: string[] = [];
    const gate = new ByteGate(100, { stallMs: 50, onHold: (bytes) => (events.push(`hold ${bytes}`), () => events.push(`let go ${bytes}`)) });
    const stuck = await gate.acquire(100);
    const started = Date.now();
    const behind = await gate.acquire(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(gate.stalled).toBe(1);
    expect(gate.held).toBe(10);
    // The stalled read's bytes are still held where they are counted (the memory budget).
    expect(events).toEqual(["hold 100", "hold 10"]);
    stuck();
    stuck();
    expect(gate.stalled).toBe(0);
    expect(gate.held).toBe(10);
    behind();
    expect(events).toEqual(["hold 100", "hold 10", "let go 100", "let go 10"]);
    expect(gate.held).toBe(0);
  });

  it("without stallMs, keeps the waiting read waiting behind one that never goes", async () => {
    const gate = new ByteGate(100);
    const stuck = await gate.acquire(100);
    let admitted = false;
    const behind = gate.acquire(10).then((release) => ((admitted = true), release));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(admitted).toBe(false);
    stuck();
    (await behind)();
    expect(gate.held).toBe(0);
  });

  it("lets a read of a working object through while a read of an object whose server never answers holds the whole gate (real HTTP on loopback)", async () => {
    const held = new Set<ServerResponse>();
    const server = createServer((request, response) => {
      if (request.url === "/hung.bin") {
        held.add(response);
        return;
      }
      const body = Buffer.alloc(1000, 7);
      response.writeHead(request.headers.range === undefined ? 200 : 206, {
        "content-length": body.length,
        etag: '"good-1"',
        "accept-ranges": "bytes",
        ...(request.headers.range === undefined ? {} : { "content-range": `bytes 0-999/1000` }),
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const gate = new ByteGate(64 * 1024, { stallMs: 300 });
      // The store's own deadline for the hung read is 20 s: the good read must not wait for it.
      const source = new Source(createHttpDriver({ url }), { gate, timeoutMs: 20_000, retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 } });
      const hung = source.read("hung.bin", { offset: 0, length: 64 * 1024 });
      hung.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(gate.held).toBe(64 * 1024);
      const started = Date.now();
      const good = await source.read("good.bin", { offset: 0, length: 1000 });
      expect(good.bytes.byteLength).toBe(1000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(gate.stalled).toBe(1);
    } finally {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("Source with a gate", () => {
  it("never holds more than the gate's bytes in reads at once, however many are asked together, and returns the right bytes", async () => {
    let held = 0;
    let most = 0;
    const gate = new ByteGate(256 * 1024, {
      onHold: (bytes) => {
        held += bytes;
        most = Math.max(most, held);
        return () => (held -= bytes);
      },
    });
    const source = new Source(createLocalDriver({ root }), { gate });
    const reads = Array.from({ length: 32 }, (_, index) => source.read("big.bin", { offset: index * 128 * 1024, length: 128 * 1024 }));
    const results = await Promise.all(reads);
    results.forEach((result, index) => {
      expect(result.bytes.byteLength).toBe(128 * 1024);
      expect(result.bytes[0]).toBe((index * 128 * 1024) % 253);
    });
    // 32 reads of 128 KiB asked at once: at most two at a time (4 MiB without the gate).
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(256 * 1024);
    expect(held).toBe(0);
    expect(gate.held).toBe(0);
  });

  it("lets the gate go when a read fails", async () => {
    const gate = new ByteGate(1024);
    const source = new Source(createLocalDriver({ root }), { gate });
    await expect(source.read("missing.bin", { offset: 0, length: 10 })).rejects.toMatchObject({ code: "E_SOURCE_NOT_FOUND" });
    expect(gate.held).toBe(0);
  });
});
