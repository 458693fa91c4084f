/**
 * Issue 29, item 5: an index of 1,000,000 small lines held 804 MB of heap (a 1 GiB file of
 * 1.5 M lines took the server to 1.8 GB while indexing). In a child process of its own (so
 * nothing else lives in the heap measured), a generated file of 1,000,000 lines of one session
 * is indexed and the heap kept by the index is bounded; the entries still say what each line is.
 */
import { spawn } from "node:child_process";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const LINES = 1_000_000;
/** Heap the index may keep per line (it kept ~800 bytes). */
const MAX_BYTES_PER_LINE = 250;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function generated(file: string): Promise<void> {
  const handle = await open(file, "w");
  try {
    const batch: string[] = [];
    for (let i = 0; i < LINES; i++) {
      const second = String(i % 60).padStart(2, "0");
      batch.push(`{"children_ids": [], "created_at": "2026-11-22T01:00:${second}.${String(i % 1_000_000).padStart(6, "0")}+00:00", "parent_id": null, "slices": [{"item_type": "Note", "items": [{"__type__": "Note", "n": ${i}}], "slice_type": "Note"}], "tags": {"session_id": "s-${i % 10}"}, "version": "1"}`);
      if (batch.length === 10_000) await handle.write(`${batch.splice(0).join("\n")}\n`);
    }
  } finally {
    await handle.close();
  }
}

const CHILD = `
import { scanSessionFile } from ${JSON.stringify(path.join(import.meta.dirname, "session-file.node.ts"))};
globalThis.gc();
const before = process.memoryUsage().heapUsed;
const index = await scanSessionFile(process.argv[2]);
globalThis.gc();
const kept = process.memoryUsage().heapUsed - before;
const last = index.entries[index.entries.length - 1];
console.log(JSON.stringify({ kept, lines: index.entries.length, last: { lineNumber: last.lineNumber, byteOffset: last.byteOffset, sessionId: last.sessionId, createdAt: last.createdAt, count: last.slices[0].count, tags: last.tags } }));
`;

function runChild(script: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", script, file], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited with ${code}: ${err.slice(0, 2000)}`))));
  });
}

describe("the index of a session file of 1,000,000 lines (issue 29, item 5)", () => {
  it("keeps well under 250 bytes of heap a line, and every line's own fields", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "wink-index-memory-"));
    dirs.push(dir);
    const file = path.join(dir, "million.jsonl");
    await generated(file);
    const script = path.join(dir, "child.mts");
    await writeFile(script, CHILD);
    const result = JSON.parse(await runChild(script, file)) as { kept: number; lines: number; last: Record<string, unknown> };
    expect(result.lines).toBe(LINES);
    expect(result.last).toMatchObject({ lineNumber: LINES, sessionId: "s-9", createdAt: "2026-11-22T01:00:39.999999+00:00", count: 1, tags: { session_id: "s-9" } });
    console.log(`the index kept ${(result.kept / LINES).toFixed(0)} bytes of heap a line`);
    expect(result.kept / LINES).toBeLessThan(MAX_BYTES_PER_LINE);
  }, 240_000);
});
