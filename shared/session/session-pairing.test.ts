// docs/session-format.md's pairing — `session.snapshot(id)` beside a filesystem snapshot of the
// same id, then `rollbackWithFilesystem(session, target, id)` — through the public entry.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ArchiveSnapshotManager, InMemoryFilesystem, Session, SnapshotNotFoundError, rollbackWithFilesystem, snapshotWithFilesystem } from "../index.js";

const PLAN = "demo.plans:Plan";
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function archiveDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "wink-pairing-"));
  dirs.push(dir);
  return dir;
}

describe("rollbackWithFilesystem after session.snapshot(id) and a filesystem snapshot of the same id", () => {
  it("rolls both back with an archive manager", async () => {
    const fs = new InMemoryFilesystem();
    const manager = new ArchiveSnapshotManager(fs, await archiveDir());
    const session = new Session({ sessionId: "root" });
    await fs.write("src/lib.rs", "v1");
    session.append(PLAN, { step: 1 });
    session.snapshot("turn-1");
    await manager.snapshot("turn-1");

    await fs.write("src/lib.rs", "v2");
    await fs.write("src/new.rs", "x");
    session.append(PLAN, { step: 2 });
    await rollbackWithFilesystem(session, manager, "turn-1");
    expect((await fs.read("src/lib.rs")).content).toBe("v1");
    expect(await fs.exists("src/new.rs")).toBe(false);
    expect(session.items(PLAN)).toEqual([{ step: 1 }]);
  });

  it("takes the manager's snapshot of that id over an older reference the session carries", async () => {
    const fs = new InMemoryFilesystem();
    const manager = new ArchiveSnapshotManager(fs, await archiveDir());
    const session = new Session({ sessionId: "root" });
    await fs.write("a.txt", "one");
    await snapshotWithFilesystem(session, manager, { snapshotId: "turn-1" });
    await fs.write("a.txt", "two");
    session.snapshot("turn-2");
    await manager.snapshot("turn-2");
    await fs.write("a.txt", "three");
    await rollbackWithFilesystem(session, manager, "turn-2");
    expect((await fs.read("a.txt")).content).toBe("two");
    await rollbackWithFilesystem(session, manager, "turn-1");
    expect((await fs.read("a.txt")).content).toBe("one");
  });

  it("refuses a native target paired only by id, naming the way that pairs it, and changes nothing", async () => {
    const fs = new InMemoryFilesystem();
    const session = new Session({ sessionId: "root" });
    await fs.write("a.txt", "one");
    session.append(PLAN, { step: 1 });
    session.snapshot("turn-1");
    await fs.snapshot({ tag: "turn-1" });
    await fs.write("a.txt", "two");
    session.append(PLAN, { step: 2 });
    const failure = await rollbackWithFilesystem(session, fs, "turn-1").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SnapshotNotFoundError);
    expect((failure as Error).message).toContain("snapshotWithFilesystem(session, filesystem, { snapshotId: \"turn-1\" })");
    expect((await fs.read("a.txt")).content).toBe("two");
    expect(session.items(PLAN)).toEqual([{ step: 1 }, { step: 2 }]);

    await snapshotWithFilesystem(session, fs, { snapshotId: "turn-2" });
    await fs.write("a.txt", "three");
    await rollbackWithFilesystem(session, fs, "turn-2");
    expect((await fs.read("a.txt")).content).toBe("two");
  });

  it("says which side is missing when the archive manager has no snapshot of that id", async () => {
    const fs = new InMemoryFilesystem();
    const manager = new ArchiveSnapshotManager(fs, await archiveDir());
    const session = new Session({ sessionId: "root" });
    session.snapshot("turn-9");
    await expect(rollbackWithFilesystem(session, manager, "turn-9")).rejects.toThrow(/archive manager has no snapshot "turn-9"/);
  });
});
