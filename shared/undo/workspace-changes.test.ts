import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import { parseUndoManifest, undoManifestBodies } from "./manifest.js";
import { tempDirs, workspaceState } from "./workspace-state.test-support.js";
import { UndoStore } from "./undo-store.node.js";
import { WorkspaceChangeTracker } from "./workspace-changes.node.js";

const run = promisify(execFile);
const temps = tempDirs();
const tempDir = (prefix: string): Promise<string> => temps.make(prefix);
afterEach(() => temps.cleanup());


const S = "shell";

describe("in memory (snapshot strategy)", () => {
  it("records what a tool changed behind the protocol's back, and restores it", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("src/a.ts", "a");
    await fs.write("src/gone/deep/b.ts", "b");
    await fs.write("keep.txt", "keep");
    const store = await UndoStore.create({ workspace: fs, stateDir: await tempDir("wink-shell-") });
    const tracker = new WorkspaceChangeTracker(store);
    expect(tracker.strategy).toBe("snapshot");
    const start = await workspaceState(fs);
    const changes = await tracker.track(S, "tc_shell", async () => {
      await fs.write("src/a.ts", "changed");
      await fs.delete("src/gone", { recursive: true });
      await fs.write("out/build/app.js", "built");
      return "exit 0";
    });
    expect(changes.result).toBe("exit 0");
    expect(changes.changedPaths).toEqual(["out", "src/a.ts", "src/gone"]);
    expect(fs.listSnapshots()).toEqual([]);
    await store.restore(S, "tc_shell");
    expect(await workspaceState(fs)).toEqual(start);
  });

  it("records changes of a tool that fails, then rethrows", async () => {
    const fs = new InMemoryFilesystem();
    await fs.write("x.txt", "x");
    const store = await UndoStore.create({ workspace: fs, stateDir: await tempDir("wink-shell-") });
    const tracker = new WorkspaceChangeTracker(store);
    await expect(
      tracker.track(S, "tc_fail", async () => {
        await fs.write("x.txt", "half-done");
        throw new Error("command failed");
      }),
    ).rejects.toThrow("command failed");
    await store.restore(S, "tc_fail");
    expect((await fs.read("x.txt")).content).toBe("x");
  });
});

describe("on the host (manifest strategy) with a real shell", () => {
  it("restores what a shell command did, empty directories and modes included", async () => {
    const root = await tempDir("wink-shell-ws-");
    const fs = new HostFilesystem({ root, durable: false });
    await fs.write("src/main.c", "int main(){}\n");
    await fs.write("src/old/util.c", "void u(){}\n");
    await fs.mkdir("src/old/empty");
    await fs.write("run.sh", "#!/bin/sh\n", { fileMode: 0o755 });
    await fs.write("untouched.txt", "same\n");
    const store = await UndoStore.create({ workspace: fs, stateDir: await tempDir("wink-shell-state-") });
    const tracker = new WorkspaceChangeTracker(store);
    expect(tracker.strategy).toBe("manifest");
    const start = await workspaceState(fs);

    const script = "echo 'int main(){return 1;}' > src/main.c && rm -r src/old && mkdir -p build/obj/empty && echo o > build/obj/main.o && chmod 600 run.sh";
    const changes = await tracker.track(S, "tc_sh", () => run("sh", ["-c", script], { cwd: root }));
    expect(changes.changedPaths).toEqual(["build", "run.sh", "src/main.c", "src/old"]);
    await store.restore(S, "tc_sh");
    expect(await workspaceState(fs)).toEqual(start);

    // A second command reuses the pinned bodies of unchanged files; nothing changed → nothing recorded.
    const idle = await tracker.track(S, "tc_idle", () => run("true", [], { cwd: root }));
    expect(idle.changedPaths).toEqual([]);
    expect(idle.snapshot).toBeNull();
    await tracker.release(S);
    // Only bodies referenced by snapshots remain once the tracker lets go of its baseline.
    const info = await store.get(S, "tc_sh");
    const manifest = parseUndoManifest(await readFile(join(store.sessionDir(S), info?.snapshotId ?? "", "manifest.json"), "utf8"));
    const bodies = await readdir(join(store.sessionDir(S), "bodies"));
    expect(new Set(bodies)).toEqual(new Set(undoManifestBodies(manifest)));
    // main.c before and after, run.sh (mode change only), util.c, and build/obj/main.o (created).
    expect(bodies).toHaveLength(5);
  });

  it("sees a same-size rewrite that keeps the modification time when the file is recent", async () => {
    const root = await tempDir("wink-shell-ws-");
    const fs = new HostFilesystem({ root, durable: false });
    await fs.write("f.txt", "abc");
    const store = await UndoStore.create({ workspace: fs, stateDir: await tempDir("wink-shell-state-") });
    const tracker = new WorkspaceChangeTracker(store);
    // Rewrite with the same size, then put the old mtime back.
    await tracker.track(S, "tc_racy", () => run("sh", ["-c", "touch -r f.txt ref && printf xyz > f.txt && touch -r ref f.txt && rm ref"], { cwd: root }));
    expect((await store.get(S, "tc_racy"))?.paths).toEqual(["f.txt"]);
    await store.restore(S, "tc_racy");
    expect((await fs.read("f.txt")).content).toBe("abc");
  });
});
