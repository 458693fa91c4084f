import { HostSnapshots } from "./host-snapshots.js";
import { hostSnapshotContract } from "./host-snapshot-contract.test-support.js";

hostSnapshotContract({
  name: "git",
  parent: () => undefined,
  create: (root, storage, stateDir) => new HostSnapshots(root, { strategy: "git", gitDir: storage, treeApply: { stateDir, durable: false } }),
  storageOf: (snapshots) => snapshots.gitDir,
  refPattern: /^[0-9a-f]{40}$/,
  unknown: (existing) => ({ ...existing, commitRef: "0".repeat(40) }),
  flags: { symlinks: true, gitMetadata: true, exoticNames: true, directoryModes: true, touchesOnlyChanges: true, diffSeesModes: true },
});
