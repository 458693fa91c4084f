/**
 * Snapshots through `HostFilesystem` itself (it delegates to HostSnapshots): the spec's
 * usage example and the SnapshotableFilesystem contract over the real protocol.
 */
import { afterEach, describe, expect, it } from "vitest";

import { PermissionDeniedError } from "../../../errors.js";
import { HostFilesystem, type HostFilesystemOptions } from "../host-filesystem.js";
import { SnapshotStore } from "./snapshot-store.js";
import { isSnapshotable, type FilesystemSnapshot } from "../../snapshot-contract.js";
import { TempDirs } from "./snapshot.test-support.js";

const temps = new TempDirs();
const open: HostFilesystem[] = [];
afterEach(async () => {
  for (const fs of open.splice(0)) {
    temps.track(fs.gitDir);
    await fs.cleanup();
  }
  temps.removeAll();
});

function hostFs(options: { readOnly?: boolean; root?: string; snapshots?: HostFilesystemOptions["snapshots"] } = {}): HostFilesystem {
  const fs = new HostFilesystem({
    root: options.root ?? temps.make("ws-"),
    stateDir: temps.make("state-"),
    durable: false,
    ...(options.readOnly ? { readOnly: true } : {}),
    ...(options.snapshots === undefined ? {} : { snapshots: options.snapshots }),
  });
  open.push(fs);
  return fs;
}

describe("HostFilesystem snapshot retention", () => {
  const take = async (fs: HostFilesystem, count: number, from = 0): Promise<FilesystemSnapshot[]> => {
    const records: FilesystemSnapshot[] = [];
    for (let i = from; i < from + count; i++) {
      await fs.write("f.txt", String(i));
      records.push(await fs.snapshot());
    }
    return records;
  };
  const ids = (records: readonly FilesystemSnapshot[]): string[] => records.map((record) => record.snapshotId);

  it("keeps the spec's 10 snapshots of the storage by default, those of earlier instances included", async () => {
    const gitDir = `${temps.make("git-")}/repo`;
    const root = temps.make("ws-");
    const first = hostFs({ root, snapshots: { gitDir, retention: null } });
    const earlier = await take(first, 6);
    expect(await first.snapshots.list()).toHaveLength(6);
    const second = hostFs({ root, snapshots: { gitDir } });
    const later = await take(second, 6, 6);
    expect(ids(await second.snapshots.list())).toEqual(ids([...earlier.slice(2), ...later]));
    await expect(second.restore(earlier[0] as FilesystemSnapshot)).rejects.toMatchObject({ code: "E_SNAPSHOT_RESTORE" });
    await second.restore(earlier[2] as FilesystemSnapshot);
    expect((await second.read("f.txt")).content).toBe("2");
  });

  it("with a persistent store, prunes the store's records by default and frees their storage", async () => {
    const store = new SnapshotStore(temps.make("records-"));
    const fs = hostFs({ snapshots: { store } });
    const taken = await take(fs, 12);
    expect(ids(await store.list())).toEqual(ids(taken.slice(2)));
    expect(ids(await fs.snapshots.list())).toEqual(ids(taken.slice(2)));
    await expect(fs.restore(taken[1] as FilesystemSnapshot)).rejects.toMatchObject({ code: "E_SNAPSHOT_RESTORE" });
  });

  it("prunes by a given policy, keeps tagged snapshots, and keeps everything with retention null", async () => {
    const small = hostFs({ snapshots: { retention: { maxCount: 2 } } });
    await small.write("f.txt", "tagged");
    const tagged = await small.snapshot({ tag: "release" });
    const taken = await take(small, 3);
    expect(ids(await small.snapshots.list())).toEqual(ids([tagged, taken[2] as FilesystemSnapshot]));
    const all = hostFs({ snapshots: { retention: null } });
    expect(await take(all, 12)).toHaveLength(12);
    expect(await all.snapshots.list()).toHaveLength(12);
  });
});

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
