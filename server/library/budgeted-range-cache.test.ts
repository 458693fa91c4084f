import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Source, createLocalDriver } from "../../shared/remote/index.js";
import { BudgetedRangeCache, STALLED_READ_MS, budgetedReadGate } from "./budgeted-range-cache.js";
import { MemoryBudget, WeightedCache } from "./weighted-cache.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "wink-budgeted-cache-"));
  await writeFile(path.join(dir, "a.bin"), new Uint8Array(512 * 1024).map((_, i) => i % 251));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("BudgetedRangeCache", () => {
  it("counts a source's blocks in the server's one budget, evicting them and other caches' entries by recency alone", async () => {
    const budget = new MemoryBudget(300 * 1024);
    const lines = new WeightedCache<string, string>(budget);
    const cache = new BudgetedRangeCache(budget);
    const source = new Source(createLocalDriver({ root: dir }), { cache });
    lines.set("old line", "x", 100 * 1024);
    const reader = await source.open("a.bin");
    const bytes = await reader.read(0, 128 * 1024);
    expect(bytes[1000]).toBe(1000 % 251);
    expect(cache.stats.bytes).toBe(128 * 1024);
    expect(budget.used).toBe(228 * 1024);
    // Two more blocks do not fit beside the old line: it goes first (least recently used).
    await reader.read(256 * 1024, 128 * 1024);
    expect(lines.get("old line")).toBeUndefined();
    expect(cache.stats.blocks).toBe(4);
    expect(budget.used).toBeLessThanOrEqual(budget.bytes);
    // Blocks read again are hits, no new request.
    const requests = source.stats.requests;
    await reader.read(0, 64 * 1024);
    expect(source.stats.requests).toBe(requests);
    expect(cache.stats.hits).toBeGreaterThan(0);
    // A changed object's blocks are dropped from the budget.
    cache.forget(source.location, "a.bin");
    expect(cache.stats.blocks).toBe(0);
    expect(budget.used).toBe(0);
  });
});

describe("budgetedReadGate", () => {
  it("counts the reads in flight in the same budget (the caches make room for them) and bounds them to an eighth of it", async () => {
    const budget = new MemoryBudget(8 * 1024 * 1024);
    const lines = new WeightedCache<string, string>(budget);
    lines.set("old line", "x", 7 * 1024 * 1024);
    const gate = budgetedReadGate(budget);
    expect(gate.maxBytes).toBe(1024 * 1024);
    const release = await gate.acquire(1024 * 1024);
    // 7 MiB of lines and 1 MiB in flight fill the budget; another MiB of lines evicts the old line.
    expect(budget.used).toBe(8 * 1024 * 1024);
    lines.set("new line", "y", 1024 * 1024);
    expect(lines.get("old line")).toBeUndefined();
    release();
    expect(budget.used).toBe(1024 * 1024);
    // Reads through a source wait for it: the gate is what `openTarget` gives remote sources.
    const source = new Source(createLocalDriver({ root: dir }), { cache: new BudgetedRangeCache(budget), gate });
    const reader = await source.open("a.bin");
    expect((await reader.read(300 * 1024, 10))[0]).toBe((300 * 1024) % 251);
    expect(gate.held).toBe(0);
  });

  it("stops a read held past STALLED_READ_MS from keeping the others waiting, its bytes still in the budget", async () => {
    vi.useFakeTimers();
    try {
      const budget = new MemoryBudget(8 * 1024 * 1024);
      const gate = budgetedReadGate(budget);
      const stuck = await gate.acquire(gate.maxBytes);
      let admitted = false;
      const behind = gate.acquire(1024).then((release) => ((admitted = true), release));
      await vi.advanceTimersByTimeAsync(STALLED_READ_MS - 10);
      expect(admitted).toBe(false);
      await vi.advanceTimersByTimeAsync(20);
      expect(admitted).toBe(true);
      expect(budget.used).toBe(gate.maxBytes + 1024);
      stuck();
      (await behind)();
      expect(budget.used).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
