// Runs (`/api/runs`, `/api/run`, `/api/run/search`) and rename detection in `/api/diff`, on a
// run written by our own writer: turns, failed calls, a renamed file, a sub-agent.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { patchCrc } from "../../shared/archive/archive.test-support.js";
import { FAILED_RUN_CHILD, FAILED_RUN_FAILURES, FAILED_RUN_RENAME, FAILED_RUN_ROOT, writeFailedRun } from "../../e2e/fixtures/runs.js";
import { cleanUp, get, tempDir, testApp } from "../server.test-support.js";

afterEach(cleanUp);

async function failedRunApp(options: { turns?: number; callsPerTurn?: number; extraFiles?: Record<string, string> } = {}) {
  const dir = await tempDir();
  const file = await writeFailedRun(dir, { turns: 6, callsPerTurn: 12, ...options });
  return { app: await testApp({ path: dir }), file };
}

describe("GET /api/run", () => {
  it("derives turns, names snapshots by turn and archive, places the sub-agent and lists the failures with path and turn", async () => {
    const { app, file } = await failedRunApp();
    const response = await get(app, "/api/run");
    expect(response.statusCode).toBe(200);
    const run = response.json();
    expect(run).toMatchObject({ source: { kind: "session_file", path: file }, title: "shop-fixer", root_session_id: FAILED_RUN_ROOT, session_count: 2, state: "ready", error: null, panels: [] });
    expect(run.stats).toMatchObject({ outcome: "failed", failed_calls: 2 });
    const [root, child] = run.sessions;
    expect(root).toMatchObject({ session_id: FAILED_RUN_ROOT, depth: 0, turn_source: "prompts", children: [FAILED_RUN_CHILD] });
    expect(root.turns.map((turn: { number: number }) => turn.number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(root.turns.every((turn: { prompt: string | null }) => turn.prompt === "shop_fixer")).toBe(true);
    // Six root lines, each named by the turn it closes and its archive.
    expect(root.snapshots.map((snapshot: { label: string }) => snapshot.label)).toEqual([1, 2, 3, 4, 5, 6].map((turn) => `turn ${turn} · turn-${turn}.fs.zip`));
    expect(root.snapshots.filter((snapshot: { latest: boolean }) => snapshot.latest)).toHaveLength(1);
    expect(child).toMatchObject({ session_id: FAILED_RUN_CHILD, depth: 1, parent_session_id: FAILED_RUN_ROOT, title: "reviewer" });
    expect(child.spawned).toMatchObject({ parent_session_id: FAILED_RUN_ROOT, turn: 4 });
    // The parent's line for the child is the first that lists it: the one closing turn 4.
    expect(child.spawned.parent_line).toBe(root.snapshots[3].line_number);
    expect(run.failures.map((failure: { title: string; argument: { value: string } | null; turn: number; message: string; call_id: string | null }) => [failure.title, failure.argument?.value, failure.turn, failure.message, failure.call_id !== null])).toEqual(
      FAILED_RUN_FAILURES.map((failure) => [failure.tool, failure.path, failure.turn, failure.message, true]),
    );
    expect(run.failures[0].line_number).toBe(root.latest_line);
  });

  it("answers a named run, 404 for an unknown file; /api/runs lists the run with its outcome", async () => {
    const { app, file } = await failedRunApp();
    expect((await get(app, `/api/run?file=${encodeURIComponent(file)}`)).json().root_session_id).toBe(FAILED_RUN_ROOT);
    expect((await get(app, "/api/run?file=nope.jsonl")).statusCode).toBe(404);
    const list = (await get(app, "/api/runs")).json();
    expect(list.runs).toHaveLength(1);
    expect(list.runs[0]).toMatchObject({ title: "shop-fixer", stats: { outcome: "failed", failed_calls: 2 }, session_count: 2 });
    expect(list.runs[0].sessions).toBeUndefined();
  });

  it("the timeline of the latest line carries the same turns", async () => {
    const { app, file } = await failedRunApp();
    const run = (await get(app, "/api/run")).json();
    const timeline = (await get(app, `/api/timeline?file=${encodeURIComponent(file)}&line=${run.sessions[0].latest_line}`)).json();
    expect(timeline.turn_source).toBe("prompts");
    expect(timeline.turns).toEqual(run.sessions[0].turns);
    const failure = run.failures[1];
    expect(timeline.events[failure.event_index]).toMatchObject({ success: false, argument: { name: "file_path", value: FAILED_RUN_FAILURES[1].path } });
  });
});

describe("GET /api/diff with rename detection", () => {
  it("reports the moved file as renamed with git's similarity, and diffs it against its old path", async () => {
    const { app, file } = await failedRunApp();
    const run = (await get(app, "/api/run")).json();
    const [, two, three] = run.sessions[0].snapshots;
    const sides = `base_file=${encodeURIComponent(file)}&base_line=${two.line_number}&target_file=${encodeURIComponent(file)}&target_line=${three.line_number}`;
    const diff = (await get(app, `/api/diff?${sides}`)).json();
    const renamed = diff.files.changes.find((change: { status: string }) => change.status === "renamed");
    expect(renamed).toMatchObject({ path: FAILED_RUN_RENAME.to, old_path: FAILED_RUN_RENAME.from });
    expect(renamed.similarity).toBeGreaterThanOrEqual(90);
    expect(renamed.similarity).toBeLessThan(100);
    // Copies only when asked for (git's -C), as `git diff` finds renames alone.
    expect(diff.files).toMatchObject({ renamed: 1, added: 0, deleted: 0, rename_detection: { renames: true, copies: false, threshold: 50, limited: false } });
    expect((await get(app, `/api/diff?${sides}&copies=1`)).json().files.rename_detection).toMatchObject({ copies: true });
    const plain = (await get(app, `/api/diff?${sides}&renames=0&copies=0`)).json();
    expect(plain.files).toMatchObject({ renamed: 0, added: 1, deleted: 1 });
    const fileDiff = (await get(app, `/api/diff/file?${sides}&path=${encodeURIComponent(FAILED_RUN_RENAME.to)}&base_path=${encodeURIComponent(FAILED_RUN_RENAME.from)}`)).json();
    expect(fileDiff).toMatchObject({ status: "renamed", old_path: FAILED_RUN_RENAME.from, path: FAILED_RUN_RENAME.to });
    expect(fileDiff.hunks.flatMap((hunk: { lines: string[] }) => hunk.lines)).toContain('+"""Pricing rules (moved to billing)."""');
    expect((await get(app, `/api/diff?${sides}&similarity=0`)).statusCode).toBe(400);
  });
});

describe("GET /api/run/search", () => {
  it("searches every snapshot of the session and its children, grouped by turn and snapshot", async () => {
    const { app } = await failedRunApp();
    const result = (await get(app, "/api/run/search?q=settings")).json();
    const labels = result.groups.map((group: { label: string; scope: string; session_id: string }) => `${group.session_id === FAILED_RUN_CHILD ? "child" : "root"} ${group.scope} ${group.label}`);
    // The failed read in turn 5, the reviewer's verdict, and .claude/settings.json in the first snapshot only (unchanged later).
    expect(labels).toContain("root events turn 5 · events");
    expect(labels).toContain("child events turn 1 · events");
    expect(labels).toContain("root files turn 1 · turn-1.fs.zip");
    expect(labels.filter((label: string) => label.includes("files"))).toHaveLength(1);
    expect(result.snapshots_searched).toBe(6);
  });

  it("skips a corrupt archive entry and lists it with the snapshot holding it, instead of failing the search (issue 14, finding 8)", async () => {
    const dir = await tempDir();
    await writeFailedRun(dir, { turns: 6, callsPerTurn: 12 });
    await patchCrc(path.join(dir, "turn-1.fs.zip"), "files/.claude/settings.json", 0xdeadbeef);
    const app = await testApp({ path: dir });
    const run = (await get(app, "/api/run")).json();
    const response = await get(app, "/api/run/search?q=permissions");
    expect(response.statusCode).toBe(200);
    const result = response.json();
    expect(result.skipped_files).toEqual([
      { path: ".claude/settings.json", detail: expect.stringMatching(/CRC-32 mismatch.*files\/\.claude\/settings\.json/), session_id: FAILED_RUN_ROOT, line_number: run.sessions[0].snapshots[0].line_number },
    ]);
    // The other snapshots' files were searched; only the unreadable one is missing.
    expect(result.snapshots_searched).toBe(6);
    expect(result.scanned_files).toBeGreaterThan(0);
  });

  it("takes linear-time regular expressions, and refuses the others with a clear message", async () => {
    const { app } = await failedRunApp();
    const result = (await get(app, `/api/run/search?regex=1&q=${encodeURIComponent("File not found: [a-z]+/settings")}`)).json();
    expect(result.regex).toBe(true);
    expect(result.hit_count).toBeGreaterThan(0);
    const refused = await get(app, `/api/run/search?regex=1&q=${encodeURIComponent("(a)\\1")}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/Invalid regex.*linear time/);
    expect((await get(app, `/api/run/search?regex=1&q=${encodeURIComponent("(unclosed")}`)).statusCode).toBe(400);
  });
});

describe("a run's duration", () => {
  it("comes from the run's own events when a snapshot line was stamped by another clock", async () => {
    // WINK's small session file (its events span 3 ms), its line re-stamped 344 days later, as
    // a writer's wall clock does against a replayed event clock: the run lasted 8,259 hours.
    const { readFile, writeFile } = await import("node:fs/promises");
    const { winkFixture } = await import("../../fixtures/paths.js");
    const dir = await tempDir();
    const name = "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl";
    const text = await readFile(winkFixture(name), "utf8");
    const stamped = text.replace(/"created_at": "2026-11-22T01:32:19\.511300\+00:00", "parent_id"/, '"created_at": "2027-11-01T10:00:00.000000+00:00", "parent_id"');
    expect(stamped).not.toBe(text);
    await writeFile(path.join(dir, name), stamped);
    const app = await testApp({ path: dir });
    const run = (await get(app, "/api/run")).json();
    expect(run.stats.started_at).toBe("2026-11-22T01:32:19.508123+00:00");
    expect(run.stats.duration_ms).toBeLessThan(60_000);
    expect(run.sessions[0].stats.duration_ms).toBeLessThan(60_000);
    // A line stamped near the events still ends the run (the snapshot taken after the last call).
    const near = text.replace(/"created_at": "2026-11-22T01:32:19\.511300\+00:00", "parent_id"/, '"created_at": "2026-11-22T01:32:29.508123+00:00", "parent_id"');
    await writeFile(path.join(dir, name), near);
    const again = await testApp({ path: dir });
    expect((await get(again, "/api/run")).json().stats.duration_ms).toBe(10_000);
  });

  it("a hostile regular expression over long lines of spaces answers partial in bounded time, and /api/meta answers meanwhile (issue 29, item 6)", async () => {
    // Two workspace files, each one line of 3.5 million spaces and tabs (under the 4 MiB a file may have):
    // `\s*#?\s*$` took over 10 s a line in V8's linear engine, all of it on the event loop.
    // Spaces and tabs in a pseudo-random order, so the archive's zip-bomb guard lets them in.
    let seed = 29;
    const spaces = `${Array.from({ length: 3_500_000 }, () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) & 1024 ? " " : "\t")).join("")}x`;
    const extraFiles = { "blank_1.txt": spaces, "blank_2.txt": `${spaces}y` };
    const { app } = await failedRunApp({ extraFiles });
    await app.app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.app.server.address();
    if (address === null || typeof address === "string") throw new Error("not listening");
    const base = `http://127.0.0.1:${address.port}`;
    const started = Date.now();
    let done = false;
    const search = fetch(`${base}/api/run/search?regex=1&q=${encodeURIComponent("\\s*#?\\s*$")}`).then(async (response) => {
      done = true;
      return { status: response.status, body: (await response.json()) as { truncated: boolean }, ms: Date.now() - started };
    });
    // /api/meta, over and over while the search runs: the slowest answer is the longest stall.
    let slowestMeta = 0;
    let metas = 0;
    while (!done) {
      const metaStarted = Date.now();
      const meta = await fetch(`${base}/api/meta`);
      expect(meta.status).toBe(200);
      await meta.arrayBuffer();
      slowestMeta = Math.max(slowestMeta, Date.now() - metaStarted);
      metas += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(metas).toBeGreaterThan(0);
    expect(slowestMeta).toBeLessThan(1000);
    const result = await search;
    expect(result.status).toBe(200);
    // Partial: each long line was matched in its first 64 KiB only, and the answer says so.
    expect(result.body.truncated).toBe(true);
    expect(result.ms).toBeLessThan(6000);
  }, 60_000);
});
