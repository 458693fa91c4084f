import * as fs from "node:fs";
import path from "node:path";
import { StorageIOError } from "../../../errors.js";
import { processAlive } from "../../process-alive.js";
import { removeEntrySync } from "../io/confined.js";
import { atLocation } from "./dir-tree.js";
import { readJournal } from "./journal.js";
import { removeDeadProbes } from "./probe.js";
import { runJournal } from "./run-journal.js";
import { type RootInfo, activeApplies, busyError, journalPath, liveStagings, rootInfo, unlinkQuietly } from "./state.js";
import { STAGING_PREFIX, type TreeApplyOptions, type TreeRecoveryResult } from "./types.js";

export async function recoverWithInfo(info: RootInfo, options: TreeApplyOptions): Promise<TreeRecoveryResult> {
  let rolledForward = false;
  const journal = readJournal(info);
  if (journal !== null) {
    if (activeApplies.has(info.key) || (journal.pid !== process.pid && processAlive(journal.pid))) throw busyError(info, journal.pid);
    if (journal.rootDev !== info.dev || journal.rootIno !== info.ino) {
      throw new StorageIOError(undefined, `The interrupted tree change recorded in ${journalPath(info)} was for another directory at ${info.real}; move the journal away to continue`, {
        journal: journalPath(info),
      });
    }
    await runJournal(info, journal, { ...options, onStep: undefined });
    rolledForward = true;
  }
  // Stagings of processes that are gone were never committed (or were cleaned up late).
  let removedStagings = 0;
  const dead = (name: string, prefix: string): boolean => {
    if (!name.startsWith(prefix)) return false;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    // Ours but no longer in use (an apply of this process failed after its commit), or a dead process's.
    if (pid === process.pid) return !name.includes("-probe-") && !liveStagings.has(name) && !activeApplies.has(info.key);
    return !processAlive(pid);
  };
  let names: string[];
  try {
    names = fs.readdirSync(info.stateDir);
  } catch {
    names = [];
  }
  for (const name of names) {
    if (dead(name, `staging-${info.key}-`)) {
      fs.rmSync(path.join(info.stateDir, name), { recursive: true, force: true });
      removedStagings++;
    } else if (dead(name, `${info.key}.journal.tmp-`)) {
      unlinkQuietly(path.join(info.stateDir, name));
    }
  }
  atLocation({ basePath: info.real, segments: [] }, [], "", (dir) => {
    for (const name of fs.readdirSync(dir.self)) {
      if (dead(name, STAGING_PREFIX)) {
        removeEntrySync(dir, name, name);
        removedStagings++;
      }
    }
  });
  removedStagings += removeDeadProbes(info, names, (probe) => {
    const pid = Number.parseInt(probe.slice(STAGING_PREFIX.length), 10);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
  });
  return { rolledForward, removedStagings };
}

/**
 * Bring `root` back to a consistent state after a crash: complete a committed apply whose
 * process is gone, and remove stagings that were never committed. Cheap when there is
 * nothing to do. Throws EUNAVAILABLE while another live process is applying.
 */
export async function recoverTreeChanges(root: string, options: TreeApplyOptions = {}): Promise<TreeRecoveryResult> {
  const info = rootInfo(root, options);
  return recoverWithInfo(info, options);
}

/** True when a journal for `root` exists (an apply is running or was interrupted). */
export async function hasPendingTreeChanges(root: string, options: TreeApplyOptions = {}): Promise<boolean> {
  const info = rootInfo(root, options);
  return fs.existsSync(journalPath(info));
}
