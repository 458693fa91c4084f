import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import type { FilesystemSnapshot } from "../types.js";
import { HostSnapshots } from "./host-snapshots.js";
import { hostSnapshotContract } from "./host-snapshot-contract.js";
import { closeScanPool, PARALLEL_SCAN_MIN_ENTRIES, scanPoolStarted } from "./scan-pool.js";
import { fingerprint, ReflinkArea, TempDirs, writeTree } from "./snapshot-test-support.js";
import { RACY_MARGIN_MS } from "./workspace-scan.js";

const unknown = (name: "copy" | "reflink") => (existing: FilesystemSnapshot): FilesystemSnapshot => ({
  ...existing,
  strategy: name,
  commitRef: "00000000-0000-4000-8000-000000000000",
  storagePath: path.join(path.dirname(existing.storagePath ?? "/nonexistent"), "00000000-0000-4000-8000-000000000000"),
});

hostSnapshotContract({
  name: "copy",
  parent: () => undefined,
  create: (root, storage, stateDir) => new HostSnapshots(root, { strategy: "copy", snapshotDir: storage, treeApply: { stateDir, durable: false } }),
  storageOf: (snapshots) => snapshots.snapshotDir,
  refPattern: /^[0-9a-f-]{36}$/,
  unknown: unknown("copy"),
  flags: { symlinks: true, gitMetadata: true, exoticNames: true, directoryModes: true, touchesOnlyChanges: true, diffSeesModes: true },
});

const area = ReflinkArea.create();
afterAll(() => area.dispose());

if (area.dir !== null) {
  hostSnapshotContract({
    name: "reflink",
    parent: () => area.dir ?? undefined,
    create: (root, storage, stateDir) =>
      new HostSnapshots(root, { strategy: "reflink", snapshotDir: storage ?? path.join(area.make("store-"), "snapshots"), treeApply: { stateDir, durable: false } }),
    storageOf: (snapshots) => snapshots.snapshotDir,
    refPattern: /^[0-9a-f-]{36}$/,
    unknown: unknown("reflink"),
    flags: { symlinks: true, gitMetadata: true, exoticNames: true, directoryModes: true, touchesOnlyChanges: true, diffSeesModes: true },
  });
} else {
  // No cloning filesystem here (no FICLONE in the temp dir, and no root + mkfs.xfs for a
  // loop-mounted XFS image): the strategy must refuse clearly instead of copying silently.
  describe("host snapshots: reflink strategy without a cloning filesystem", () => {
    it("refuses to snapshot with a clear error", async () => {
      const root = mkdtempSync(path.join(tmpdir(), "wink-noreflink-"));
      const snapshotDir = mkdtempSync(path.join(tmpdir(), "wink-noreflink-store-"));
      try {
        writeFileSync(path.join(root, "a.txt"), "x");
        const snapshots = new HostSnapshots(root, { strategy: "reflink", snapshotDir, treeApply: { stateDir: snapshotDir, durable: false } });
        await expect(snapshots.snapshot()).rejects.toThrow(/cannot hold copy-on-write clones/);
        expect(readdirSync(snapshotDir).filter((name) => !name.startsWith("staging"))).toEqual([]);
      } finally {
        rmSync(root, { recursive: true, force: true });
        rmSync(snapshotDir, { recursive: true, force: true });
      }
    });
  });
}

describe("host snapshots: copy strategy above the parallel walk threshold", () => {
  const temps = new TempDirs();
  afterEach(() => temps.removeAll());
  afterAll(() => closeScanPool());

  it("snapshots, restores and diffs a workspace the scan pool walks", async () => {
    const root = temps.make("dir-pool-");
    const state = temps.make("dir-pool-state-");
    const storage = path.join(temps.make("dir-pool-store-"), "snapshots");
    const files = PARALLEL_SCAN_MIN_ENTRIES + 100;
    for (let i = 0; i < files; i++) writeTree(root, { [`d${i % 40}/f${i}.txt`]: `file ${i}\n` });
    writeTree(root, { "tool.sh": { content: "#!/bin/sh\n", mode: 0o755 }, "links/to-d1": { symlink: "../d1" } });
    const leaves = files + 2;
    // Past the racy margin, so the next snapshot may trust what the first one recorded.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 50));
    const snapshots = new HostSnapshots(root, { strategy: "copy", snapshotDir: storage, treeApply: { stateDir: state, durable: false } });
    const first = await snapshots.snapshot();
    const firstPrint = fingerprint(root);
    // The first walk (no index yet) ran on this thread and started the pool for the next ones.
    expect(await scanPoolStarted()).toBe(true);
    writeTree(root, { "d3/f3.txt": "edited", "d7/new.txt": "new" });
    rmSync(path.join(root, "d9/f9.txt"));
    const second = await snapshots.snapshot();
    // Every leaf is in the snapshot; only the two changed files (and the symlink, always remade) were written.
    expect(snapshots.lastStats).toMatchObject({ leaves, changed: 2 });
    expect(statSync(path.join(storage, second.commitRef, "tree/d5/f5.txt")).nlink).toBe(2);
    const secondPrint = fingerprint(root);
    await snapshots.restore(first);
    expect(fingerprint(root)).toEqual(firstPrint);
    expect(snapshots.lastStats).toMatchObject({ leaves, changed: 3 });
    await snapshots.restore(second);
    expect(fingerprint(root)).toEqual(secondPrint);
    expect(await snapshots.diff(first)).toMatchObject({ added: ["d7/new.txt"], modified: ["d3/f3.txt"], deleted: ["d9/f9.txt"] });
    // A fresh instance (no index in memory) over the same storage restores from the files on disk.
    writeTree(root, { "d11/f11.txt": "edited again" });
    const other = new HostSnapshots(root, { strategy: "copy", snapshotDir: storage, treeApply: { stateDir: state, durable: false } });
    await other.restore(first);
    expect(fingerprint(root)).toEqual(firstPrint);
    await snapshots.cleanup();
  }, 60_000);
});
