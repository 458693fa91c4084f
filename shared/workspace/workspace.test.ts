import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dumpSessionTree } from "../session/dump-session.node.js";
import { Session } from "../session/session-model.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE } from "../session/workspace-items.js";
import { editFileTool, readFileTool, writeFileTool } from "../tools/index.js";
import { tempDirs } from "../undo/workspace-state.test-support.js";
import { HostWorkspace, InMemoryWorkspace } from "./workspace.js";

const temps = tempDirs();
const tempDir = (prefix: string): Promise<string> => temps.make(prefix);
afterEach(() => temps.cleanup());

describe("Workspace owner", () => {
  it("creates its backend lazily, once, hydrated from host mounts", async () => {
    const project = await tempDir("wink-ws-project-");
    await mkdir(join(project, "src"));
    await writeFile(join(project, "src", "main.py"), "print(1)\n");
    const workspace = new InMemoryWorkspace({ mounts: [{ hostPath: "src" }], allowedHostRoots: [project], snapshotDir: await tempDir("wink-ws-snap-") });
    const [a, b] = await Promise.all([workspace.filesystem(), workspace.filesystem()]);
    expect(a).toBe(b);
    expect((await a.read("src/main.py")).content).toBe("print(1)\n");
    expect(workspace.mounts.map((m) => [m.mountPath, m.files])).toEqual([["src", 1]]);
    expect(await workspace.snapshots()).toBe(await workspace.snapshots());
  });

  it("exports a snapshot into the session and restores it into another backend", async () => {
    const snapshotDir = await tempDir("wink-ws-snap-");
    const session = new Session({ sessionId: "sess-1" });
    const memory = new InMemoryWorkspace({ session, snapshotDir });
    const fs = await memory.filesystem();
    await fs.write("src/app.ts", "v1\n");
    const ref = await memory.exportSnapshot();
    expect(ref).toEqual({ __type__: "wink_debug.session:FilesystemSnapshotRef", archive_path: expect.stringMatching(/\.fs\.zip$/), file_count: 1, total_bytes: 3 });
    expect(session.latest(FILESYSTEM_SNAPSHOT_REF_TYPE)).toEqual(ref);

    await fs.write("src/app.ts", "v2\n");
    expect(await memory.restoreFromSnapshot()).toBe(true);
    expect((await fs.read("src/app.ts")).content).toBe("v1\n");

    // A host workspace opened with the same session gets the files back (cross-backend).
    const host = new HostWorkspace({ session, snapshotDir });
    const hostFs = await host.filesystem();
    expect((await hostFs.read("src/app.ts")).content).toBe("v1\n");
    const root = hostFs.root;
    await host.close();
    expect(existsSync(root)).toBe(false);
  });

  it("returns false when there is nothing to restore", async () => {
    const workspace = new InMemoryWorkspace({ session: new Session(), snapshotDir: await tempDir("wink-ws-snap-") });
    expect(await workspace.restoreFromSnapshot()).toBe(false);
    const session = new Session();
    session.replace(FILESYSTEM_SNAPSHOT_REF_TYPE, [{ archive_path: "/nowhere/gone.fs.zip", file_count: 0, total_bytes: 0 }]);
    expect(await new InMemoryWorkspace({ session }).restoreFromSnapshot()).toBe(false);
  });

  it("restores from a session file written by dumpSessionTree", async () => {
    const out = await tempDir("wink-ws-out-");
    const session = new Session({ sessionId: "dumped" });
    const workspace = new InMemoryWorkspace({ session });
    await (await workspace.filesystem()).write("notes.md", "# saved\n");
    session.append("demo:Note", { text: "hello" });
    const jsonl = await dumpSessionTree(session, out, { filesystem: await workspace.filesystem() });
    const resumed = new HostWorkspace();
    try {
      expect(await resumed.restoreFromSessionFile(jsonl ?? "")).toBe(true);
      expect((await (await resumed.filesystem()).read("notes.md")).content).toBe("# saved\n");
    } finally {
      await resumed.close();
    }
  });

  it("runs tool calls with per-call undo", async () => {
    const session = new Session({ sessionId: "undo-session" });
    const workspace = new InMemoryWorkspace({ session, undo: { stateDir: await tempDir("wink-ws-undo-") } });
    const fs = await workspace.filesystem();
    await fs.write("a.txt", "one\n");
    expect((await workspace.invoke(editFileTool, { file_path: "a.txt", old_string: "one", new_string: "two" }, "tc_1")).success).toBe(true);
    expect((await workspace.invoke(writeFileTool, { file_path: "b.txt", content: "b" }, "tc_2")).success).toBe(true);
    expect((await workspace.invoke(readFileTool, { file_path: "a.txt" }, "tc_3")).value?.content).toContain("two");
    const store = await workspace.undo();
    await store.restore("undo-session", "tc_1");
    expect((await fs.read("a.txt")).content).toBe("one\n");
    expect(await fs.exists("b.txt")).toBe(true);
    const context = await workspace.toolContext("tc_4");
    await writeFileTool.handler({ file_path: "c.txt", content: "c" }, context);
    expect((await store.get("undo-session", "tc_4"))?.paths).toEqual(["c.txt"]);
  });
});
