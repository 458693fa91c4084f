// The timeline's view of a per-tool-call undo store, against real stores written by the
// undo module (UndoStore + the tools) in a temporary directory.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import type { SessionSnapshot } from "../session/index.js";
import { snapshotFromObject } from "../session/index.js";
import { editFileTool, rmTool, writeFileTool } from "../tools/index.js";
import type { ToolDefinition } from "../tools/index.js";
import { invokeToolWithUndo } from "../undo/capturing-filesystem.js";
import { loadUndoSessionFiles, readToolCallChangesFromStore } from "../undo/store-files.node.js";
import type { BodyLoader, ToolCallChangesResult } from "../undo/tool-call-changes.js";
import { readToolCallChanges } from "../undo/tool-call-changes.js";
import { UndoStore } from "../undo/undo-store.node.js";
import { virtualFileSource } from "./file-source.js";
import { buildTimeline } from "./timeline.js";
import { snapshotAfter, timelineChanges, toolCallFileDiff } from "./tool-call-changes.js";
import type { SnapshotRefView, TimelineView } from "./types.js";

const SESSION = "s-1";
const TOOL_INVOKED = "weakincentives.runtime.events._types:ToolInvoked";
const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A clock that moves one second per reading, from 10:00:00. */
function steppingClock(): () => Date {
  let ms = Date.UTC(2026, 10, 20, 10, 0, 0);
  return () => new Date((ms += 1000));
}

interface Run {
  readonly fs: InMemoryFilesystem;
  readonly store: UndoStore;
  call(tool: ToolDefinition, params: object, callId: string): Promise<void>;
  changes(): Promise<ToolCallChangesResult & { loadBody: BodyLoader }>;
}

async function run(options: { recordPostImages?: boolean } = {}): Promise<Run> {
  const stateDir = await mkdtemp(join(tmpdir(), "wink-viewer-undo-"));
  temps.push(stateDir);
  const fs = new InMemoryFilesystem();
  await fs.write("README.md", "# app\n\nUsage: run it.\n");
  await fs.write("src/app.ts", "const a = 1;\nconst b = 2;\n");
  await fs.write("old/notes.txt", "old\n");
  await fs.writeBytes("logo.bin", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]));
  const store = await UndoStore.create({ workspace: fs, stateDir, recordPostImages: options.recordPostImages ?? true, clock: steppingClock() });
  return {
    fs,
    store,
    async call(tool, params, callId) {
      await invokeToolWithUndo(tool, params, { store, sessionId: SESSION, toolCallId: callId });
    },
    async changes() {
      const { manifests, loadBody } = await loadUndoSessionFiles(store.sessionDir(SESSION));
      return { ...(await readToolCallChanges(manifests, loadBody, { withContent: false })), loadBody };
    },
  };
}

/** A snapshot line whose ToolInvoked events carry these call ids (in this order, one second apart). */
function lineWithCalls(callIds: readonly string[], sessionId = SESSION): SessionSnapshot {
  const items = callIds.map((callId, index) => ({
    __type__: TOOL_INVOKED,
    call_id: callId,
    created_at: `2026-11-20T10:00:${String(index).padStart(2, "0")}.500000+00:00`,
    event_id: `event-${index}`,
    name: `tool_${callId}`,
    result: { message: "ok", success: true, value: null },
  }));
  const result = snapshotFromObject(
    { version: "1", created_at: "2026-11-20T11:00:00+00:00", parent_id: null, children_ids: [], tags: { session_id: sessionId }, slices: [{ slice_type: TOOL_INVOKED, item_type: TOOL_INVOKED, items }] },
    1,
  );
  if (!result.ok) throw new Error(result.error.reason);
  return result.snapshot;
}

function timelineOf(snapshot: SessionSnapshot): TimelineView {
  return buildTimeline({ file: "run.jsonl", snapshot, lines: [], lineErrors: [] });
}

const ref = (line: number, createdAt: string): SnapshotRefView => ({ file: "run.jsonl", line_number: line, session_id: SESSION, created_at: createdAt });

describe("timelineChanges", () => {
  it("joins the store's tool calls with the timeline's events by call id", async () => {
    const r = await run();
    await r.call(editFileTool, { file_path: "src/app.ts", old_string: "const a = 1;", new_string: "const a = 10;" }, "call_1");
    await r.call(writeFileTool, { file_path: "docs/guide.md", content: "# Guide\n" }, "call_2");
    await r.call(rmTool, { path: "old" }, "call_3");
    await r.call(writeFileTool, { file_path: "README.md", content: "x", mode: "create" }, "call_4"); // fails: exists
    await r.call(writeFileTool, { file_path: "README.md", content: "# app\n", mode: "overwrite" }, "call_5");
    await r.store.restore(SESSION, "call_5");

    // This line records calls 1, 2, 4 and 5 (and one the store never saw); call 3 is elsewhere.
    const timeline = timelineOf(lineWithCalls(["call_1", "call_2", "call_untracked", "call_4", "call_5"]));
    const view = timelineChanges(timeline, await r.changes());
    expect(view.problems).toEqual([]);
    expect(view.other_calls).toBe(1);
    expect(view.tool_calls.map((call) => [call.call_id, call.event_index])).toEqual([
      ["call_1", 0],
      ["call_2", 1],
      ["call_4", 3],
      ["call_5", 4],
    ]);
    for (const call of view.tool_calls) expect(timeline.events[call.event_index]?.call_id).toBe(call.call_id);
    const [edit, write, failed, undone] = view.tool_calls;
    expect(edit?.files).toEqual([{ path: "src/app.ts", change: "modified", before: "file", after: "file", before_size: 26, after_size: 27 }]);
    expect(write?.files.map((file) => [file.path, file.change, file.before, file.after, file.after_size])).toEqual([
      ["docs", "added", "absent", "directory", null],
      ["docs/guide.md", "added", "absent", "file", 8],
    ]);
    expect(failed).toMatchObject({ files: [], undone: false, restored_at: null });
    expect(undone).toMatchObject({ undone: true, restored_at: expect.stringMatching(/^2026-11-20T10:00/), files: [expect.objectContaining({ path: "README.md", change: "modified" })] });
    expect((edit?.captured_at ?? "") < (undone?.captured_at ?? "")).toBe(true);
  });

  it("gives a call id seen on several events to the first, and reports calls recorded for another session", async () => {
    const r = await run();
    // Two tool invocations under one call id share the store's snapshot of that scope.
    await r.call(writeFileTool, { file_path: "a.txt", content: "1\n" }, "dup");
    await r.call(writeFileTool, { file_path: "b.txt", content: "2\n" }, "dup");
    const changes = await r.changes();
    const view = timelineChanges(timelineOf(lineWithCalls(["dup", "dup"])), changes);
    expect(view.tool_calls.map((call) => [call.event_index, call.files.map((file) => file.path)])).toEqual([[0, ["a.txt", "b.txt"]]]);
    const other = timelineChanges(timelineOf(lineWithCalls(["dup"], "another-session")), changes);
    expect(other.tool_calls).toEqual([]);
    expect(other.problems).toEqual(["dup: recorded for session s-1, not another-session"]);
  });

  it("passes on manifests the store could not parse", async () => {
    const r = await run();
    await r.call(writeFileTool, { file_path: "a.txt", content: "1\n" }, "call_1");
    const { manifests, loadBody } = await loadUndoSessionFiles(r.store.sessionDir(SESSION));
    const view = timelineChanges(timelineOf(lineWithCalls(["call_1"])), await readToolCallChanges(["{broken", ...manifests], loadBody, { withContent: false }));
    expect(view.tool_calls).toHaveLength(1);
    expect(view.problems).toEqual([expect.stringMatching(/^manifest 1: .*not JSON/)]);
  });
});

describe("toolCallFileDiff", () => {
  it("diffs the pre-image against the recorded post-image, with both texts", async () => {
    const r = await run();
    await r.call(editFileTool, { file_path: "src/app.ts", old_string: "const b = 2;", new_string: "const b = 3;" }, "call_1");
    await r.call(writeFileTool, { file_path: "README.md", content: "# app\n", mode: "overwrite" }, "call_2");
    await r.store.restore(SESSION, "call_2");
    const changes = await r.changes();
    const edit = await toolCallFileDiff(changes, "call_1", "src/app.ts", { loadBody: changes.loadBody });
    expect(edit).toMatchObject({
      change: "modified",
      after_source: "recorded",
      after_snapshot: null,
      before: { kind: "file", size_bytes: 26, text: "const a = 1;\nconst b = 2;\n" },
      after: { kind: "file", size_bytes: 26, text: "const a = 1;\nconst b = 3;\n" },
      engine: "jsdiff",
      undone: false,
      note: null,
    });
    expect(edit.hunks.flatMap((hunk) => hunk.lines)).toEqual([" const a = 1;", "-const b = 2;", "+const b = 3;"]);
    // Undone: the diff still shows what the call did, and says it was undone.
    const undone = await toolCallFileDiff(changes, "call_2", "README.md", { loadBody: changes.loadBody });
    expect(undone).toMatchObject({ change: "modified", undone: true, restored_at: expect.any(String), after: { text: "# app\n" } });
    expect(undone.hunks[0]?.lines).toContain("-Usage: run it.");
    expect(await r.fs.read("README.md", { limit: -1 })).toMatchObject({ content: "# app\n\nUsage: run it.\n" });
  });

  it("shows added and deleted files against nothing, and directories as a note", async () => {
    const r = await run();
    await r.call(writeFileTool, { file_path: "docs/guide.md", content: "# Guide\n" }, "call_add");
    await r.call(rmTool, { path: "old" }, "call_rm");
    const changes = await r.changes();
    const added = await toolCallFileDiff(changes, "call_add", "docs/guide.md", { loadBody: changes.loadBody });
    expect(added).toMatchObject({ change: "added", before: { kind: "absent", size_bytes: null, text: null }, after: { kind: "file", text: "# Guide\n" } });
    expect(added.hunks.flatMap((hunk) => hunk.lines)).toEqual(["+# Guide"]);
    const deleted = await toolCallFileDiff(changes, "call_rm", "old/notes.txt", { loadBody: changes.loadBody });
    expect(deleted).toMatchObject({ change: "deleted", after: { kind: "absent" } });
    expect(deleted.hunks.flatMap((hunk) => hunk.lines)).toEqual(["-old"]);
    const directory = await toolCallFileDiff(changes, "call_rm", "old", { loadBody: changes.loadBody });
    expect(directory).toMatchObject({ change: "deleted", hunks: [], engine: "none", before: { kind: "directory" }, note: expect.stringMatching(/directory removed/) });
  });

  it("summarises binary files, oversized files and missing bodies instead of diffing them", async () => {
    const r = await run();
    await r.call(rmTool, { path: "logo.bin" }, "call_bin");
    await r.call(writeFileTool, { file_path: "big.txt", content: "line\n".repeat(3000) }, "call_big");
    const changes = await r.changes();
    const binary = await toolCallFileDiff(changes, "call_bin", "logo.bin", { loadBody: changes.loadBody });
    expect(binary).toMatchObject({ change: "deleted", binary: true, hunks: [], before: { kind: "file", size_bytes: 6, text: null }, note: "Binary file: no text diff" });
    // Over the text limit: hunks only, no whole texts.
    const hunksOnly = await toolCallFileDiff(changes, "call_big", "big.txt", { loadBody: changes.loadBody }, { maxTextBytes: 1000 });
    expect(hunksOnly).toMatchObject({ change: "added", engine: "jsdiff", after: { kind: "file", size_bytes: 15000, text: null } });
    expect(hunksOnly.hunks[0]?.new_lines).toBe(3000);
    // Over the diff limit: nothing read, a note says why.
    const tooBig = await toolCallFileDiff(changes, "call_big", "big.txt", { loadBody: changes.loadBody }, { maxBytes: 1000 });
    expect(tooBig).toMatchObject({ change: "added", hunks: [], note: "The post-image is larger than 1000 bytes: no text diff" });
    const missing = await toolCallFileDiff(changes, "call_bin", "logo.bin", { loadBody: async () => null });
    expect(missing).toMatchObject({ hunks: [], note: expect.stringMatching(/pre-image's body \([0-9a-f]{64}\) is missing/) });
  });

  it("refuses calls the store does not have and paths the call did not change", async () => {
    const r = await run();
    await r.call(writeFileTool, { file_path: "a.txt", content: "1\n" }, "call_1");
    const changes = await r.changes();
    await expect(toolCallFileDiff(changes, "call_9", "a.txt", { loadBody: changes.loadBody })).rejects.toMatchObject({ code: "ENOENT", message: "The undo store has no tool call call_9" });
    await expect(toolCallFileDiff(changes, "__proto__", "a.txt", { loadBody: changes.loadBody })).rejects.toMatchObject({ code: "ENOENT" });
    await expect(toolCallFileDiff(changes, "call_1", "README.md", { loadBody: changes.loadBody })).rejects.toMatchObject({ code: "ENOENT", message: "Tool call call_1 did not change README.md" });
  });

  describe("without recorded post-images", () => {
    it("takes the next call's pre-image, then the next snapshot line's workspace", async () => {
      const r = await run({ recordPostImages: false });
      await r.call(editFileTool, { file_path: "src/app.ts", old_string: "const a = 1;", new_string: "const a = 5;" }, "call_1");
      await r.call(editFileTool, { file_path: "src/app.ts", old_string: "const a = 5;", new_string: "const a = 6;" }, "call_2");
      await r.call(writeFileTool, { file_path: "docs/new.md", content: "new\n" }, "call_3");
      const changes = await r.changes();
      expect(changes.byToolCallId.call_2?.files[0]?.afterSource).toBe("unknown");

      const fromNextCall = await toolCallFileDiff(changes, "call_1", "src/app.ts", { loadBody: changes.loadBody });
      expect(fromNextCall).toMatchObject({ change: "modified", after_source: "next_call", after: { text: "const a = 5;\nconst b = 2;\n" } });

      // The workspace at the next line, as the compare view would read it.
      const workspaceFiles = [
        { path: "src/app.ts", content: "const a = 6;\nconst b = 2;\n" },
        { path: "docs/new.md", content: "new\n" },
      ].map((file) => ({ ...file, segments: file.path.split("/"), sizeBytes: 0, version: null, createdAt: null, updatedAt: null, encoding: null }));
      const seen: number[] = [];
      const context = {
        loadBody: changes.loadBody,
        snapshots: [ref(1, "2026-11-20T09:00:00+00:00"), ref(3, "2026-11-20T12:00:00+00:00"), ref(2, "2026-11-20T11:00:00+00:00")],
        workspace: async (snapshot: SnapshotRefView) => {
          seen.push(snapshot.line_number);
          return virtualFileSource(workspaceFiles);
        },
      };
      const fromWorkspace = await toolCallFileDiff(changes, "call_2", "src/app.ts", context);
      expect(seen).toEqual([2]);
      expect(fromWorkspace).toMatchObject({
        change: "modified",
        after_source: "workspace",
        after_snapshot: ref(2, "2026-11-20T11:00:00+00:00"),
        after: { kind: "file", text: "const a = 6;\nconst b = 2;\n" },
        note: expect.stringMatching(/^Post-state from the workspace at line 2/),
      });
      expect(fromWorkspace.hunks.flatMap((hunk) => hunk.lines)).toContain("+const a = 6;");
      const directory = await toolCallFileDiff(changes, "call_3", "docs", context);
      expect(directory).toMatchObject({ change: "added", after: { kind: "directory" }, after_source: "workspace" });

      // No later line, or no workspace at it: unknown, and said so.
      const noLine = await toolCallFileDiff(changes, "call_2", "src/app.ts", { ...context, snapshots: [ref(1, "2026-11-20T09:00:00+00:00")] });
      expect(noLine).toMatchObject({ change: "unknown", after: null, after_source: "unknown", hunks: [], note: expect.stringMatching(/no later snapshot line/) });
      const noWorkspace = await toolCallFileDiff(changes, "call_2", "src/app.ts", { ...context, workspace: async () => null });
      expect(noWorkspace).toMatchObject({ change: "unknown", after_snapshot: ref(2, "2026-11-20T11:00:00+00:00"), note: expect.stringMatching(/line 2 has no workspace/) });
    });

    it("does not judge a call undone before the next line by that line", async () => {
      const r = await run({ recordPostImages: false });
      await r.call(writeFileTool, { file_path: "README.md", content: "oops\n", mode: "overwrite" }, "call_1");
      await r.store.restore(SESSION, "call_1");
      const changes = await r.changes();
      const context = { loadBody: changes.loadBody, snapshots: [ref(1, "2026-11-20T11:00:00+00:00")], workspace: async () => virtualFileSource([]) };
      const diff = await toolCallFileDiff(changes, "call_1", "README.md", context);
      expect(diff).toMatchObject({ change: "unknown", undone: true, after: null, note: expect.stringMatching(/undone before line 1, which shows the restored state/) });
    });

    it("reports a file the next line shows unchanged", async () => {
      const r = await run({ recordPostImages: false });
      await r.call(editFileTool, { file_path: "src/app.ts", old_string: "1", new_string: "7" }, "call_1");
      const changes = await r.changes();
      const same = [{ path: "src/app.ts", content: "const a = 1;\nconst b = 2;\n", segments: ["src", "app.ts"], sizeBytes: 0, version: null, createdAt: null, updatedAt: null, encoding: null }];
      const diff = await toolCallFileDiff(changes, "call_1", "src/app.ts", { loadBody: changes.loadBody, snapshots: [ref(4, "2026-11-20T11:00:00+00:00")], workspace: async () => virtualFileSource(same) });
      expect(diff).toMatchObject({ change: "unchanged", hunks: [], note: expect.stringContaining("The file is the same before and after the call.") });
    });
  });

  it("reads the same store through readToolCallChangesFromStore", async () => {
    const r = await run();
    await r.call(writeFileTool, { file_path: "a.txt", content: "1\n" }, "call_1");
    const fromDisk = await readToolCallChangesFromStore(r.store.stateDir, SESSION, { withContent: false });
    expect(timelineChanges(timelineOf(lineWithCalls(["call_1"])), fromDisk).tool_calls[0]?.files).toEqual([{ path: "a.txt", change: "added", before: "absent", after: "file", before_size: null, after_size: 2 }]);
  });
});

describe("snapshotAfter", () => {
  it("picks the earliest line at or after a time (ties: the lower line)", () => {
    const lines = [ref(5, "2026-11-20T12:00:00+00:00"), ref(2, "2026-11-20T11:00:00.000+00:00"), ref(1, "2026-11-20T09:00:00+00:00"), ref(3, "2026-11-20T11:00:00Z")];
    expect(snapshotAfter(lines, "2026-11-20T10:00:00Z")?.line_number).toBe(2);
    expect(snapshotAfter(lines, "2026-11-20T11:00:00Z")?.line_number).toBe(2);
    expect(snapshotAfter(lines, "2026-11-20T11:30:00+01:00")?.line_number).toBe(2);
    expect(snapshotAfter(lines, "2026-11-20T12:00:00.001Z")).toBeNull();
    expect(snapshotAfter([], "2026-11-20T10:00:00Z")).toBeNull();
  });
});
