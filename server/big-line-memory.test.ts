/**
 * Issue 33: `/api/raw` of one big line (here ~100 MiB, bare `NaN` and integers beyond 2^53 in
 * every item, so the strict JSON is not the native serialiser's) cost 8× the line in peak
 * RSS: the worker built the strict JSON as millions of small strings, then their joined text,
 * then its bytes. The CLI runs in a child process; its peak (VmHWM) is read from /proc.
 */
import { createWriteStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { cleanUp, tempDir } from "./server.test-support.js";

afterEach(async () => {
  stopClis();
  await cleanUp();
});

const ITEMS = 200_000;

/** One snapshot line of ITEMS items of ~520 bytes (~100 MiB), written as WINK writes them. */
async function writeBigLine(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write('{"children_ids": [], "created_at": "2026-11-22T01:00:00.000000+00:00", "parent_id": null, "slices": [{"item_type": "app:Note", "items": [');
  for (let i = 0; i < ITEMS; i++) await write(`${i > 0 ? ", " : ""}{"__type__": "app:Note", "n": ${i}, "big": 123456789012345678901234567890, "f": NaN, "text": "${"x".repeat(430)}"}`);
  await write('], "slice_type": "app:Note"}], "tags": {"session_id": "big-run"}, "version": "1"}\n');
  out.end();
  await once(out, "finish");
}

async function peakRss(pid: number): Promise<number> {
  const match = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

describe("one big line's /api/raw (issue 33)", () => {
  it("peaks below 6.6× the line (7.9× before), three requests at once sharing one parse", async () => {
    const file = path.join(await tempDir("wink-big-line-"), "run.jsonl");
    await writeBigLine(file);
    const lineBytes = (await stat(file)).size;
    const cli = startCli([file, "--port", "0", "--no-open"]);
    const url = await waitForUrl(cli.output, 60_000);
    const pid = cli.child.pid as number;
    expect((await fetch(`${url}api/meta`)).status).toBe(200);
    const before = await peakRss(pid);
    const answers = await Promise.all(
      [1, 2, 3].map(async () => {
        const response = await fetch(`${url}api/raw`);
        expect(response.status).toBe(200);
        let bytes = 0;
        let tail = "";
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
          bytes += chunk.byteLength;
          tail = (tail + Buffer.from(chunk).toString("latin1")).slice(-200);
        }
        return { bytes, tail };
      }),
    );
    const growth = (await peakRss(pid)) - before;
    for (const { bytes, tail } of answers) {
      expect(bytes).toBeGreaterThan(lineBytes);
      expect(tail).toContain('"session_id":"big-run"');
    }
    // Before: 7.9× (857 MiB peak for a 101 MiB line from 61 MiB). Now the line's bytes, its
    // text and parsed tree on the worker, the answer's bytes twice while joined, the answer
    // on the main thread: ~5.8×.
    expect(growth / lineBytes, `peak grew ${(growth / 2 ** 20).toFixed(0)} MiB for a ${(lineBytes / 2 ** 20).toFixed(0)} MiB line`).toBeLessThan(6.6);
  }, 180_000);
});
