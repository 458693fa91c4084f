/**
 * Issue 29, item 5: a 200 MB session file of 2,000,000 small records took the server to
 * 1.4 GB, and `--memory` bounded none of it (an index kept ~170 bytes a line, outside the
 * budget). Scaled to 300,000 records beside a small file, over real HTTP on loopback: the
 * index is counted in the budget at a few tens of bytes a line, the heap it keeps is of that
 * order, a file that is not open gives its index back when the budget is short (and reads it
 * again when opened), the open file's index stays, and `/api/meta` on the small file answers
 * within a second all along.
 */
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collectGarbage, heapAndBuffers } from "./heap.test-support.js";
import { cleanUp, get, snapshotLine, tempDir, testApp } from "./server.test-support.js";
import { POLL_PROBE, startClient, type PollProbeResult } from "./loopback-client.test-support.js";

let running: { stop(): void; result: Promise<unknown> } | null = null;
afterEach(async () => {
  // A probe left running by a failed test: stopped, and its end awaited, before the server closes.
  running?.stop();
  await running?.result.catch(() => undefined);
  running = null;
  await cleanUp();
});

const LINES = 300_000;
/** The budget: less than the big file's index, more than everything else the test keeps. */
const MEMORY_BYTES = 4 * 1024 * 1024;
/** What the index may be counted for, and keep in the heap, a line (it kept ~170 bytes). */
const MAX_INDEX_BYTES_PER_LINE = 48;
const MAX_HEAP_BYTES_PER_LINE = 80;

/** `LINES` small records (~140 bytes each) of 100 sessions, each with its own time. */
async function smallRecords(file: string): Promise<void> {
  const handle = await open(file, "w");
  try {
    const batch: string[] = [];
    for (let i = 0; i < LINES; i++) {
      const time = `2026-11-22T01:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.${String(i % 1_000_000).padStart(6, "0")}+00:00`;
      batch.push(`{"children_ids": [], "created_at": "${time}", "parent_id": null, "slices": [], "tags": {"session_id": "s-${i % 100}"}, "version": "1"}`);
      if (batch.length === 20_000) await handle.write(`${batch.splice(0).join("\n")}\n`);
    }
  } finally {
    await handle.close();
  }
}

describe("a session file of 300,000 small records beside a small one (issue 29, item 5)", () => {
  it("counts its index in --memory at a few tens of bytes a line, lets it go while it is not open, keeps it while it is, and /api/meta answers within 1 s", async () => {
    const dir = await tempDir();
    const bigFile = path.join(dir, "big.jsonl");
    await smallRecords(bigFile);
    // The big file is the older one: the app opens the small one first. Files are listed by
    // the later of their change and modification times (WINK's order), so setting big's mtime
    // back changes nothing; and the kernel stamps them from a coarse clock (a few ms), so a
    // file written right after another may share its time, and the tie goes by name (big first).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(path.join(dir, "small.jsonl"), `${snapshotLine({ sessionId: "small" })}\n`);
    const app = await testApp({ path: dir, memoryBytes: MEMORY_BYTES });
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const base = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
    expect((await fetch(`${base}/api/meta?file=small.jsonl`)).status).toBe(200);
    const { directory } = app.state;
    const big = directory.get("big.jsonl");
    if (big === undefined) throw new Error("big.jsonl is not listed");
    const gc = collectGarbage();

    // Indexed while another file is open (the background indexing's case).
    const probe = startClient<PollProbeResult>(POLL_PROBE, [`${base}/api/meta?file=small.jsonl`]);
    running = probe;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await gc();
    const heapBefore = heapAndBuffers();
    const index = await directory.ensureIndexed(big);
    await gc();
    const heapKept = heapAndBuffers() - heapBefore;
    expect(index.lineCount).toBe(LINES);
    expect(index.lines.at(-1)).toMatchObject({ lineNumber: LINES, sessionId: "s-99", createdAt: "2026-11-22T01:19:59.299999+00:00" });
    console.log(`the index kept ${(heapKept / LINES).toFixed(0)} bytes of heap a line`);
    expect(heapKept / LINES).toBeLessThan(MAX_HEAP_BYTES_PER_LINE);
    // Heavier than the whole budget and not open: counted, then let go; the budget holds.
    expect(directory.dropped(big)).toBe(true);
    expect(big.index).toBeNull();
    expect(directory.indexBytes).toBeLessThanOrEqual(MEMORY_BYTES);
    const listed = JSON.parse((await get(app, "/api/files")).body) as { indexing: boolean; files: { path: string; status: string; error: string | null }[] };
    expect(listed.indexing).toBe(false);
    expect(listed.files.find((file) => file.path === "big.jsonl")).toMatchObject({ status: "pending", error: expect.stringContaining("--memory") });

    // Opened: read again, held (over the budget, as the open file's index must be), kept.
    const meta = await fetch(`${base}/api/meta?file=big.jsonl`);
    expect(meta.status).toBe(200);
    expect(big.index?.lineCount).toBe(LINES);
    const perLine = directory.indexBytes / LINES;
    console.log(`the open file's index is counted for ${perLine.toFixed(1)} bytes a line`);
    expect(perLine).toBeLessThan(MAX_INDEX_BYTES_PER_LINE);
    expect((await fetch(`${base}/api/entries?file=big.jsonl`)).status).toBe(200);
    expect((await fetch(`${base}/api/slices/x?file=big.jsonl&line=${LINES}`)).status).toBe(404);
    expect(big.index).not.toBeNull();
    expect(directory.dropped(big)).toBe(false);

    probe.stop();
    const { quickCount, quickMaxMs } = await probe.result;
    console.log(`${quickCount} answers of /api/meta on the small file meanwhile, the slowest ${quickMaxMs.toFixed(0)} ms`);
    expect(quickCount).toBeGreaterThan(10);
    // The issue asks for 1 s (docs/benchmarks.md measures it); a loaded machine (2 cores, load 17) saw 816 ms.
    expect(quickMaxMs).toBeLessThan(1500);

    // Other files opened since: the big one is no longer held, and gives its index back.
    for (const other of ["a", "b", "c", "d"]) {
      await writeFile(path.join(dir, `${other}.jsonl`), `${snapshotLine({ sessionId: other })}\n`);
    }
    await directory.refresh();
    for (const other of ["a", "b", "c", "d"]) expect((await fetch(`${base}/api/meta?file=${other}.jsonl`)).status).toBe(200);
    expect(big.index).toBeNull();
    expect(directory.indexBytes).toBeLessThanOrEqual(MEMORY_BYTES);
  }, 180_000);
});
