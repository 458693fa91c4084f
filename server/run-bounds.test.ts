/**
 * Issue 29, item 5: `/api/run` of a file of 1,000 sessions of 1,500 snapshot lines answered a
 * 500 after ~55 s, its answer past V8's longest string. Over real HTTP, a generated file of
 * 200 sessions of 1,000 lines (200,000 lines; unbounded, its answer is ~80 MB): the answer
 * stays within a few MB, says for each session how many turns and snapshots it leaves out and
 * where, and `/api/run/session` answers the stretch it left out.
 */
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_FAILURE_LIMIT, RUN_FAILURE_PAGE_LIMIT, RUN_LIST_BUDGET, RUN_LIST_LIMIT } from "../shared/viewer/index.js";
import type { RunFailurePageView, RunSessionPageView, RunView } from "../shared/viewer/index.js";
import { writeSessionRun } from "./failures.test-support.js";
import type { GeneratedCall } from "./failures.test-support.js";
import { cleanUp, snapshotLine, tempDir, testApp } from "./server.test-support.js";

afterEach(cleanUp);

const SESSIONS = 200;
const LINES_EACH = 1_000;
const START_MS = Date.parse("2026-11-22T01:00:00.000Z");

/** Line `i` (0-based) of the file: session `s-(i % SESSIONS)`, one second after the line before. */
function lineTime(i: number): string {
  return `${new Date(START_MS + i * 1000).toISOString().slice(0, 23)}000+00:00`;
}

async function manySessions(file: string): Promise<void> {
  const handle = await open(file, "w");
  try {
    const batch: string[] = [];
    const lines = SESSIONS * LINES_EACH;
    for (let i = 0; i < lines; i++) {
      batch.push(snapshotLine({ sessionId: `s-${i % SESSIONS}`, createdAt: lineTime(i), slices: [{ type: "Note", items: [{ n: i }] }] }));
      if (batch.length === 5000 || i === lines - 1) await handle.write(`${batch.splice(0).join("\n")}\n`);
    }
  } finally {
    await handle.close();
  }
}

/** The file's line number of session `s-k`'s `n`th line (0-based). */
const lineOf = (session: number, n: number) => 1 + n * SESSIONS + session;

describe("/api/run of a file of many long sessions (issue 29, item 5)", () => {
  it("answers a bounded run that says what it leaves out, and pages the rest", async () => {
    const dir = await tempDir();
    await manySessions(path.join(dir, "big.jsonl"));
    // Opened at start: the newest file, the small one (a coarse kernel clock could give both one time, the tie going to big.jsonl).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(path.join(dir, "small.jsonl"), `${snapshotLine({ sessionId: "small" })}\n`);
    const app = await testApp({ path: dir });
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const base = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;

    const small = await fetch(`${base}/api/run?file=small.jsonl`);
    expect(small.status).toBe(200);
    expect(await small.text()).not.toContain("truncated");

    const response = await fetch(`${base}/api/run?file=big.jsonl`);
    const body = await response.text();
    expect(response.status, body.slice(0, 500)).toBe(200);
    // Unbounded, this answer was ~80 MB (the file's 200,000 snapshots and as many turns).
    expect(body.length).toBeLessThan(8 * 1024 * 1024);
    const run = JSON.parse(body) as RunView;
    expect(run).toMatchObject({ session_count: SESSIONS, snapshot_count: SESSIONS * LINES_EACH });
    expect(run.sessions).toHaveLength(SESSIONS);

    // The first session (the overview's) lists RUN_LIST_LIMIT of each: its first and its last half.
    const root = run.sessions[0];
    if (root === undefined) throw new Error("no session");
    expect(root.session_id).toBe("s-0");
    const half = RUN_LIST_LIMIT / 2;
    const rootCut = { total: LINES_EACH, listed: RUN_LIST_LIMIT, omitted: LINES_EACH - RUN_LIST_LIMIT, from: half };
    expect(root.truncated).toEqual({ turns: rootCut, snapshots: rootCut });
    expect(root.turns).toHaveLength(RUN_LIST_LIMIT);
    expect(root.snapshots.map((snapshot) => snapshot.line_number).slice(half - 1, half + 1)).toEqual([lineOf(0, half - 1), lineOf(0, LINES_EACH - half)]);
    expect(root.turns.map((turn) => turn.number).slice(half - 1, half + 1)).toEqual([half, LINES_EACH - half + 1]);
    expect(root.snapshots[root.snapshots.length - 1]).toMatchObject({ line_number: lineOf(0, LINES_EACH - 1), latest: true });

    // The others share RUN_LIST_BUDGET.
    const share = Math.floor(RUN_LIST_BUDGET / (SESSIONS - 1));
    for (const session of run.sessions.slice(1)) {
      const cut = { total: LINES_EACH, listed: share, omitted: LINES_EACH - share, from: Math.ceil(share / 2) };
      expect(session.truncated).toEqual({ turns: cut, snapshots: cut });
      expect(session.snapshots).toHaveLength(share);
      expect(session.snapshots[session.snapshots.length - 1]?.latest).toBe(true);
    }
    expect(run.sessions.reduce((sum, session) => sum + (session.truncated?.snapshots.total ?? session.snapshots.length), 0)).toBe(SESSIONS * LINES_EACH);

    // What the answer left out, from where it says.
    const pageResponse = await fetch(`${base}/api/run/session?file=big.jsonl&session=s-0&offset=${half}&limit=${LINES_EACH - RUN_LIST_LIMIT}`);
    expect(pageResponse.status).toBe(200);
    const page = (await pageResponse.json()) as RunSessionPageView;
    expect(page).toMatchObject({ session_id: "s-0", offset: half, turn_count: LINES_EACH, snapshot_count: LINES_EACH });
    expect(page.turns.map((turn) => turn.number)).toEqual(Array.from({ length: LINES_EACH - RUN_LIST_LIMIT }, (_, n) => half + n + 1));
    expect(page.snapshots.map((snapshot) => snapshot.line_number)).toEqual(Array.from({ length: LINES_EACH - RUN_LIST_LIMIT }, (_, n) => lineOf(0, half + n)));
    expect((await fetch(`${base}/api/run/session?file=big.jsonl&session=nobody`)).status).toBe(404);
  }, 300_000);
});

const FAILED_CALLS = 20_000;
const failedCall = (n: number): GeneratedCall => ({ tool: "read_file", params: { path: `f-${n}.py` }, message: `No such file or directory: f-${n}.py`, success: false, callId: `call_${n}` });

describe("/api/run of a run of many failed calls", () => {
  it("lists the first and last of its failures, says how many there are and how many it leaves out", async () => {
    const dir = await tempDir();
    await writeSessionRun(path.join(dir, "failing.jsonl"), "a0000000-0000-4000-8000-00000000f001", new Date("2026-11-26T10:00:00Z"), Array.from({ length: FAILED_CALLS }, (_, n) => failedCall(n)));
    const few = Array.from({ length: 3 }, (_, n) => failedCall(n));
    await writeSessionRun(path.join(dir, "few.jsonl"), "a0000000-0000-4000-8000-00000000f002", new Date("2026-11-26T10:00:00Z"), few);
    const app = await testApp({ path: dir });
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const base = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;

    // Within the bound: every failure, and no truncated field anywhere.
    const small = await fetch(`${base}/api/run?file=few.jsonl`);
    expect(small.status).toBe(200);
    const smallBody = await small.text();
    expect(smallBody).not.toContain("truncated");
    expect((JSON.parse(smallBody) as RunView).failures.map((failure) => failure.call_id)).toEqual(["call_0", "call_1", "call_2"]);

    const response = await fetch(`${base}/api/run?file=failing.jsonl`);
    const body = await response.text();
    expect(response.status, body.slice(0, 500)).toBe(200);
    const run = JSON.parse(body) as RunView;
    const half = RUN_FAILURE_LIMIT / 2;
    expect(run.truncated).toEqual({ failures: { total: FAILED_CALLS, listed: RUN_FAILURE_LIMIT, omitted: FAILED_CALLS - RUN_FAILURE_LIMIT, from: half } });
    expect(run.failures).toHaveLength(RUN_FAILURE_LIMIT);
    // The first failure first, then the run's last ones.
    expect(run.failures[0]?.call_id).toBe("call_0");
    expect(run.failures.map((failure) => failure.call_id).slice(half - 1, half + 1)).toEqual([`call_${half - 1}`, `call_${FAILED_CALLS - half}`]);
    expect(run.failures[run.failures.length - 1]?.call_id).toBe(`call_${FAILED_CALLS - 1}`);
    // The counts are the whole run's.
    expect(run.stats).toMatchObject({ outcome: "failed", failed_calls: FAILED_CALLS, errors: FAILED_CALLS, tool_calls: FAILED_CALLS });
    expect(run.sessions[0]?.stats.failed_calls).toBe(FAILED_CALLS);
  }, 300_000);
});

describe("/api/run/failures", () => {
  it("pages through every failure of the run, the ones /api/run leaves out included, and refuses offsets past the end", async () => {
    const calls = RUN_FAILURE_LIMIT + 1_234;
    const dir = await tempDir();
    await writeSessionRun(path.join(dir, "failing.jsonl"), "a0000000-0000-4000-8000-00000000f003", new Date("2026-11-26T10:00:00Z"), Array.from({ length: calls }, (_, n) => failedCall(n)));
    await writeSessionRun(path.join(dir, "few.jsonl"), "a0000000-0000-4000-8000-00000000f004", new Date("2026-11-26T10:00:00Z"), Array.from({ length: 3 }, (_, n) => failedCall(n)));
    const app = await testApp({ path: dir });
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const base = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
    const page = async (query: string): Promise<RunFailurePageView> => {
      const response = await fetch(`${base}/api/run/failures?${query}`);
      const body = await response.text();
      expect(response.status, body.slice(0, 300)).toBe(200);
      return JSON.parse(body) as RunFailurePageView;
    };

    // From where /api/run's gap starts, a page at a time, to its end: every failure once, in order.
    const run = (await (await fetch(`${base}/api/run?file=failing.jsonl`)).json()) as RunView;
    const cut = run.truncated?.failures;
    if (cut === undefined) throw new Error("the run lists every failure");
    const gap: string[] = [];
    for (let offset = cut.from; offset < cut.from + cut.omitted; ) {
      const limit = Math.min(RUN_FAILURE_PAGE_LIMIT, cut.from + cut.omitted - offset);
      const answer = await page(`file=failing.jsonl&offset=${offset}&limit=${limit}`);
      expect(answer).toMatchObject({ offset, total: calls });
      expect(answer.failures).toHaveLength(limit);
      gap.push(...answer.failures.map((failure) => failure.call_id ?? ""));
      offset += limit;
    }
    expect(gap).toEqual(Array.from({ length: cut.omitted }, (_, n) => `call_${cut.from + n}`));
    expect(gap.length + run.failures.length).toBe(calls);
    // The rows are the ones /api/run lists, field for field.
    expect((await page("file=failing.jsonl&offset=0&limit=3")).failures).toEqual(run.failures.slice(0, 3));

    // Bounds: the default page is RUN_FAILURE_PAGE_LIMIT from 0; the end answers what is left, then nothing.
    const first = await page("file=failing.jsonl");
    expect(first).toMatchObject({ offset: 0, total: calls });
    expect(first.failures).toHaveLength(RUN_FAILURE_PAGE_LIMIT);
    expect((await page(`file=failing.jsonl&offset=${calls - 2}`)).failures.map((failure) => failure.call_id)).toEqual([`call_${calls - 2}`, `call_${calls - 1}`]);
    expect(await page(`file=failing.jsonl&offset=${calls}`)).toEqual({ offset: calls, total: calls, failures: [] });
    expect((await page("file=few.jsonl")).failures.map((failure) => failure.call_id)).toEqual(["call_0", "call_1", "call_2"]);

    // Bad offsets and limits: a 400 that says what is wrong.
    const refused = async (query: string): Promise<string> => {
      const response = await fetch(`${base}/api/run/failures?${query}`);
      expect(response.status, query).toBe(400);
      return ((await response.json()) as { detail: string }).detail;
    };
    expect(await refused(`file=failing.jsonl&offset=${calls + 1}`)).toBe(`offset ${calls + 1} is past the run's last failure: it has ${calls} failures (offsets 0–${calls})`);
    expect(await refused("file=few.jsonl&offset=4")).toBe("offset 4 is past the run's last failure: it has 3 failures (offsets 0–3)");
    expect(await refused("file=failing.jsonl&offset=-1")).toBe("querystring/offset must be >= 0");
    expect(await refused("file=failing.jsonl&offset=abc")).toBe("querystring/offset must be integer");
    expect(await refused("file=failing.jsonl&offset=1.5")).toBe("querystring/offset must be integer");
    expect(await refused(`file=failing.jsonl&limit=${RUN_FAILURE_PAGE_LIMIT + 1}`)).toBe(`querystring/limit must be <= ${RUN_FAILURE_PAGE_LIMIT}`);
    expect(await refused("file=failing.jsonl&limit=0")).toBe("querystring/limit must be >= 1");
    expect((await fetch(`${base}/api/run/failures?file=nothing.jsonl`)).status).toBe(404);
  }, 300_000);
});
