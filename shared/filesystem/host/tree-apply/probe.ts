import * as fs from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { PermissionDeniedError } from "../../../errors.js";
import { displayPath } from "../../paths.js";
import { CREATE_FLAGS, type DirHandle, type Name } from "../io/confined.js";
import { errnoCode } from "../../errno.js";
import { mapFsError } from "../io/host-errors.js";
import type { DirTree} from "./dir-tree.js";
import { atLocation, keyOf } from "./dir-tree.js";
import { type RootInfo, unlinkQuietly } from "./state.js";
import { STAGING_PREFIX } from "./types.js";

/**
 * Prove that entries can be renamed between the staging area and `segments` (same mount,
 * writable) by moving a probe there and back, so that a read-only or separately mounted
 * directory fails the apply *before* the commit instead of halfway through it.
 */
export function probeRename(info: RootInfo, rootDirs: DirTree, trash: DirHandle, segments: readonly Name[], full: string): void {
  const shown = segments.length === 0 ? "the root" : displayPath(keyOf(segments));
  const probe = `${STAGING_PREFIX}${process.pid}-probe-${randomBytes(6).toString("hex")}`;
  const dir = rootDirs.open(segments, full);
  // The probe sits in a workspace directory for a moment: name it in a record first, so a
  // recovery after a crash right then can find and remove it (only the root is scanned).
  const record = probeRecordPath(info, probe);
  fs.writeFileSync(record, JSON.stringify({ probe, segments: segments.map((s) => Buffer.from(s).toString("base64")) }));
  let inWorkspace = false;
  try {
    fs.closeSync(fs.openSync(trash.at("probe"), CREATE_FLAGS, 0o600));
    try {
      fs.renameSync(trash.at("probe"), dir.at(probe));
    } catch (error) {
      if (errnoCode(error) === "EXDEV") {
        throw new PermissionDeniedError(full, `Cannot change ${displayPath(full)} atomically: ${shown} is on another filesystem (mount point) than the staging area`, { reason: "cross-device" });
      }
      throw mapFsError(error, full, `change (in ${shown})`);
    }
    inWorkspace = true;
    fs.renameSync(dir.at(probe), trash.at("probe"));
    inWorkspace = false;
  } finally {
    unlinkQuietly(trash.at("probe"));
    // A probe still in the workspace keeps its record, for the next recovery.
    if (!inWorkspace) unlinkQuietly(record);
  }
}

function probeRecordPath(info: RootInfo, probe: string): string {
  return path.join(info.stateDir, `${info.key}.probe.${probe}`);
}

/** Remove probes that a crashed apply left in workspace directories (see `probeRename`); `names` lists the state directory. */
export function removeDeadProbes(info: RootInfo, names: readonly string[], isDead: (probe: string) => boolean): number {
  const prefix = `${info.key}.probe.`;
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const probe = name.slice(prefix.length);
    if (!isDead(probe)) continue;
    const recordPath = path.join(info.stateDir, name);
    try {
      const record = JSON.parse(fs.readFileSync(recordPath, "utf8")) as { probe?: unknown; segments?: unknown };
      if (record.probe === probe && Array.isArray(record.segments)) {
        const segments = record.segments.map((segment) => Buffer.from(String(segment), "base64"));
        atLocation({ basePath: info.real, segments: [] }, segments, probe, (dir) => {
          fs.unlinkSync(dir.at(probe));
          removed++;
        });
      }
    } catch {
      // The probe was already moved back, or its directory is gone: nothing left to remove.
    }
    unlinkQuietly(recordPath);
  }
  return removed;
}
