// `/api/files` stays bounded however many lines a file has: a 257 MB file of 2,000,000 lines
// that are not snapshots answered 230 MiB listing every line error, and 2,000,000 small
// records 68 MiB of sessions. The files here are generated at two sizes (10x apart) and the
// answers compared: the same size, counts that say how many there are, later pages that list them.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WinkApp } from "../app.js";
import { cleanUp, get, snapshotLine, tempDir, testApp } from "../server.test-support.js";

afterEach(cleanUp);

/** `errorLines` lines that are JSON but not snapshots, then `sessions` one-line sessions. */
async function generated(dir: string, name: string, errorLines: number, sessions: number): Promise<void> {
  const parts: string[] = [];
  for (let i = 0; i < errorLines; i++) parts.push(`{"record":${i},"message":"not a snapshot"}\n`);
  for (let i = 0; i < sessions; i++) parts.push(`${snapshotLine({ sessionId: `s-${i}` })}\n`);
  await writeFile(path.join(dir, name), parts.join(""));
}

async function files(app: WinkApp, query: string): Promise<{ body: string; files: { error_count: number; errors_offset: number; errors: { line_number: number }[]; session_count: number; sessions: unknown[]; line_count: number }[] }> {
  const response = await get(app, `/api/files?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return { body: response.body, ...(response.json() as { files: never[] }) };
}

describe("/api/files of huge session files", () => {
  it("answers a bounded page of line errors and sessions, counts them all, and pages the rest", async () => {
    const dir = await tempDir();
    await generated(dir, "small.jsonl", 20_000, 2_000);
    await generated(dir, "big.jsonl", 200_000, 20_000);
    const app = await testApp({ path: dir });
    const small = await files(app, "file=small.jsonl");
    const big = await files(app, "file=big.jsonl");
    expect(big.files[0]).toMatchObject({ error_count: 200_000, session_count: 20_000, line_count: 220_000 });
    expect(big.files[0]?.errors).toHaveLength(100);
    expect(big.files[0]?.sessions).toHaveLength(1000);
    // The answer does not grow with the file (10x the lines; only the line numbers' digits differ).
    expect(big.body.length / small.body.length).toBeLessThan(1.02);
    expect(big.body.length).toBeLessThan(512 * 1024);

    // Past the errors an index keeps (its first 1,000): read again from the file.
    const later = await files(app, "file=big.jsonl&errors_offset=150000&errors_limit=3");
    expect(later.files[0]?.errors_offset).toBe(150_000);
    expect(later.files[0]?.errors.map((error) => error.line_number)).toEqual([150_001, 150_002, 150_003]);
    const kept = await files(app, "file=big.jsonl&errors_offset=500&errors_limit=2&sessions_offset=19999");
    expect(kept.files[0]?.errors.map((error) => error.line_number)).toEqual([501, 502]);
    expect(kept.files[0]?.sessions).toHaveLength(1);
  }, 120_000);

  it("writes /api/entries of a file of many lines as it sends it, in WINK's shape", async () => {
    const dir = await tempDir();
    await generated(dir, "small.jsonl", 0, 3);
    await generated(dir, "big.jsonl", 0, 20_000);
    const app = await testApp({ path: dir });
    const small = await get(app, "/api/entries?file=small.jsonl");
    const big = await get(app, "/api/entries?file=big.jsonl");
    expect(big.statusCode, big.body).toBe(200);
    // Built whole, the answer has a content-length; written as it is sent, it has none.
    expect(small.headers["content-length"]).toBeDefined();
    expect(big.headers["content-length"]).toBeUndefined();
    expect(big.headers["content-type"]).toMatch(/^application\/json/);
    const entries = big.json() as { path: string; line_number: number; selected: boolean }[];
    expect(entries).toHaveLength(20_000);
    expect(entries.slice(0, 3)).toEqual((small.json() as unknown[]).map((entry) => ({ ...(entry as object), path: "big.jsonl" })));
    expect(entries[19_999]).toMatchObject({ line_number: 20_000, session_id: "s-19999", name: "s-19999 (line 20000)", selected: false });
  });

  it("pages the files themselves", async () => {
    const dir = await tempDir();
    for (let i = 0; i < 3; i++) await generated(dir, `run-${i}.jsonl`, 0, 1);
    const app = await testApp({ path: dir });
    const page = (await get(app, "/api/files?wait=1&offset=1&limit=1")).json() as { total: number; offset: number; files: { path: string }[] };
    expect(page).toMatchObject({ total: 3, offset: 1, files: [{ path: "run-1.jsonl" }] });
  });
});
