import { existsSync } from "node:fs";
import { readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import { editFileTool, rmTool, writeFileTool } from "../tools/index.js";
import { CapturingFilesystem, invokeToolWithUndo } from "./capturing-filesystem.js";
import { parseUndoManifest } from "./manifest.js";
import { tempDirs, workspaceState } from "./workspace-state.test-support.js";
import { UndoStore } from "./undo-store.node.js";

const temps = tempDirs();
const tempDir = (prefix: string): Promise<string> => temps.make(prefix);
afterEach(() => temps.cleanup());


let fs: InMemoryFilesystem;
let store: UndoStore;
const S = "sess_1";

beforeEach(async () => {
  fs = new InMemoryFilesystem();
  await fs.write("src/app.ts", "const a = 1;\n");
  await fs.write("src/lib/util.ts", "export const u = 1;\n");
  await fs.mkdir("empty");
  await fs.write("README.md", "# demo\n");
  store = await UndoStore.create({ workspace: fs, stateDir: await tempDir("wink-undo-test-") });
});

describe("explicit snapshots", () => {
  it("captures the given paths at once and restores them, deleting paths that were absent", async () => {
    const start = await workspaceState(fs);
    const info = await store.register(S, "tc_1", { paths: ["src/app.ts", "new/deep/file.txt", "src/lib"] });
    expect(info.open).toBe(false);
    expect(info.paths).toEqual(["new", "src/app.ts", "src/lib", "src/lib/util.ts"]);
    await fs.write("src/app.ts", "changed");
    await fs.write("new/deep/file.txt", "x");
    await fs.write("src/lib/extra.ts", "x");
    await fs.delete("src/lib/util.ts");
    const result = await store.restore(S, "tc_1");
    // Restoring closes the snapshot first, which also records what appeared inside created directories.
    expect(result.restoredPaths).toEqual(["new", "new/deep", "new/deep/file.txt", "src/app.ts", "src/lib", "src/lib/util.ts"]);
    expect(await workspaceState(fs)).toEqual(start);
  });

  it("refuses invalid paths with EINVAL naming the path", async () => {
    await expect(store.register(S, "tc_1", { paths: ["../outside"] })).rejects.toMatchObject({ code: "EINVAL", data: { path: "../outside" } });
  });
});

describe("auto-capture through the capturing filesystem", () => {
  it("captures the first pre-image of each path a tool call touches, and undoes only that call", async () => {
    const wrapped = new CapturingFilesystem(store, { sessionId: S });
    const start = await workspaceState(fs);
    await wrapped.bind("tc_1").write("src/app.ts", "v1");
    await wrapped.bind("tc_1").write("src/app.ts", "v2");
    await wrapped.bind("tc_1").write("a/b/c.txt", "created with parents");
    const afterFirst = await workspaceState(fs);
    await wrapped.bind("tc_2").write("README.md", "# changed by call 2\n");
    await wrapped.bind("tc_2").delete("empty");

    const undo1 = await store.restore(S, "tc_1");
    expect(undo1.restoredPaths).toEqual(["a", "a/b", "a/b/c.txt", "src/app.ts"]);
    expect((await fs.read("src/app.ts")).content).toBe("const a = 1;\n");
    expect(await fs.exists("a")).toBe(false);
    expect((await fs.read("README.md")).content).toBe("# changed by call 2\n");

    await store.restore(S, "tc_2");
    expect(await workspaceState(fs)).toEqual(start);
    expect(afterFirst).not.toEqual(start);
  });

  it("captures a deleted directory with its whole subtree (empty directories included)", async () => {
    await fs.mkdir("src/lib/empty-child");
    const start = await workspaceState(fs);
    const call = new CapturingFilesystem(store, { sessionId: S, toolCallId: "tc_rm" });
    await call.write("src/lib/util.ts", "edited first");
    await call.delete("src", { recursive: true });
    await call.write("src/new.ts", "recreated");
    await store.restore(S, "tc_rm");
    expect(await workspaceState(fs)).toEqual(start);
  });

  it("records nothing for a call that fails, and passes through without a bound tool call", async () => {
    const call = new CapturingFilesystem(store, { sessionId: S, toolCallId: "tc_fail" });
    await expect(call.write("src/app.ts", "x", { mode: "create" })).rejects.toMatchObject({ code: "EEXIST" });
    await expect(call.delete("missing")).rejects.toMatchObject({ code: "ENOENT" });
    expect((await store.get(S, "tc_fail"))?.paths).toEqual([]);
    const unbound = new CapturingFilesystem(store, { sessionId: S });
    await unbound.write("free.txt", "no capture");
    expect(await store.list(S)).toHaveLength(1);
  });

  it("does not open snapshots when autoRegister is off, and captures into a registered open one", async () => {
    const call = new CapturingFilesystem(store, { sessionId: S, toolCallId: "tc_x", autoRegister: false });
    await call.write("one.txt", "1");
    expect(await store.get(S, "tc_x")).toBeNull();
    await store.register(S, "tc_x");
    await call.write("two.txt", "2");
    expect((await store.get(S, "tc_x"))?.paths).toEqual(["two.txt"]);
  });

  it("takes the tool call from a ToolContext", async () => {
    const wrapped = new CapturingFilesystem(store, { sessionId: "other" });
    const context = wrapped.contextFor({ filesystem: fs, sessionId: S, toolCallId: "tc_ctx" });
    const result = await editFileTool.handler({ file_path: "src/app.ts", old_string: "1", new_string: "2" }, context);
    expect(result.success).toBe(true);
    expect((await store.get(S, "tc_ctx"))?.paths).toEqual(["src/app.ts"]);
  });

  it("captures before importArchive replaces everything", async () => {
    const dir = await tempDir("wink-undo-archive-");
    const other = new InMemoryFilesystem();
    await other.write("only.txt", "from the archive");
    await other.exportArchive(join(dir, "a.fs.zip"));
    const start = await workspaceState(fs);
    await new CapturingFilesystem(store, { sessionId: S, toolCallId: "tc_import" }).importArchive(join(dir, "a.fs.zip"));
    expect(await workspaceState(fs)).toEqual({ "only.txt": expect.any(String) });
    await store.restore(S, "tc_import");
    expect(await workspaceState(fs)).toEqual(start);
  });
});

describe("invokeToolWithUndo", () => {
  it("opens a snapshot per mutating call, records post-images, and leaves read-only calls alone", async () => {
    const result = await invokeToolWithUndo(writeFileTool, { file_path: "notes.md", content: "hi" }, { store, sessionId: S, toolCallId: "tc_w" });
    expect(result.success).toBe(true);
    const manifestDir = join(store.sessionDir(S), (await store.get(S, "tc_w"))?.snapshotId ?? "");
    const manifest = parseUndoManifest(await readFile(join(manifestDir, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({ scopeId: "tc_w", sessionId: S, open: false, workspaceRoot: "/", kind: "tool_call" });
    expect(manifest.entries).toEqual([{ path: "notes.md", before: { kind: "absent" }, after: { kind: "file", bodyHash: expect.stringMatching(/^[0-9a-f]{64}$/), sizeBytes: 2, mode: 0o644 } }]);
    const failed = await invokeToolWithUndo(rmTool, { path: "nope" }, { store, sessionId: S, toolCallId: "tc_fail" });
    expect(failed.success).toBe(false);
    expect((await store.get(S, "tc_fail"))?.paths).toEqual([]);
  });
});

describe("re-running a tool call", () => {
  it("captures into the same snapshot, keeping the pre-images of its first run", async () => {
    const start = await workspaceState(fs);
    await invokeToolWithUndo(writeFileTool, { file_path: "README.md", content: "first run", mode: "overwrite" }, { store, sessionId: S, toolCallId: "tc_retry" });
    await invokeToolWithUndo(writeFileTool, { file_path: "README.md", content: "second run", mode: "overwrite" }, { store, sessionId: S, toolCallId: "tc_retry" });
    await invokeToolWithUndo(writeFileTool, { file_path: "extra.md", content: "only in the second run" }, { store, sessionId: S, toolCallId: "tc_retry" });
    expect((await store.get(S, "tc_retry"))?.paths).toEqual(["README.md", "extra.md"]);
    await store.restore(S, "tc_retry");
    expect(await workspaceState(fs)).toEqual(start);
    // After an undo, running it again makes it "in effect" again, still undoable to the start.
    await invokeToolWithUndo(writeFileTool, { file_path: "README.md", content: "third run", mode: "overwrite" }, { store, sessionId: S, toolCallId: "tc_retry" });
    expect((await store.get(S, "tc_retry"))?.restoredAt).toBeNull();
    await store.restore(S, "tc_retry");
    expect(await workspaceState(fs)).toEqual(start);
  });
});

describe("storage", () => {
  it("writes manifests and shares content-addressed bodies across snapshots", async () => {
    const call = (id: string) => new CapturingFilesystem(store, { sessionId: S, toolCallId: id });
    await call("tc_1").write("src/app.ts", "v1");
    await call("tc_2").write("src/app.ts", "const a = 1;\n"); // same bytes as tc_1's pre-image
    const dir = store.sessionDir(S);
    const snapshotDirs = (await readdir(dir)).filter((name) => name !== "bodies");
    expect(snapshotDirs).toHaveLength(2);
    const bodies = await readdir(join(dir, "bodies"));
    // "const a = 1;\n" once (pre-image of tc_1, post-image of tc_2) plus "v1".
    expect(bodies.sort()).toHaveLength(2);
    const infos = await store.list(S);
    expect(infos.map((info) => info.scopeId)).toEqual(["tc_1", "tc_2"]);
    expect((infos[0]?.capturedAt ?? "") <= (infos[1]?.capturedAt ?? "")).toBe(true);
  });

  it("drops a snapshot with its unshared bodies, and a whole session", async () => {
    const call = (id: string) => new CapturingFilesystem(store, { sessionId: S, toolCallId: id });
    await call("tc_1").write("README.md", "one");
    await call("tc_2").write("src/app.ts", "two");
    expect(await store.drop(S, "tc_1")).toBe(true);
    expect(await store.drop(S, "tc_1")).toBe(false);
    expect((await store.list(S)).map((info) => info.scopeId)).toEqual(["tc_2"]);
    expect(await store.sessionBytes(S)).toBeGreaterThan(0);
    await store.dropSession(S);
    expect(existsSync(store.sessionDir(S))).toBe(false);
    expect(await store.list(S)).toEqual([]);
    await expect(store.restore(S, "tc_2")).rejects.toMatchObject({ code: "E_SNAPSHOT_NOT_FOUND" });
  });

  it("evicts the oldest snapshots past the per-session byte cap", async () => {
    const small = await UndoStore.create({ workspace: fs, stateDir: await tempDir("wink-undo-cap-"), sessionByteCap: 6_000 });
    for (let i = 0; i < 6; i++) {
      await fs.write(`big-${i}.txt`, String(i).repeat(1_500));
      await new CapturingFilesystem(small, { sessionId: S, toolCallId: `tc_${i}` }).write(`big-${i}.txt`, "small");
    }
    const remaining = (await small.list(S)).map((info) => info.scopeId);
    expect(remaining[remaining.length - 1]).toBe("tc_5");
    expect(remaining).not.toContain("tc_0");
    expect(await small.sessionBytes(S)).toBeLessThanOrEqual(6_000);
    await expect(small.restore(S, "tc_0")).rejects.toMatchObject({ code: "E_SNAPSHOT_NOT_FOUND", data: { evicted: true } });
    // Lowering the cap evicts immediately.
    await small.configureSessionByteCap(S, 1);
    expect((await small.list(S)).length).toBeLessThanOrEqual(1);
  });

  it("survives a new store instance on the same directory (restore after reload)", async () => {
    await new CapturingFilesystem(store, { sessionId: S, toolCallId: "tc_1" }).write("src/app.ts", "changed");
    const reopened = await UndoStore.create({ workspace: fs, stateDir: store.stateDir });
    expect((await reopened.list(S)).map((info) => info.scopeId)).toEqual(["tc_1"]);
    await reopened.restore(S, "tc_1");
    expect((await fs.read("src/app.ts")).content).toBe("const a = 1;\n");
  });

  it("refuses a damaged body and leaves the workspace untouched", async () => {
    const call = new CapturingFilesystem(store, { sessionId: S, toolCallId: "tc_1" });
    await call.write("src/app.ts", "changed");
    await call.write("README.md", "changed too");
    const bodies = join(store.sessionDir(S), "bodies");
    for (const name of await readdir(bodies)) await writeFile(join(bodies, name), "tampered");
    const before = await workspaceState(fs);
    await expect(store.restore(S, "tc_1")).rejects.toMatchObject({ code: "E_SNAPSHOT_RESTORE" });
    expect(await workspaceState(fs)).toEqual(before);
  });

  it("rejects session ids that are not a safe directory name", async () => {
    for (const bad of ["", "..", "a/b", "x\u0000", ".hidden"]) {
      await expect(store.list(bad)).rejects.toMatchObject({ code: "EINVAL" });
    }
  });
});

describe("turn rollback and redo", () => {
  it("rolls back a turn's calls (capturing redo first) and redoes them", async () => {
    const wrapped = new CapturingFilesystem(store, { sessionId: S });
    await store.beginTurn(S, "turn-1");
    await wrapped.bind("t1_a").write("src/app.ts", "turn 1");
    await store.beginTurn(S, "turn-2");
    const afterTurn1 = await workspaceState(fs);
    await wrapped.bind("t2_a").write("src/app.ts", "turn 2");
    await wrapped.bind("t2_b").delete("src/lib", { recursive: true });
    await wrapped.bind("t2_b").write("made/here.txt", "x");
    const afterTurn2 = await workspaceState(fs);

    const rolled = await store.rollback(S);
    expect(rolled.turnIds).toEqual(["turn-2"]);
    expect(rolled.toolCallIds).toEqual(["t2_b", "t2_a"]);
    expect(await workspaceState(fs)).toEqual(afterTurn1);
    expect((await store.get(S, "t2_a"))?.restoredAt).not.toBeNull();

    const redone = await store.redo(S);
    expect(redone.turnIds).toEqual(["turn-2"]);
    expect(await workspaceState(fs)).toEqual(afterTurn2);
    expect((await store.get(S, "t2_a"))?.restoredAt).toBeNull();
    await expect(store.redo(S)).rejects.toMatchObject({ code: "E_SNAPSHOT_NOT_FOUND" });
  });

  it("rolls back several turns down to a given one, and new work clears redo", async () => {
    const start = await workspaceState(fs);
    const wrapped = new CapturingFilesystem(store, { sessionId: S });
    for (const turn of ["t1", "t2", "t3"]) {
      await store.beginTurn(S, turn);
      await wrapped.bind(`${turn}_call`).write("README.md", `after ${turn}`);
      await wrapped.bind(`${turn}_call`).write(`${turn}.txt`, turn);
    }
    const rolled = await store.rollback(S, { turnId: "t1" });
    expect(rolled.turnIds).toEqual(["t3", "t2", "t1"]);
    expect(await workspaceState(fs)).toEqual(start);
    await store.redo(S);
    expect((await fs.read("README.md")).content).toBe("after t1");
    await store.beginTurn(S, "t4");
    await expect(store.redo(S)).rejects.toMatchObject({ code: "E_SNAPSHOT_NOT_FOUND" });
    await expect(store.rollback(S, { turnId: "t3" })).rejects.toMatchObject({ code: "E_SNAPSHOT_NOT_FOUND" });
  });
});

describe("host workspaces", () => {
  it("refuses a state directory inside the workspace", async () => {
    const root = await tempDir("wink-undo-host-");
    const host = new HostFilesystem({ root, durable: false });
    await expect(UndoStore.create({ workspace: host, stateDir: join(root, ".state") })).rejects.toMatchObject({ code: "EINVAL" });
  });

  it("restores file modes and refuses to capture through symlinks", async () => {
    const root = await tempDir("wink-undo-host-");
    const host = new HostFilesystem({ root, durable: false });
    await host.write("run.sh", "#!/bin/sh\n", { fileMode: 0o755 });
    await symlink("/etc/hostname", join(root, "link"));
    const hostStore = await UndoStore.create({ workspace: host, stateDir: await tempDir("wink-undo-state-") });
    const call = new CapturingFilesystem(hostStore, { sessionId: S, toolCallId: "tc_1" });
    await call.delete("run.sh");
    await call.write("run.sh", "replaced", { fileMode: 0o600 });
    await hostStore.restore(S, "tc_1");
    expect((await host.stat("run.sh")).mode).toBe(0o755);
    expect((await host.read("run.sh")).content).toBe("#!/bin/sh\n");
    await expect(call.bind("tc_2").delete("link")).rejects.toMatchObject({ code: "EACCES", data: { reason: "undo-capture" } });
    expect(existsSync(join(root, "link"))).toBe(true);
  });
});
