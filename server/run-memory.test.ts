/**
 * Issue 29, item 5: `/api/run` of a session file of 1.5 M lines took the server to ~1.9 GB
 * of RSS, and the run it cached kept a turn and a snapshot view of every line (~280 bytes a
 * line) though `/api/run` answers a few of each (run-bounds.ts). Over real HTTP on loopback,
 * a file of 200,000 lines in 200 sessions (1,000 lines each, more than a session may list):
 * the answer says what it left out, `/api/run/session` pages through the whole lists, and
 * the heap the run keeps is what it lists, not a turn and a snapshot of every line.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunSessionPageView, RunView } from "../shared/viewer/index.js";
import { serveBigBesideSmall } from "./big-file.test-support.js";
import { collectGarbage, heapAndBuffers } from "./heap.test-support.js";
import { cleanUp, snapshotLine } from "./server.test-support.js";

afterEach(cleanUp);

const LINES = 200_000;
const SESSIONS = 200;
const START_MS = Date.parse("2026-11-22T01:00:00.000Z");
/**
 * What the run may keep a line, heap and buffers. The whole lists kept 316 bytes a line here
 * (63 MB); what `/api/run` lists of them, ~10,000 turns and snapshots whatever the file's
 * size, 41 (8 MB). The bound sits between with room both ways (a loaded machine's GC).
 */
const MAX_KEPT_BYTES_PER_LINE = 120;

const lineAt = (i: number): string => {
  const createdAt = `${new Date(START_MS + i * 1000).toISOString().slice(0, 23)}000+00:00`;
  return snapshotLine({ sessionId: `s-${i % SESSIONS}`, createdAt, slices: [{ type: "Note", items: [{ n: i }] }] });
};

describe("/api/run of a big session file keeps what it answers (issue 29, item 5)", () => {
  it("says what it left out, pages the rest, and keeps what it lists, not every line's turn and snapshot", async () => {
    const { base } = await serveBigBesideSmall(LINES, lineAt);
    const gc = collectGarbage();
    // The run's code loaded and its caches warm: only the big run is counted.
    expect((await fetch(`${base}/api/run?file=small.jsonl`)).status).toBe(200);
    await gc();
    const before = heapAndBuffers();

    const run = (await (await fetch(`${base}/api/run?file=big.jsonl`)).json()) as RunView;
    await gc();
    const kept = heapAndBuffers() - before;
    console.log(`/api/run of ${LINES} lines: the run keeps ${(kept / LINES).toFixed(1)} bytes a line`);

    expect(run).toMatchObject({ session_count: SESSIONS, snapshot_count: LINES });
    // The second session lists its share of the budget, and says how many there are.
    const second = run.sessions[1];
    expect(second?.session_id).toBe("s-1");
    const cut = second?.truncated?.snapshots;
    expect(cut).toMatchObject({ total: LINES / SESSIONS, omitted: LINES / SESSIONS - (second?.snapshots.length ?? 0) });
    expect(cut?.omitted).toBeGreaterThan(0);
    expect(second?.truncated?.turns).toEqual(cut);

    // The stretch it left out, read from its whole lists (line i + 1 is s-(i mod 200)'s, in time order).
    const from = cut?.from ?? 0;
    const page = (await (await fetch(`${base}/api/run/session?file=big.jsonl&session=s-1&offset=${from}&limit=3`)).json()) as RunSessionPageView;
    expect(page).toMatchObject({ session_id: "s-1", offset: from, snapshot_count: LINES / SESSIONS, turn_count: LINES / SESSIONS });
    expect(page.snapshots.map((snapshot) => snapshot.line_number)).toEqual([0, 1, 2].map((k) => (from + k) * SESSIONS + 2));
    expect(page.turns.map((turn) => turn.number)).toEqual([from + 1, from + 2, from + 3]);
    const last = (await (await fetch(`${base}/api/run/session?file=big.jsonl&session=s-1&offset=${LINES / SESSIONS - 1}`)).json()) as RunSessionPageView;
    expect(last.snapshots).toEqual([second?.snapshots.at(-1)]);

    expect(kept / LINES).toBeLessThan(MAX_KEPT_BYTES_PER_LINE);
  }, 300_000);
});
