/**
 * Automatic choice of a host snapshot strategy: git when the binary runs, else reflink
 * when the snapshot directory's filesystem clones files and is the workspace's own
 * filesystem, else plain copies.
 */
import { constants, copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { isGitAvailable } from "./git-process.js";
import type { HostSnapshotStrategyName } from "./strategy.js";

/** True when `dir` supports FICLONE (copy-on-write clones) and sits on `root`'s filesystem. */
export function supportsReflink(root: string, dir: string): boolean {
  let probe: string | null = null;
  try {
    if (statSync(root).dev !== statSync(dir).dev) return false;
    probe = mkdtempSync(path.join(dir, ".wink-reflink-probe-"));
    writeFileSync(path.join(probe, "a"), "reflink probe");
    copyFileSync(path.join(probe, "a"), path.join(probe, "b"), constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    return false;
  } finally {
    if (probe !== null) rmSync(probe, { recursive: true, force: true });
  }
}

export async function detectHostSnapshotStrategy(root: string, snapshotDir: string | null): Promise<HostSnapshotStrategyName> {
  if (await isGitAvailable()) return "git";
  let dir = snapshotDir ?? tmpdir();
  while (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    const parent = path.dirname(dir);
    if (parent === dir) return "copy";
    dir = parent;
  }
  return supportsReflink(root, dir) ? "reflink" : "copy";
}
