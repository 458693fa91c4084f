import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { SnapshotError, SnapshotNotFoundError, SnapshotRestoreError } from "../../../errors.js";
import { HostFilesystem } from "../host-filesystem.js";
import { HostSnapshots } from "./host-snapshots.js";
import { TempDirs, writeTree } from "./snapshot.test-support.js";
import { SnapshotStore } from "./snapshot-store.js";
import { readDirectoryOwners } from "./directory-manifest.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";

const temps = new TempDirs();
const open: HostSnapshots[] = [];

afterEach(async () => {
  for (const snapshots of open.splice(0)) {
    temps.track(snapshots.gitDir);
    temps.track(snapshots.snapshotDir);
    await snapshots.cleanup();
  }
  temps.removeAll();
});

function host(strategy: "git" | "copy" | "archive", options: { store?: SnapshotStore; retention?: { maxCount: number } } = {}): { root: string; snapshots: HostSnapshots } {
  const root = temps.make("ws-");
  const state = temps.make("state-");
  const filesystem = strategy === "archive" ? new HostFilesystem({ root, stateDir: state, durable: false }) : null;
  const snapshots = new HostSnapshots(root, { strategy, treeApply: { stateDir: state, durable: false }, filesystem, ...options });
  open.push(snapshots);
  return { root, snapshots };
}

describe("SnapshotStore", () => {
  it("saves records as JSON files that a new store instance loads and lists by creation time", async () => {
    const dir = path.join(temps.make("store-"), "records");
    const { root, snapshots } = host("git");
    writeTree(root, { "a.txt": "1" });
    const first = await snapshots.snapshot({ tag: "one" });
    const second = await snapshots.snapshot();
    const store = new SnapshotStore(dir);
    await store.save(second);
    await store.save(first);
    expect(readdirSync(dir).sort()).toEqual([`${first.snapshotId}.json`, `${second.snapshotId}.json`].sort());

    const reopened = new SnapshotStore(dir); // as after a restart
    expect(await reopened.load(first.snapshotId)).toEqual(first);
    expect((await reopened.list()).map((r) => r.snapshotId)).toEqual([first.snapshotId, second.snapshotId]);
    // The record restores in yet another instance.
    writeTree(root, { "a.txt": "2" });
    const fresh = new HostSnapshots(root, { strategy: "git", treeApply: { stateDir: temps.make("state-"), durable: false } });
    await fresh.restore(await reopened.load(first.snapshotId));
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("1");
  });

  it("reports missing and damaged records clearly and lists around them", async () => {
    const dir = temps.make("store-");
    const store = new SnapshotStore(dir);
    await expect(store.load("nope")).rejects.toBeInstanceOf(SnapshotNotFoundError);
    await expect(store.load("../escape")).rejects.toThrow(/Invalid snapshot id/);
    writeFileSync(path.join(dir, "broken.json"), "{not json");
    writeFileSync(path.join(dir, "other.json"), JSON.stringify({ snapshotId: "other" }));
    await expect(store.load("broken")).rejects.toBeInstanceOf(SnapshotError);
    await expect(store.load("other")).rejects.toThrow(/not a snapshot record/);
    expect(await store.list()).toEqual([]);
    await expect(store.save({ snapshotId: "x" } as unknown as FilesystemSnapshot)).rejects.toThrow(/Not a snapshot record/);
    expect(await store.delete("nope")).toBe(false);
  });

  for (const strategy of ["git", "copy", "archive"] as const) {
    it(`${strategy}: pruning frees the storage behind the pruned records`, async () => {
      const dir = temps.make("store-");
      const store = new SnapshotStore(dir);
      const { root, snapshots } = host(strategy);
      const taken: FilesystemSnapshot[] = [];
      for (let i = 0; i < 5; i++) {
        writeTree(root, { "a.txt": `version ${i}`, [`only-${i}.txt`]: "x".repeat(1000 + i) });
        const record = await snapshots.snapshot(i === 0 ? { tag: "keep me" } : {});
        taken.push(record);
        await store.save(record);
      }
      expect(await store.prune({ maxCount: 3 })).toBe(2);
      const kept = (await store.list()).map((r) => r.snapshotId);
      expect(kept).toEqual([taken[0], taken[3], taken[4]].map((r) => r?.snapshotId));
      // The pruned ones cannot be restored any more; the kept ones can.
      // A copy snapshot stores only what changed and reads the rest from earlier trees, so a
      // pruned tree lives on exactly while a kept snapshot reads from it (whether a file was
      // re-stored or pointed at depends on how its mtime compares with the index's clock).
      const readFrom = new Set(strategy === "copy" ? [taken[0], taken[3], taken[4]].flatMap((record) => readDirectoryOwners(record?.storagePath as string) ?? []) : []);
      for (const gone of [taken[1], taken[2]] as FilesystemSnapshot[]) {
        await expect(snapshots.restore(gone)).rejects.toBeInstanceOf(SnapshotRestoreError);
        if (strategy !== "git") expect(existsSync(gone.storagePath as string)).toBe(readFrom.has(path.basename(gone.storagePath as string)));
      }
      if (strategy === "git") {
        const refs = execFileSync("git", [`--git-dir=${snapshots.gitDir as string}`, "for-each-ref", "--format=%(refname)", "refs/wink/snapshots/"]).toString().trim().split("\n");
        expect(refs.sort()).toEqual(kept.map((id) => `refs/wink/snapshots/${id}`).sort());
      }
      await snapshots.restore(taken[0] as FilesystemSnapshot);
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("version 0");
      expect(await store.delete((taken[4] as FilesystemSnapshot).snapshotId)).toBe(true);
      await expect(snapshots.restore(taken[4] as FilesystemSnapshot)).rejects.toBeInstanceOf(SnapshotRestoreError);
      // With every record gone, so is every tree.
      for (const record of [taken[0], taken[3]]) expect(await store.delete((record as FilesystemSnapshot).snapshotId)).toBe(true);
      if (strategy !== "git") for (const record of taken) expect(existsSync((record as FilesystemSnapshot).storagePath as string)).toBe(false);
    });
  }

  it("takes records straight from HostSnapshots and applies its retention policy after each snapshot", async () => {
    const store = new SnapshotStore(temps.make("store-"));
    const { root, snapshots } = host("git", { store, retention: { maxCount: 2 } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      writeTree(root, { "a.txt": `v${i}` });
      ids.push((await snapshots.snapshot()).snapshotId);
    }
    expect((await store.list()).map((r) => r.snapshotId)).toEqual(ids.slice(2));
    expect((await snapshots.list()).map((r) => r.snapshotId)).toEqual(ids.slice(2));
  });
});
