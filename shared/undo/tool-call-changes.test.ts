import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import { editFileTool, rmTool, writeFileTool, type ToolDefinition } from "../tools/index.js";
import { invokeToolWithUndo } from "./capturing-filesystem.js";
import { loadUndoSessionFiles, readToolCallChangesFromStore } from "./store-files.node.js";
import { readToolCallChanges } from "./tool-call-changes.js";
import { UndoStore } from "./undo-store.node.js";

const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setup(recordPostImages: boolean): Promise<{ fs: InMemoryFilesystem; store: UndoStore }> {
  const stateDir = await mkdtemp(join(tmpdir(), "wink-undo-reader-"));
  temps.push(stateDir);
  const fs = new InMemoryFilesystem();
  await fs.write("src/app.ts", "const a = 1;\n");
  await fs.write("old/x.txt", "x\n");
  await fs.writeBytes("logo.bin", new Uint8Array([0xff, 0xfe, 0x00]));
  const store = await UndoStore.create({ workspace: fs, stateDir, recordPostImages });
  const call = (tool: ToolDefinition, params: object, toolCallId: string) => invokeToolWithUndo(tool, params, { store, sessionId: "s1", toolCallId });
  await call(editFileTool, { file_path: "src/app.ts", old_string: "1", new_string: "2" }, "tc_edit");
  await call(writeFileTool, { file_path: "docs/new.md", content: "# New\n" }, "tc_write");
  await call(rmTool, { path: "old" }, "tc_rm");
  await call(rmTool, { path: "logo.bin" }, "tc_bin");
  await call(writeFileTool, { file_path: "src/app.ts", content: "x", mode: "create" }, "tc_failed");
  await call(editFileTool, { file_path: "src/app.ts", old_string: "2", new_string: "3" }, "tc_edit2");
  await store.restore("s1", "tc_write");
  return { fs, store };
}

describe("readToolCallChanges", () => {
  it("gives each tool call's changed files with before/after content and the undone flag", async () => {
    const { store } = await setup(true);
    const result = await readToolCallChangesFromStore(store.stateDir, "s1");
    expect(result.problems).toEqual([]);
    expect(result.toolCalls.map((call) => call.toolCallId)).toEqual(["tc_edit", "tc_write", "tc_rm", "tc_bin", "tc_failed", "tc_edit2"]);
    const edit = result.byToolCallId.tc_edit;
    expect(edit?.undone).toBe(false);
    expect(edit?.files).toEqual([
      expect.objectContaining({ path: "src/app.ts", change: "modified", afterSource: "recorded", before: expect.objectContaining({ text: "const a = 1;\n" }), after: expect.objectContaining({ text: "const a = 2;\n" }) }),
    ]);
    const write = result.byToolCallId.tc_write;
    expect(write?.undone).toBe(true);
    expect(write?.files.map((file) => [file.path, file.change, file.after?.text ?? null])).toEqual([
      ["docs", "added", null],
      ["docs/new.md", "added", "# New\n"],
    ]);
    expect(result.byToolCallId.tc_rm?.files.map((file) => [file.path, file.change])).toEqual([
      ["old", "deleted"],
      ["old/x.txt", "deleted"],
    ]);
    expect(result.byToolCallId.tc_bin?.files[0]).toMatchObject({ path: "logo.bin", change: "deleted", before: { binary: true, text: null, available: true } });
    expect(result.byToolCallId.tc_failed?.files).toEqual([]);
  });

  it("falls back to the next snapshot's pre-image when no post-image was recorded", async () => {
    const { store } = await setup(false);
    const { manifests, loadBody } = await loadUndoSessionFiles(store.sessionDir("s1"));
    const result = await readToolCallChanges(manifests, loadBody);
    expect(result.byToolCallId.tc_edit?.files).toEqual([expect.objectContaining({ path: "src/app.ts", change: "modified", afterSource: "next-snapshot", after: expect.objectContaining({ text: "const a = 2;\n" }) })]);
    expect(result.byToolCallId.tc_edit2?.files).toEqual([expect.objectContaining({ change: "unknown", afterSource: "unknown", after: null })]);
  });

  it("reports unreadable manifests and missing bodies without failing", async () => {
    const { store } = await setup(true);
    const { manifests } = await loadUndoSessionFiles(store.sessionDir("s1"));
    const result = await readToolCallChanges(["{not json", ...manifests], async () => null);
    expect(result.problems[0]).toMatchObject({ where: "manifest 1", message: expect.stringMatching(/not JSON/) });
    expect(result.problems.some((problem) => /body [0-9a-f]{64} is missing/.test(problem.message))).toBe(true);
    expect(result.byToolCallId.tc_edit?.files[0]?.before.available).toBe(false);
    expect(await readdir(store.sessionDir("s1"))).toContain("bodies");
    expect((await readToolCallChangesFromStore(store.stateDir, "../etc")).problems).toHaveLength(1);
  });
});
