/**
 * Issue 29, item 5: `/api/entries` of a file of 300,000 lines built an entry object a line
 * and wrote them without letting the event loop turn: `/api/meta` of another file waited
 * 2.2 s. Over real HTTP on loopback, a client in its own process asks for the small file's
 * metadata every 20 ms while the server answers `/api/entries` of a generated file of
 * 300,000 lines to curl (indexed before, so only the answer is measured); every answer must
 * come within a second, and the entries are the ones the file holds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { serveBigBesideSmall } from "./big-file.test-support.js";
import { cleanUp, snapshotLine } from "./server.test-support.js";
import { POLL_PROBE, curlGet, startClient, type PollProbeResult } from "./loopback-client.test-support.js";

afterEach(cleanUp);

const LINES = 300_000;
/** Tags as agents write them (WINK's viewer lists them with every entry). */
const TAGS = { agent: "écrit \u{1F600}", app: "wink", model: "m-1", run: "r-42", task: "t-7", user: "u", env: "ci", shard: "3" };

const lineAt = (i: number): string => snapshotLine({ sessionId: `s-${i % 1000}`, tags: TAGS, slices: [{ type: "Note", items: [{ n: i }] }] });

describe("/api/entries of a big session file yields to other requests (issue 29, item 5)", () => {
  it("/api/meta on a small file answers within 1 s while /api/entries of 300,000 lines is written", async () => {
    const { base } = await serveBigBesideSmall(LINES, lineAt);

    const probe = startClient<PollProbeResult>(POLL_PROBE, [`${base}/api/meta?file=small.jsonl`]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Read by curl in its own process, as fast as loopback takes it (a reader in this process
    // would share the server's event loop and pace it).
    const started = performance.now();
    const timed = await curlGet(`${base}/api/entries?file=big.jsonl&line=7`);
    const answerMs = performance.now() - started;
    probe.stop();
    const { quickCount: count, quickMaxMs: maxMs } = await probe.result;
    expect(timed).toMatchObject({ status: 200, exitCode: 0 });

    const response = await fetch(`${base}/api/entries?file=big.jsonl&line=7`);
    const body = await response.text();
    expect(Buffer.byteLength(body)).toBe(timed.bytes);
    const entries = JSON.parse(body) as { session_id: string; name: string; path: string; line_number: number; created_at: string; tags: Record<string, string>; selected: boolean }[];
    expect(entries).toHaveLength(LINES);
    expect(entries[6]).toEqual({ session_id: "s-6", name: "s-6 (line 7)", path: "big.jsonl", line_number: 7, created_at: "2026-11-22T01:00:00.000000+00:00", tags: { ...TAGS, session_id: "s-6" }, selected: true });
    expect(entries.filter((entry) => entry.selected)).toHaveLength(1);
    expect(entries[LINES - 1]).toMatchObject({ session_id: "s-999", line_number: LINES, selected: false });
    // Written with the loop held, the whole answer (1.6 s here) got one answer of the probe,
    // after it; now the probe is answered all along (polling every 20 ms, a turn each 200 ms at least).
    expect(count).toBeGreaterThanOrEqual(answerMs / 200);
    expect(maxMs).toBeLessThan(1000);
    console.log(`/api/entries of ${LINES} lines in ${answerMs.toFixed(0)} ms (${(timed.bytes / 1048576).toFixed(1)} MiB); ${count} answers of /api/meta, the slowest ${maxMs.toFixed(0)} ms`);
  }, 300_000);
});
