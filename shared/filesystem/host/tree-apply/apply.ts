import * as fs from "node:fs";
import path from "node:path";
import { type Location, atLocation, removeStagingArea } from "./dir-tree.js";
import { type Journal, writeJournal } from "./journal.js";
import { type PlannedOp, planChanges, validatePlan } from "./plan.js";
import { runJournal } from "./run-journal.js";
import type { TreeStaging} from "./staging.js";
import { createTreeStaging } from "./staging.js";
import { activeApplies, busyError, liveStagings, syncFilesystem } from "./state.js";
import { JOURNAL_VERSION, STAGING_PREFIX, type TreeApplyOptions, type TreeApplyResult, type TreeChange, type TreeEdit } from "./types.js";

async function commitAndRun(staging: TreeStaging, planned: readonly PlannedOp[], options: TreeApplyOptions): Promise<TreeApplyResult> {
  const info = staging.info;
  if (activeApplies.has(info.key)) {
    await staging.discard();
    throw busyError(info, process.pid);
  }
  activeApplies.add(info.key);
  try {
    let journal: Journal;
    try {
      await options.onStep?.("staged", {});
      await validatePlan(staging, planned);
      await options.onStep?.("validated", {});
      const durable = options.durable ?? true;
      if (durable) await syncFilesystem(staging.dir);
      staging.markFinished();
      journal = {
        version: JOURNAL_VERSION,
        root: info.real,
        rootDev: info.dev,
        rootIno: info.ino,
        pid: process.pid,
        createdAt: new Date().toISOString(),
        staging: { basePath: staging.location.basePath, segments: staging.location.segments.map(String), insideRoot: staging.insideRoot },
        durable,
        ops: planned.map((p) => p.journal),
      };
      writeJournal(info, journal);
    } catch (error) {
      try {
        removeStagingArea(info, staging.location, staging.insideRoot);
      } catch {
        // left for the next recovery
      }
      throw error;
    }
    await options.onStep?.("committed", {});
    return await runJournal(info, journal, options);
  } finally {
    activeApplies.delete(info.key);
    liveStagings.delete(path.basename(staging.dir));
  }
}

// ---------------------------------------------------------------- public entry points

/**
 * Apply `changes` whose `put` sources were staged in `staging.treeDir`. All-or-nothing:
 * validation errors leave the workspace untouched; after the commit the change completes
 * (or is completed by `recoverTreeChanges` after a crash).
 */
export async function applyStagedChanges(staging: TreeStaging, changes: readonly TreeChange[], options: TreeApplyOptions = staging.options): Promise<TreeApplyResult> {
  let planned: PlannedOp[];
  try {
    planned = planChanges(changes);
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return commitAndRun(staging, planned, options);
}

/**
 * Make the root's contents exactly `staging.treeDir`'s: every current top-level entry goes,
 * every staged top-level entry comes in, by rename (the root inode stays).
 */
export async function replaceTreeContents(staging: TreeStaging, options: TreeApplyOptions = staging.options): Promise<TreeApplyResult> {
  const planned: PlannedOp[] = [];
  try {
    const rootLoc: Location = { basePath: staging.info.real, segments: [] };
    const current = atLocation(rootLoc, [], "", (dir) => fs.readdirSync(dir.self, { encoding: "buffer" }));
    let index = 0;
    for (const name of current) {
      if (name.toString("latin1").startsWith(STAGING_PREFIX)) continue;
      planned.push({ journal: { op: "delete", ...encodedPath(name), trash: `d${index++}` }, segments: [name] });
    }
    const incoming = atLocation(staging.tree, [], "", (dir) => fs.readdirSync(dir.self, { encoding: "buffer" }));
    for (const name of incoming) {
      const encoded = encodedPath(name);
      planned.push({
        journal: { op: "put", ...encoded, source: encoded.path, ...(encoded.raw === undefined ? {} : { sourceRaw: encoded.raw }) },
        segments: [name],
      });
    }
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return commitAndRun(staging, planned, options);
}

function encodedPath(name: Buffer): { path: string; raw?: string } {
  const text = name.toString("utf8");
  return Buffer.from(text, "utf8").equals(name) ? { path: text } : { path: text, raw: name.toString("base64") };
}

/**
 * One-shot: stage the content of `edits` and apply them all-or-nothing. Writes replace files
 * (a hard link elsewhere is never written through), deletes remove links not their targets.
 */
export async function applyTreeChanges(root: string, edits: readonly TreeEdit[], options: TreeApplyOptions = {}): Promise<TreeApplyResult> {
  const staging = await createTreeStaging(root, options);
  const changes: TreeChange[] = [];
  try {
    let index = 0;
    for (const edit of edits) {
      switch (edit.op) {
        case "write": {
          const source = `s${index++}`;
          await staging.writeFile(source, edit.data, edit.mode);
          changes.push({ op: "put", path: edit.path, source });
          break;
        }
        case "symlink": {
          const source = `s${index++}`;
          await staging.symlink(source, edit.target);
          changes.push({ op: "put", path: edit.path, source });
          break;
        }
        default:
          changes.push(edit);
      }
    }
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return applyStagedChanges(staging, changes, options);
}
