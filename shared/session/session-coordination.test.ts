import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { SnapshotNotFoundError, SnapshotRestoreError } from "../errors.js";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import { Session } from "./session-model.js";
import { findFilesystemSnapshotRef } from "./workspace-items.js";
import { ArchiveSnapshotManager } from "../snapshots/archive-snapshot-manager.js";
import { HostSnapshots } from "../filesystem/host/snapshots/host-snapshots.js";
import { TempDirs, writeTree } from "../filesystem/host/snapshots/snapshot.test-support.js";
import { restoreWithFilesystem, rollbackWithFilesystem, snapshotWithFilesystem } from "./session-coordination.js";
import type { FilesystemSnapshot } from "../filesystem/snapshot-contract.js";

const PLAN = "demo.plans:Plan";
const temps = new TempDirs();
afterEach(() => temps.removeAll());

describe("session and filesystem snapshots together", () => {
  it("records the filesystem snapshot in the session before snapshotting it, and restores both (memory)", async () => {
    const fs = new InMemoryFilesystem();
    const session = new Session({ sessionId: "root" });
    await fs.write("code.py", "v1");
    session.append(PLAN, { step: 1 });
    const taken = await snapshotWithFilesystem(session, fs, { filesystemKey: "vfs.tools", tag: "checkpoint" });
    const ref = findFilesystemSnapshotRef(taken.session);
    expect(ref?.item).toMatchObject({
      __type__: "wink_debug.session:FilesystemSnapshotRef",
      snapshot_id: taken.filesystem.snapshotId,
      filesystem_key: "vfs.tools",
      backend_type: "in_memory",
      archive_path: null,
      file_count: 1,
      total_bytes: 2,
    });
    // The record in WINK's FilesystemSnapshot shape: snake_case, __type__, Python isoformat time.
    expect(ref?.item.snapshot).toMatchObject({
      __type__: "weakincentives.filesystem._types:FilesystemSnapshot",
      snapshot_id: taken.filesystem.snapshotId,
      commit_ref: "mem-1",
      root_path: "/",
      git_dir: null,
      tag: "checkpoint",
      backend: "in_memory",
    });
    expect(String((ref?.item.snapshot as Record<string, unknown>).created_at)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);

    await fs.write("code.py", "v2");
    await fs.write("new.py", "x");
    session.append(PLAN, { step: 2 });
    session.append("demo.other:Note", { text: "later" });
    await restoreWithFilesystem(session, taken.session, fs);
    expect((await fs.read("code.py")).content).toBe("v1");
    expect(await fs.exists("new.py")).toBe(false);
    expect(session.items(PLAN)).toEqual([{ step: 1 }]);
    expect(session.items("demo.other:Note")).toEqual([]);
    expect(session.snapshot().slices).toEqual(taken.session.slices);
  });

  it("works with a host filesystem's git snapshots, and leaves the session alone when the filesystem cannot be restored", async () => {
    const root = temps.make("ws-");
    const snapshots = new HostSnapshots(root, { strategy: "git", treeApply: { stateDir: temps.make("state-"), durable: false } });
    const session = new Session();
    writeTree(root, { "a.txt": "v1" });
    session.append(PLAN, { step: 1 });
    const first = await snapshotWithFilesystem(session, snapshots);
    writeTree(root, { "a.txt": "v2" });
    session.append(PLAN, { step: 2 });
    const second = await snapshotWithFilesystem(session, snapshots);
    temps.track(snapshots.gitDir);

    await restoreWithFilesystem(session, first.session, snapshots);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v1");
    expect(session.items(PLAN)).toEqual([{ step: 1 }]);

    await snapshots.release(second.filesystem as FilesystemSnapshot);
    const failing = restoreWithFilesystem(session, second.session, snapshots);
    await expect(failing).rejects.toBeInstanceOf(SnapshotRestoreError);
    expect(session.items(PLAN)).toEqual([{ step: 1 }]);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("v1");
  });

  it("uses archive snapshots with the same id through an ArchiveSnapshotManager", async () => {
    const fs = new HostFilesystem({ root: temps.make("ws-"), stateDir: temps.make("state-"), durable: false });
    const manager = new ArchiveSnapshotManager(fs, temps.make("archives-"));
    const session = new Session();
    await fs.write("src/main.py", "print('hello')");
    const taken = await snapshotWithFilesystem(session, manager, { snapshotId: "turn-5" });
    const ref = findFilesystemSnapshotRef(taken.session);
    expect(ref?.archiveName).toBe("turn-5.fs.zip");
    expect(ref?.fileCount).toBe(1);
    await fs.write("src/main.py", "print('broken')");
    await restoreWithFilesystem(session, taken.session, manager);
    expect((await fs.read("src/main.py")).content).toBe("print('hello')");

    // A new process: the manager does not know the id, the archive path in the session is enough.
    const fresh = new ArchiveSnapshotManager(fs, temps.make("archives-"));
    await fs.write("src/main.py", "print('broken again')");
    await restoreWithFilesystem(session, taken.session, fresh);
    expect((await fs.read("src/main.py")).content).toBe("print('hello')");
  });

  it("takes and rolls back both under one id, as the spec's coordinated snapshots (archive manager and native)", async () => {
    const fs = new InMemoryFilesystem();
    const manager = new ArchiveSnapshotManager(fs, temps.make("archives-"));
    const session = new Session();
    // The spec's test_coordinated_snapshots, step by step: snapshot(id) on both, then rollback(id) on both.
    await fs.write("code.py", "v1");
    session.append(PLAN, { step: 1 });
    await manager.snapshot("checkpoint");
    session.snapshot("checkpoint");
    await fs.write("code.py", "v2");
    session.append(PLAN, { step: 2 });
    session.rollback("checkpoint");
    await manager.rollback("checkpoint");
    expect((await fs.read("code.py")).content).toBe("v1");
    expect(session.items(PLAN)).toEqual([{ step: 1 }]);

    // The same through the helpers, natively and by archive.
    for (const target of [fs, manager]) {
      await fs.write("code.py", "v3");
      session.append(PLAN, { step: 3 });
      await snapshotWithFilesystem(session, target, { snapshotId: "turn-7" });
      await fs.write("code.py", "v4");
      session.append(PLAN, { step: 4 });
      await rollbackWithFilesystem(session, target, "turn-7");
      expect((await fs.read("code.py")).content).toBe("v3");
      expect(session.items(PLAN).at(-1)).toEqual({ step: 3 });
    }
    await expect(rollbackWithFilesystem(session, fs, "never-taken")).rejects.toBeInstanceOf(SnapshotNotFoundError);
    expect(() => session.rollback("never-taken")).toThrow(SnapshotNotFoundError);
  });

  it("restores from refs whose record an earlier version wrote in camelCase", async () => {
    const fs = new InMemoryFilesystem();
    const session = new Session();
    await fs.write("a.txt", "old");
    const record = await fs.snapshot();
    session.append("wink_debug.session:FilesystemSnapshotRef", { archive_path: null, file_count: 1, total_bytes: 3, snapshot_id: record.snapshotId, filesystem_key: "workspace", backend_type: "memory", snapshot: { ...record, backend: "memory" } });
    const old = session.snapshot();
    await fs.write("a.txt", "new");
    await restoreWithFilesystem(session, old, fs);
    expect((await fs.read("a.txt")).content).toBe("old");
  });

  it("refuses a session snapshot that records no filesystem snapshot", async () => {
    const session = new Session();
    session.append(PLAN, { step: 1 });
    await expect(restoreWithFilesystem(session, session.snapshot(), new InMemoryFilesystem())).rejects.toBeInstanceOf(SnapshotNotFoundError);
  });
});
