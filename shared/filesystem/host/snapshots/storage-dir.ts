/**
 * Where snapshot storage may live: never inside the workspace (an agent could read or
 * rewrite its own snapshots, and every snapshot would contain the previous ones).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { SnapshotIncompatibleError } from "../../../errors.js";

/** Throw SnapshotIncompatibleError when `dir` is the workspace root or inside it. */
export function assertOutsideWorkspace(dir: string, root: string, what: string): void {
  const inside = path.relative(root, dir);
  if (inside === "" || (!inside.startsWith("..") && !path.isAbsolute(inside))) {
    throw new SnapshotIncompatibleError(`The ${what} ${dir} must be outside the workspace ${root}`, { storageDir: dir, root });
  }
}

/** `dir`, or a new `<tmp>/<prefix>XXXXXX` when null; checked to be outside `root` and created. */
export function ensureStorageDir(dir: string | null, root: string, prefix: string, what: string): string {
  const chosen = dir ?? mkdtempSync(path.join(tmpdir(), prefix));
  assertOutsideWorkspace(chosen, root, what);
  mkdirSync(chosen, { recursive: true, mode: 0o700 });
  return chosen;
}
