import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { SnapshotRestoreError } from "../../../errors.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { HostSnapshots } from "./host-snapshots.js";
import { hostSnapshotContract } from "./host-snapshot-contract.test-support.js";
import { releaseSnapshotStorage } from "./release.js";
import { closeScanPool, PARALLEL_SCAN_MIN_ENTRIES, scanPoolStarted } from "./scan-pool.js";
import { fingerprint, ReflinkArea, TempDirs, writeTree } from "./snapshot.test-support.js";
import { RACY_MARGIN_MS } from "./workspace-scan.js";

/** Relative paths of the files and symlinks under `dir`, sorted. */
function storedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

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
    // Every leaf is in the snapshot; only the two changed files (and the symlink, always remade) were stored.
    expect(snapshots.lastStats).toMatchObject({ leaves, changed: 2 });
    expect(storedFiles(path.join(storage, second.commitRef, "tree"))).toEqual(["d3/f3.txt", "d7/new.txt", "links/to-d1"]);
    expect(existsSync(path.join(storage, first.commitRef, "tree/d5/f5.txt"))).toBe(true);
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

describe("host snapshots: copy snapshots that share stored files", () => {
  const temps = new TempDirs();
  afterEach(() => temps.removeAll());

  function setup(): { root: string; state: string; storage: string; open: () => HostSnapshots } {
    const root = temps.make("dir-share-");
    const state = temps.make("dir-share-state-");
    const storage = path.join(temps.make("dir-share-store-"), "snapshots");
    const open = (): HostSnapshots => new HostSnapshots(root, { strategy: "copy", snapshotDir: storage, treeApply: { stateDir: state, durable: false } });
    return { root, state, storage, open };
  }
  // Past the racy margin, so the next snapshot may trust what the last one recorded.
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 50));

  it("keeps a released snapshot's files while a later snapshot reads them, and frees them with the last one", async () => {
    const { root, storage, open } = setup();
    writeTree(root, { "a.txt": "a1", "b.txt": "b1", "sub/c.txt": "c1", "sub/empty": { dir: true } });
    await settle();
    const snapshots = open();
    const first = await snapshots.snapshot();
    writeTree(root, { "a.txt": "a2 longer" });
    const second = await snapshots.snapshot();
    const secondPrint = fingerprint(root);
    // The second snapshot stored only what changed; b.txt and sub/c.txt are read from the first.
    expect(storedFiles(path.join(storage, second.commitRef, "tree"))).toEqual(["a.txt"]);
    expect(new Set(JSON.parse(readFileSync(path.join(storage, second.commitRef, "owners.json"), "utf8")) as string[])).toEqual(new Set([first.commitRef, second.commitRef]));

    await snapshots.release(first);
    expect((await snapshots.list()).map((s) => s.snapshotId)).toEqual([second.snapshotId]);
    await expect(snapshots.restore(first)).rejects.toBeInstanceOf(SnapshotRestoreError);
    expect(existsSync(path.join(storage, first.commitRef, "tree", "b.txt"))).toBe(true);

    rmSync(path.join(root, "b.txt"));
    writeTree(root, { "sub/c.txt": "changed", "new.txt": "new" });
    await snapshots.restore(second);
    expect(fingerprint(root)).toEqual(secondPrint);
    expect(await snapshots.diff(second)).toMatchObject({ added: [], modified: [], deleted: [], unchangedCount: 3 });

    // What a crash in an earlier collection left behind goes with the next one.
    writeTree(storage, { ".released-leftover/tree/x": "x" });
    await snapshots.release(second);
    expect(readdirSync(storage).filter((name) => name !== "index.json")).toEqual([]);

    // The index now names trees that are gone: the next snapshot stores every file again.
    writeTree(root, { "a.txt": "a3" });
    const third = await snapshots.snapshot();
    expect(storedFiles(path.join(storage, third.commitRef, "tree"))).toEqual(["a.txt", "b.txt", "sub/c.txt"]);
    const thirdPrint = fingerprint(root);
    rmSync(path.join(root, "sub"), { recursive: true });
    await snapshots.restore(third);
    expect(fingerprint(root)).toEqual(thirdPrint);
    await snapshots.cleanup();
  });

  it("frees released snapshots through records alone, as a snapshot store's prune does", async () => {
    const { root, storage, open } = setup();
    writeTree(root, { "a.txt": "a1", "b.txt": "b1" });
    await settle();
    const snapshots = open();
    const records = [await snapshots.snapshot()];
    for (const version of ["a2", "a3 longer", "a4"]) {
      writeTree(root, { "a.txt": version });
      records.push(await snapshots.snapshot());
    }
    const [r0, r1, r2, r3] = records as [FilesystemSnapshot, FilesystemSnapshot, FilesystemSnapshot, FilesystemSnapshot];
    // r0 holds b.txt for all of them; r1 and r2 hold nothing the others read.
    expect(await releaseSnapshotStorage([r1, r2, r0])).toBe(3);
    expect(readdirSync(storage).sort()).toEqual([r0.commitRef, r3.commitRef, "index.json"].sort());
    rmSync(path.join(root, "b.txt"));
    await open().restore(r3);
    expect(readFileSync(path.join(root, "b.txt"), "utf8")).toBe("b1");
    await expect(open().restore(r1)).rejects.toThrow(/does not exist/);
    await releaseSnapshotStorage([r3]);
    expect(readdirSync(storage)).toEqual(["index.json"]);
  });

  it("still reads version-1 snapshots (a whole tree each) and their index", async () => {
    const { root, storage, open } = setup();
    writeTree(root, { "a.txt": "a1", "d/b.txt": "b1", "tool.sh": { content: "#!/bin/sh\n", mode: 0o755 } });
    await settle();
    const old = await open().snapshot();
    const oldPrint = fingerprint(root);
    // Rewrite what was stored as version 1 wrote it: no owners, no owner per leaf, no owner in the index.
    const dir = path.join(storage, old.commitRef);
    const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as { leaves: unknown[][]; owners?: unknown; version: number };
    writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ ...manifest, version: 1, owners: undefined, leaves: manifest.leaves.map((leaf) => leaf.slice(0, 5)) }));
    rmSync(path.join(dir, "owners.json"));
    const index = JSON.parse(readFileSync(path.join(storage, "index.json"), "utf8")) as { entries: unknown[][] };
    writeFileSync(path.join(storage, "index.json"), JSON.stringify({ ...index, entries: index.entries.map((entry) => [...entry.slice(0, 7), ""]) }));

    const snapshots = open();
    expect((await snapshots.list()).map((s) => s.snapshotId)).toEqual([old.snapshotId]);
    writeTree(root, { "a.txt": "a2 longer" });
    const next = await snapshots.snapshot();
    // The version-1 index vouches for the unchanged files, which the old tree holds.
    expect(storedFiles(path.join(storage, next.commitRef, "tree"))).toEqual(["a.txt"]);
    expect(await snapshots.diff(old, next)).toMatchObject({ added: [], modified: ["a.txt"], deleted: [], unchangedCount: 2 });
    rmSync(path.join(root, "d"), { recursive: true });
    await snapshots.restore(old);
    expect(fingerprint(root)).toEqual(oldPrint);
    // Released, the version-1 snapshot stays while the new one reads from it.
    await snapshots.release(old);
    expect(existsSync(path.join(storage, old.commitRef, "tree", "d", "b.txt"))).toBe(true);
    await snapshots.restore(next);
    expect(readFileSync(path.join(root, "d/b.txt"), "utf8")).toBe("b1");
    await snapshots.cleanup();
  });
});
