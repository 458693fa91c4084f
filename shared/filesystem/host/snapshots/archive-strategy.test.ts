import path from "node:path";

import { HostFilesystem } from "../host-filesystem.js";
import type { FilesystemSnapshot } from "../../snapshot-contract.js";
import { HostSnapshots } from "./host-snapshots.js";
import { hostSnapshotContract } from "./host-snapshot-contract.test-support.js";

hostSnapshotContract({
  name: "archive",
  parent: () => undefined,
  create: (root, storage, stateDir) =>
    new HostSnapshots(root, {
      strategy: "archive",
      snapshotDir: storage,
      treeApply: { stateDir, durable: false },
      filesystem: new HostFilesystem({ root, stateDir, durable: false }),
    }),
  storageOf: (snapshots) => snapshots.snapshotDir,
  refPattern: /^[0-9a-f-]{36}\.fs\.zip$/,
  unknown: (existing: FilesystemSnapshot): FilesystemSnapshot => ({ ...existing, storagePath: path.join(path.dirname(existing.storagePath ?? "/nonexistent"), "missing.fs.zip") }),
  // The .fs.zip format has no symlinks and no modes of non-empty directories; the protocol
  // refuses control characters and backslashes in names and `.git` segments on import; an
  // import replaces the whole tree; archive diffs compare sizes and CRC-32s only.
  flags: { symlinks: false, gitMetadata: false, exoticNames: false, directoryModes: false, touchesOnlyChanges: false, diffSeesModes: false },
});
