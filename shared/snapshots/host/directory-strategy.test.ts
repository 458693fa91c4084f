import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import type { FilesystemSnapshot } from "../types.js";
import { HostSnapshots } from "./host-snapshots.js";
import { hostSnapshotContract } from "./host-snapshot-contract.js";
import { ReflinkArea } from "./snapshot-test-support.js";

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
