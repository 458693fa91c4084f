// The persistent SnapshotStore (spec filesystem-protocol-tiered-snapshots.md §SnapshotStore:
// save, load, list, delete, prune) as a user reaches it: through the public entry, with a real
// HostFilesystem and record files in a real temp folder.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HostFilesystem, SnapshotNotFoundError, SnapshotRestoreError, SnapshotStore, type FilesystemSnapshot, type SnapshotReleaser, type SnapshotStoreOptions } from "../index.js";

const dirs: string[] = [];
const open: HostFilesystem[] = [];
afterEach(async () => {
  for (const fs of open.splice(0)) await fs.cleanup();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `wink-store-entry-${prefix}`));
  dirs.push(dir);
  return dir;
}
function workspace(store: SnapshotStore | null): { root: string; fs: HostFilesystem } {
  const root = tempDir("ws-");
  const snapshotDir = tempDir("snaps-");
  const fs = new HostFilesystem({ root, stateDir: tempDir("state-"), durable: false, snapshots: { strategy: "copy", snapshotDir, store, retention: null } });
  open.push(fs);
  return { root, fs };
}

describe("SnapshotStore through wink-debug/shared", () => {
  it("saves, loads after a restart, lists oldest first, deletes and prunes, freeing the storage", async () => {
    const recordsDir = path.join(tempDir("records-"), "records");
    const { root, fs } = workspace(null);
    const taken: FilesystemSnapshot[] = [];
    for (let i = 0; i < 4; i++) {
      writeFileSync(path.join(root, "a.txt"), `version ${i}`);
      taken.push(await fs.snapshot(i === 0 ? { tag: "keep" } : {}));
    }
    const [first, second, third, fourth] = taken as [FilesystemSnapshot, FilesystemSnapshot, FilesystemSnapshot, FilesystemSnapshot];
    const store = new SnapshotStore(recordsDir);
    for (const record of [...taken].reverse()) await store.save(record);
    expect(readdirSync(recordsDir).sort()).toEqual(taken.map((r) => `${r.snapshotId}.json`).sort());

    const reopened = new SnapshotStore(recordsDir); // as after a restart
    expect(await reopened.load(second.snapshotId)).toEqual(second);
    expect((await reopened.list()).map((r) => r.snapshotId)).toEqual(taken.map((r) => r.snapshotId));
    await expect(reopened.load("no-such-snapshot")).rejects.toBeInstanceOf(SnapshotNotFoundError);

    expect(await reopened.delete(fourth.snapshotId)).toBe(true);
    expect(await reopened.delete(fourth.snapshotId)).toBe(false);
    await expect(fs.restore(fourth)).rejects.toBeInstanceOf(SnapshotRestoreError);

    // maxCount 2 of [first (tagged), second, third]: the oldest untagged one goes.
    expect(await reopened.prune({ maxCount: 2, maxAgeHours: null, keepTagged: true })).toBe(1);
    expect((await reopened.list()).map((r) => r.snapshotId)).toEqual([first.snapshotId, third.snapshotId]);
    await expect(fs.restore(second)).rejects.toBeInstanceOf(SnapshotRestoreError);
    await fs.restore(await reopened.load(first.snapshotId));
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("version 0");
  });

  it("is the host backend's `snapshots.store`: every snapshot is recorded there, deleting it goes through the given releaser", async () => {
    const releasedIds: string[] = [];
    const release: SnapshotReleaser = async (records) => {
      releasedIds.push(...records.map((r) => r.snapshotId));
    };
    const options: SnapshotStoreOptions = { release };
    const store = new SnapshotStore(tempDir("records-"), options);
    const { root, fs } = workspace(store);
    writeFileSync(path.join(root, "a.txt"), "stored");
    const record = await fs.snapshot({ tag: "t" });
    expect(await store.load(record.snapshotId)).toEqual(record);
    expect(existsSync(path.join(store.dir, `${record.snapshotId}.json`))).toBe(true);
    expect(await store.delete(record.snapshotId)).toBe(true);
    expect(releasedIds).toEqual([record.snapshotId]);
    expect(await store.list()).toEqual([]);
  });
});
