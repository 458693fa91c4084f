/**
 * Snapshots through `HostFilesystem` itself (it delegates to HostSnapshots): the spec's
 * usage example and the SnapshotableFilesystem contract over the real protocol.
 */
import { afterEach, describe, expect, it } from "vitest";

import { PermissionDeniedError } from "../../errors.js";
import { HostFilesystem } from "../../filesystem/host/host-filesystem.js";
import { isSnapshotable } from "../types.js";
import { TempDirs } from "./snapshot-test-support.js";

const temps = new TempDirs();
const open: HostFilesystem[] = [];
afterEach(async () => {
  for (const fs of open.splice(0)) {
    temps.track(fs.gitDir);
    await fs.cleanup();
  }
  temps.removeAll();
});

function hostFs(options: { readOnly?: boolean; root?: string } = {}): HostFilesystem {
  const fs = new HostFilesystem({ root: options.root ?? temps.make("ws-"), stateDir: temps.make("state-"), durable: false, ...(options.readOnly ? { readOnly: true } : {}) });
  open.push(fs);
  return fs;
}

describe("HostFilesystem snapshots", () => {
  it("follows the spec's usage example with git by default", async () => {
    const fs = hostFs();
    expect(isSnapshotable(fs)).toBe(true);
    expect(fs.gitDir).toBeNull();
    expect(fs.currentSnapshotId).toBeNull();
    await fs.write("config.py", "DEBUG = True");
    const v1 = await fs.snapshot({ tag: "initial" });
    expect(fs.snapshots.strategy).toBe("git");
    expect(v1.gitDir).toBe(fs.gitDir);
    expect(v1.rootPath).toBe(fs.root);
    await fs.write("config.py", "DEBUG = False");
    await fs.write("tests.py", "import pytest");
    const v2 = await fs.snapshot({ tag: "with-tests" });
    expect(await fs.diff(v1, v2)).toEqual({ added: ["tests.py"], modified: ["config.py"], deleted: [], unchangedCount: 0 });
    await fs.restore(v1);
    expect((await fs.read("config.py")).content).toBe("DEBUG = True");
    expect(await fs.exists("tests.py")).toBe(false);
    expect(fs.currentSnapshotId).toBe(v1.snapshotId);
    await fs.restore(v2);
    expect((await fs.read("config.py")).content).toBe("DEBUG = False");
    expect(await fs.exists("tests.py")).toBe(true);
    expect(await fs.diff(v2)).toEqual({ added: [], modified: [], deleted: [], unchangedCount: 2 });
  });

  it("takes the strategy and storage from its options", async () => {
    const snapshotDir = temps.make("snaps-");
    const fs = new HostFilesystem({ root: temps.make("ws-"), stateDir: temps.make("state-"), durable: false, snapshots: { strategy: "copy", snapshotDir } });
    open.push(fs);
    await fs.write("a.txt", "1");
    const snap = await fs.snapshot();
    expect(snap.strategy).toBe("copy");
    expect(snap.storagePath?.startsWith(snapshotDir)).toBe(true);
    await fs.write("a.txt", "2");
    await fs.restore(snap);
    expect((await fs.read("a.txt")).content).toBe("1");
  });

  it("refuses to restore into a read-only filesystem but can snapshot it", async () => {
    const writable = hostFs();
    await writable.write("a.txt", "1");
    const snap = await writable.snapshot();
    await writable.write("a.txt", "2");
    const readOnly = hostFs({ readOnly: true, root: writable.root });
    const own = await readOnly.snapshot();
    expect(own.fileCount).toBe(1);
    await expect(readOnly.restore(snap)).rejects.toBeInstanceOf(PermissionDeniedError);
    expect((await writable.read("a.txt")).content).toBe("2");
  });
});
