/**
 * The container variant of the workspace owner, against a real Podman container: host mounts
 * land in /workspace, a shell command run in the container is caught by the change tracker
 * and undone, and the workspace's archive restores into the in-memory variant.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { Session } from "../session/session-model.js";
import { WorkspaceChangeTracker } from "../undo/workspace-changes.node.js";
import { ContainerWorkspace } from "./container-workspace.js";
import { InMemoryWorkspace } from "./workspace.js";

const temps: string[] = [];
const workspaces: ContainerWorkspace[] = [];
afterEach(async () => {
  for (const workspace of workspaces.splice(0)) await workspace.close();
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

it("hydrates /workspace, undoes a shell command run in the container, and exports to other backends", { timeout: 180_000 }, async () => {
  const project = await mkdtemp(join(tmpdir(), "wink-cws-project-"));
  const snapshotDir = await mkdtemp(join(tmpdir(), "wink-cws-snap-"));
  temps.push(project, snapshotDir);
  await mkdir(join(project, "app"));
  await writeFile(join(project, "app", "main.sh"), "echo hello\n");
  const session = new Session({ sessionId: "container-session" });
  const workspace = new ContainerWorkspace({ session, snapshotDir, mounts: [{ hostPath: "app" }], allowedHostRoots: [project], sandbox: { filesystem: { durable: false } } });
  workspaces.push(workspace);

  const fs = await workspace.filesystem();
  expect(fs.mountPoint).toBe("/workspace");
  expect((await fs.read("/workspace/app/main.sh")).content).toBe("echo hello\n");
  const sandbox = await workspace.sandbox();

  const tracker = new WorkspaceChangeTracker(await workspace.undo());
  const changes = await tracker.track(session.sessionId, "tc_shell", () => sandbox.exec(["/bin/sh", "-c", "cd /workspace && sh app/main.sh > out.txt && rm app/main.sh && mkdir -p build/tmp"]));
  expect(changes.result.exitCode).toBe(0);
  expect(changes.changedPaths).toEqual(["app/main.sh", "build", "out.txt"]);
  expect((await fs.read("out.txt")).content).toBe("hello\n");

  await (await workspace.undo()).restore(session.sessionId, "tc_shell");
  const listing = await sandbox.exec(["/bin/sh", "-c", "cd /workspace && find . | sort"]);
  expect(listing.stdout.toString()).toBe(".\n./app\n./app/main.sh\n");

  await fs.write("app/extra.txt", "from the host side\n");
  await workspace.exportSnapshot();
  const memory = new InMemoryWorkspace({ session, snapshotDir });
  const memoryFs = await memory.filesystem();
  expect((await memoryFs.read("app/extra.txt")).content).toBe("from the host side\n");
  expect((await memoryFs.read("app/main.sh")).content).toBe("echo hello\n");
});
