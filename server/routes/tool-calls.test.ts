// What the timeline shows of per-tool-call undo stores: `changes` on /api/timeline and
// /api/timeline/tool-call-diff, over the bundled example, over generated runs (one with an
// undone call, one without recorded post-images), and with symlinks where the store should be.
import { cp, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UNDO_RUN_SESSION, UNDO_RUN_UNDONE_CALL, writeUndoRun } from "../../e2e/fixtures/runs.js";
import { ROOT_SESSION_ID, runAgentExample } from "../../examples/agent-run.js";
import type { AgentRunResult } from "../../examples/agent-run.js";
import { winkFixture } from "../../fixtures/paths.js";
import type { WinkApp } from "../app.js";
import { cleanUp, copyFixture, get, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/snapshots", import.meta.url));
const EXAMPLE_FILE = `${ROOT_SESSION_ID}.jsonl`;
const TOOL_INVOKED = "weakincentives.runtime.events._types:ToolInvoked";

interface ChangesJson {
  tool_calls: { call_id: string; event_index: number; undone: boolean; restored_at: string | null; files: { path: string; change: string; before: string; after: string | null }[] }[];
  other_calls: number;
  problems: string[];
}

async function json(app: WinkApp, url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await get(app, url);
  return { status: response.statusCode, body: response.json() };
}

async function timeline(app: WinkApp, file: string, line: number) {
  const { status, body } = await json(app, `/api/timeline?file=${encodeURIComponent(file)}&line=${line}`);
  expect(status).toBe(200);
  return body as { session_id: string; events: { index: number; call_id: string | null; title: string; item_index: number; slice_type: string }[]; snapshots: { line_number: number }[]; changes?: ChangesJson };
}

const diffUrl = (file: string, line: number, callId: string, filePath: string) =>
  `/api/timeline/tool-call-diff?file=${encodeURIComponent(file)}&line=${line}&call_id=${encodeURIComponent(callId)}&path=${encodeURIComponent(filePath)}`;

async function fileText(app: WinkApp, file: string, line: number, filePath: string): Promise<string> {
  const { status, body } = await json(app, `/api/filesystem/file?file=${encodeURIComponent(file)}&line=${line}&path=${encodeURIComponent(filePath)}`);
  expect(status).toBe(200);
  return body.content as string;
}

afterEach(cleanUp);

describe("the bundled example (examples/snapshots)", () => {
  it("gives each line's tool calls their changed files, joined to their events by call id", async () => {
    const app = await testApp({ path: EXAMPLE });
    const entries = (await json(app, `/api/entries?file=${EXAMPLE_FILE}`)).body as unknown as { line_number: number; session_id: string }[];
    let seenUndone = false;
    for (const entry of entries) {
      const view = await timeline(app, EXAMPLE_FILE, entry.line_number);
      expect(view.changes, `line ${entry.line_number}`).toBeDefined();
      const changes = view.changes as ChangesJson;
      expect(changes.problems).toEqual([]);
      for (const call of changes.tool_calls) {
        const event = view.events[call.event_index];
        expect(event?.call_id).toBe(call.call_id);
        if (call.undone) {
          seenUndone = true;
          expect(event?.title).toBe("write_file");
          expect(call.files).toEqual([expect.objectContaining({ path: "README.md", change: "modified", before: "file", after: "file" })]);
        }
      }
      // Every tool call the line records is either joined or counted as another line's.
      const recorded = view.events.filter((event) => event.call_id !== null).length;
      expect(changes.tool_calls.length).toBeLessThanOrEqual(recorded);
    }
    expect(seenUndone).toBe(true);
  });

  it("diffs the undone call's README.md: the pre-image is the turn-1 file, the post-state what the call wrote", async () => {
    const app = await testApp({ path: EXAMPLE });
    const view = await timeline(app, EXAMPLE_FILE, 2);
    const undone = view.changes?.tool_calls.find((call) => call.undone);
    expect(undone).toBeDefined();
    const callId = undone?.call_id ?? "";
    const { status, body } = await json(app, diffUrl(EXAMPLE_FILE, 2, callId, "README.md"));
    expect(status).toBe(200);
    expect(body).toMatchObject({ call_id: callId, path: "README.md", change: "modified", undone: true, restored_at: undone?.restored_at, after_source: "recorded", engine: "jsdiff" });
    const before = body.before as { text: string };
    const after = body.after as { text: string };
    // The pre-image is README.md as turn 1 left it, and as the undo put it back at turn 2.
    expect(before.text).toBe(await fileText(app, EXAMPLE_FILE, 1, "README.md"));
    expect(before.text).toBe(await fileText(app, EXAMPLE_FILE, 2, "README.md"));
    // The post-state is what the write_file call wrote (its params in the ToolInvoked item).
    const event = view.events[undone?.event_index ?? -1];
    const item = (await json(app, `/api/slices/${encodeURIComponent(event?.slice_type ?? "")}?file=${EXAMPLE_FILE}&line=2&offset=${event?.item_index}&limit=1&markdown=0`)).body as { items: { params: { content: string } }[] };
    expect(after.text).toBe(item.items[0]?.params.content);
    const lines = (body.hunks as { lines: string[] }[]).flatMap((hunk) => hunk.lines);
    expect(lines.filter((line) => line.startsWith("-")).length).toBeGreaterThan(1);
  });

  it("refuses unknown calls, paths the call did not change, unsafe paths and missing parameters", async () => {
    const app = await testApp({ path: EXAMPLE });
    expect(await json(app, diffUrl(EXAMPLE_FILE, 2, "call_999", "README.md"))).toEqual({ status: 404, body: { detail: "The undo store has no tool call call_999", code: "ENOENT" } });
    expect((await json(app, diffUrl(EXAMPLE_FILE, 2, "call_012", "src/cart.ts"))).status).toBe(404);
    expect((await json(app, diffUrl(EXAMPLE_FILE, 2, "call_012", "../README.md"))).status).toBe(400);
    expect((await json(app, diffUrl(EXAMPLE_FILE, 2, "call_012", "/etc/passwd"))).status).toBe(404);
    expect((await json(app, `/api/timeline/tool-call-diff?file=${EXAMPLE_FILE}&line=2&path=README.md`)).status).toBe(400);
    expect((await json(app, `/api/timeline/tool-call-diff?file=${EXAMPLE_FILE}&line=99&call_id=call_012&path=README.md`)).status).toBe(404);
  });
});

describe("a generated agent run (examples/agent-run.ts)", () => {
  let dir: string;
  let result: AgentRunResult;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "wink-tool-calls-run-"));
    result = await runAgentExample(dir);
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("marks exactly the undone call as undone, and joins every call the store recorded", async () => {
    const app = await testApp({ path: dir });
    const file = path.basename(result.jsonlPath);
    const entries = (await json(app, `/api/entries?file=${encodeURIComponent(file)}`)).body as unknown as { line_number: number }[];
    const joined = new Map<string, boolean>();
    for (const entry of entries) {
      for (const call of (await timeline(app, file, entry.line_number)).changes?.tool_calls ?? []) joined.set(call.call_id, call.undone);
    }
    expect([...joined].filter(([, undone]) => undone).map(([callId]) => callId)).toEqual([result.undoneCallId]);
    // Every mutating call of the run appears (reads register nothing), each session in its own store.
    const stores = await readdir(path.join(result.undoStateDir, "snapshots"));
    expect(stores.sort()).toEqual([...new Set(result.toolCalls.map((call) => call.session))].sort());
    const mutating = result.toolCalls.filter((call) => ["write_file", "edit_file", "rm", "shell"].includes(call.name));
    expect(mutating.length).toBeGreaterThan(5);
    for (const call of mutating) expect(joined.has(call.callId), call.callId).toBe(true);
  });
});

describe("a run without recorded post-images", () => {
  it("takes the post-state from the next line's workspace, and not for a call undone before it", async () => {
    const dir = await tempDir("wink-tool-calls-nopost-");
    const file = await writeUndoRun(dir, { recordPostImages: false });
    const app = await testApp({ path: dir });
    const view = await timeline(app, file, 2);
    const calls = new Map((view.changes?.tool_calls ?? []).map((call) => [call.call_id, call]));
    // call_004 is the last call to touch src/app.py: nothing after it recorded the file.
    expect(calls.get("call_004")?.files).toEqual([expect.objectContaining({ path: "src/app.py", change: "unknown", after: null })]);
    const { body } = await json(app, diffUrl(file, 2, "call_004", "src/app.py"));
    expect(body).toMatchObject({ change: "modified", after_source: "workspace", after_snapshot: { file, line_number: 2, session_id: UNDO_RUN_SESSION } });
    expect((body.after as { text: string }).text).toBe(await fileText(app, file, 2, "src/app.py"));
    // call_001's post-state is the pre-image call_004 captured.
    expect((await json(app, diffUrl(file, 2, "call_001", "src/app.py"))).body).toMatchObject({ change: "modified", after_source: "next_call" });
    // The undone call: line 1 shows the restored README, so it cannot tell what the call wrote.
    const undone = (await json(app, diffUrl(file, 1, UNDO_RUN_UNDONE_CALL, "README.md"))).body;
    expect(undone).toMatchObject({ change: "unknown", after: null, undone: true, after_snapshot: { line_number: 1 }, note: expect.stringMatching(/undone before line 1/) });
  });

  it("with post-images, the same run shows what the undone call wrote", async () => {
    const dir = await tempDir("wink-tool-calls-post-");
    const file = await writeUndoRun(dir);
    const app = await testApp({ path: dir });
    const { body } = await json(app, diffUrl(file, 1, UNDO_RUN_UNDONE_CALL, "README.md"));
    expect(body).toMatchObject({ change: "modified", after_source: "recorded", undone: true, after: { text: "oops\n" } });
    expect((body.before as { text: string }).text).toBe(await fileText(app, file, 1, "README.md"));
  });
});

describe("a store that changes while served", () => {
  it("shows a call undone after the first read (manifests are replaced by rename, as the store writes them)", async () => {
    const dir = await tempDir("wink-tool-calls-live-");
    const file = await writeUndoRun(dir);
    const app = await testApp({ path: dir });
    const undoneOf = async () => new Map((await timeline(app, file, 2)).changes?.tool_calls.map((call) => [call.call_id, call.undone]));
    expect((await undoneOf()).get("call_004")).toBe(false);
    const sessionDir = path.join(dir, "undo", "snapshots", UNDO_RUN_SESSION);
    for (const name of await readdir(sessionDir)) {
      if (name === "bodies") continue;
      const manifest = path.join(sessionDir, name, "manifest.json");
      const json = JSON.parse(await readFile(manifest, "utf8")) as { scope_id: string; restored_at: string | null };
      if (json.scope_id !== "call_004") continue;
      await writeFile(`${manifest}.tmp`, JSON.stringify({ ...json, restored_at: "2026-01-15T10:00:00.000Z" }));
      await rename(`${manifest}.tmp`, manifest);
    }
    // Within a second the store's last read is reused; after that it is checked again.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await undoneOf();
    expect(after.get("call_004")).toBe(true);
    expect(after.get(UNDO_RUN_UNDONE_CALL)).toBe(true);
    expect(after.get("call_001")).toBe(false);
  });
});

describe("confinement", () => {
  it("a session without a store keeps the timeline's former shape, and its diffs are 404", async () => {
    const fixture = "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl";
    const app = await testApp({ path: await copyFixture(winkFixture(fixture)) });
    const view = await timeline(app, fixture, 1);
    expect(Object.keys(view).sort()).toEqual(["ended_at", "errors", "events", "file", "line_number", "session_id", "snapshots", "started_at", "tool_calls", "turn_source", "turns"]);
    const { status, body } = await json(app, diffUrl(fixture, 1, "call_1", "a.txt"));
    expect(status).toBe(404);
    expect(body.detail).toMatch(/^No undo store for session /);
  });

  it("never reads a store, manifest or body through a symlink", async () => {
    const outside = await tempDir("wink-tool-calls-outside-");
    const dir = await tempDir("wink-tool-calls-links-");
    const file = await writeUndoRun(dir);
    const sessionDir = path.join(dir, "undo", "snapshots", UNDO_RUN_SESSION);
    const app = await testApp({ path: dir });
    expect((await timeline(app, file, 2)).changes?.tool_calls.map((call) => call.call_id)).toEqual(["call_001", "call_002", "call_003", "call_004", "call_005"]);
    const undone = (await json(app, diffUrl(file, 1, UNDO_RUN_UNDONE_CALL, "README.md"))).body as { before: { text: string } };
    expect(undone.before.text).toContain("README an agent overwrites");

    // A manifest that is a symlink (to a real manifest elsewhere): that call disappears.
    let manifest = "";
    for (const name of await readdir(sessionDir)) {
      const candidate = path.join(sessionDir, name, "manifest.json");
      if (name !== "bodies" && (await readFile(candidate, "utf8")).includes('"scope_id": "call_002"')) manifest = candidate;
    }
    await rename(manifest, path.join(outside, "manifest.json"));
    await symlink(path.join(outside, "manifest.json"), manifest);
    // A body that is a symlink: its diffs say the body is missing.
    const bodies = path.join(sessionDir, "bodies");
    for (const name of await readdir(bodies)) {
      await rename(path.join(bodies, name), path.join(outside, name));
      await symlink(path.join(outside, name), path.join(bodies, name));
    }
    const app2 = await testApp({ path: dir });
    const linked = (await timeline(app2, file, 2)).changes;
    expect(linked?.tool_calls.map((call) => call.call_id)).toEqual(["call_001", "call_003", "call_004", "call_005"]);
    const diff = (await json(app2, diffUrl(file, 1, UNDO_RUN_UNDONE_CALL, "README.md"))).body;
    expect(diff).toMatchObject({ hunks: [], note: expect.stringMatching(/body \([0-9a-f]{64}\) is missing from the undo store/) });

    // The store directory itself a symlink (to a real store elsewhere): no store at all.
    await cp(path.join(dir, "undo"), path.join(outside, "undo"), { recursive: true, verbatimSymlinks: true });
    await rm(path.join(dir, "undo"), { recursive: true });
    await symlink(path.join(outside, "undo"), path.join(dir, "undo"));
    const app3 = await testApp({ path: dir });
    expect((await timeline(app3, file, 2)).changes).toBeUndefined();
    expect((await json(app3, diffUrl(file, 1, UNDO_RUN_UNDONE_CALL, "README.md"))).status).toBe(404);
  });

  it("session ids that cannot name a store directory have none", async () => {
    const dir = await tempDir("wink-tool-calls-ids-");
    // A store for "snapshots" exists one level up from where ".." would lead.
    await writeUndoRun(dir);
    const events = [{ type: TOOL_INVOKED, items: [{ event_id: "e1", created_at: "2026-11-22T01:00:01+00:00", call_id: "call_001", name: "edit_file", result: { success: true, message: "ok" } }] }];
    await writeSession(dir, "odd.jsonl", [snapshotLine({ sessionId: "..", slices: events }), snapshotLine({ sessionId: "a/b", slices: events }), snapshotLine({ sessionId: ".hidden", slices: events })]);
    const app = await testApp({ path: dir });
    for (const line of [1, 2, 3]) {
      expect((await timeline(app, "odd.jsonl", line)).changes).toBeUndefined();
      expect((await json(app, diffUrl("odd.jsonl", line, "call_001", "src/app.py"))).status).toBe(404);
    }
  });
});
