import path from "node:path";
import { afterAll } from "vitest";

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

hostSnapshotContract({
  name: "reflink",
  parent: () => area.dir ?? undefined,
  create: (root, storage, stateDir) =>
    new HostSnapshots(root, { strategy: "reflink", snapshotDir: storage ?? (area.dir === null ? null : path.join(area.make("store-"), "snapshots")), treeApply: { stateDir, durable: false } }),
  storageOf: (snapshots) => snapshots.snapshotDir,
  refPattern: /^[0-9a-f-]{36}$/,
  unknown: unknown("reflink"),
  flags: { symlinks: true, gitMetadata: true, exoticNames: true, directoryModes: true, touchesOnlyChanges: true, diffSeesModes: true },
});
