import * as fs from "node:fs";
import { WinkError } from "../../../errors.js";
import { type DirHandle, type Name, lstatAtSync } from "../io/confined.js";
import { errnoCode } from "../../errno.js";
import { mapFsError } from "../io/host-errors.js";
import { DirTree, type Location, atLocation, breather, removeStagingArea } from "./dir-tree.js";
import { type Journal, journalSegments, rewriteJournal, syncDirectory } from "./journal.js";
import { type RootInfo, journalPath, syncFilesystem } from "./state.js";
import { PERMISSION_BITS, type TreeApplyOptions, type TreeApplyResult, type TreeApplyStep } from "./types.js";

function moveEntry(fromDir: DirHandle, fromName: Name, toDir: DirHandle, toName: Name, fullPath: string): void {
  try {
    fs.renameSync(fromDir.at(fromName), toDir.at(toName));
  } catch (error) {
    throw mapFsError(error, fullPath, "move");
  }
}

const rootLocation = (journal: Journal): Location => ({ basePath: journal.root, segments: [] });
const stagingLocation = (journal: Journal, sub: "tree" | "trash"): Location => ({
  basePath: journal.staging.basePath,
  segments: [...journal.staging.segments, sub],
});

export function isMissing(error: unknown): boolean {
  return error instanceof WinkError && (error.code === "ENOENT" || error.code === "ENOTDIR");
}

/** Run the apply phases of a committed journal. Every step can be repeated after a crash. */
export async function runJournal(info: RootInfo, committed: Journal, options: TreeApplyOptions): Promise<TreeApplyResult> {
  let journal = committed;
  const step = async (name: TreeApplyStep, detail: { index?: number; path?: string } = {}): Promise<void> => {
    await options.onStep?.(name, detail);
  };
  const breathe = breather();
  const root = rootLocation(journal);
  let deleted = 0;
  let created = 0;
  let moved = 0;
  let chmodded = 0;

  // Phase 1: move deleted entries into the trash, unless a previous run finished this phase.
  if (journal.deletesDone !== true) {
    const trashDirs = new DirTree(stagingLocation(journal, "trash"));
    const rootDirs = new DirTree(root);
    try {
      const trash = trashDirs.open([], "");
      for (const [index, op] of journal.ops.entries()) {
        if (op.op !== "delete") continue;
        if (lstatAtSync(trash, op.trash) !== null) continue;
        const segments = journalSegments(op.path, op.raw);
        const name = segments.pop() as Name;
        try {
          const dir = rootDirs.open(segments, op.path);
          if (lstatAtSync(dir, name) !== null) {
            rootDirs.forget([...segments, name]);
            moveEntry(dir, name, trash, op.trash, op.path);
            deleted++;
          }
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
        await step("op", { index, path: op.path });
        await breathe();
      }
    } finally {
      trashDirs.close();
      rootDirs.close();
    }
    journal = { ...journal, deletesDone: true };
    rewriteJournal(info, journal);
  }
  await step("deleted");

  // Phase 2: directories.
  const rootDirs = new DirTree(root);
  try {
    for (const [index, op] of journal.ops.entries()) {
      if (op.op !== "mkdir") continue;
      const dir = rootDirs.open(op.path.split("/"), op.path, 0o755);
      if (op.mode !== undefined) fs.fchmodSync(dir.fd, op.mode & PERMISSION_BITS);
      created++;
      await step("op", { index, path: op.path });
      await breathe();
    }
  } finally {
    rootDirs.close();
  }

  // Phase 3: staged entries into place.
  const treeDirs = new DirTree(stagingLocation(journal, "tree"));
  const targetDirs = new DirTree(root);
  try {
    for (const [index, op] of journal.ops.entries()) {
      if (op.op !== "put") continue;
      const sourceSegments = journalSegments(op.source, op.sourceRaw);
      const sourceName = sourceSegments.pop() as Name;
      const targetSegments = journalSegments(op.path, op.raw);
      const targetName = targetSegments.pop() as Name;
      let source: DirHandle;
      try {
        source = treeDirs.open(sourceSegments, op.source);
      } catch (error) {
        if (error instanceof WinkError && error.code === "ENOENT") continue;
        throw error;
      }
      if (lstatAtSync(source, sourceName) === null) continue; // moved by an earlier run
      const dir = targetDirs.open(targetSegments, op.path, 0o755);
      targetDirs.forget([...targetSegments, targetName]);
      try {
        fs.renameSync(source.at(sourceName), dir.at(targetName));
      } catch (error) {
        const code = errnoCode(error);
        if (code !== "EISDIR" && code !== "ENOTDIR" && code !== "ENOTEMPTY" && code !== "EEXIST") throw mapFsError(error, op.path, "move into place");
        // Something unexpected is in the way (validated away, so only a concurrent writer):
        // keep it in the trash rather than fail half-way, then retry once.
        atLocation(stagingLocation(journal, "trash"), [], op.path, (trash) => moveEntry(dir, targetName, trash, `in-the-way-${index}`, op.path));
        moveEntry(source, sourceName, dir, targetName, op.path);
      }
      moved++;
      await step("op", { index, path: op.path });
      await breathe();
    }
  } finally {
    treeDirs.close();
    targetDirs.close();
  }

  // Phase 4: modes.
  const modeDirs = new DirTree(root);
  try {
    for (const [index, op] of journal.ops.entries()) {
      if (op.op !== "chmod") continue;
      const segments = op.path.split("/");
      const name = segments.pop() as string;
      const dir = modeDirs.open(segments, op.path);
      const stats = lstatAtSync(dir, name);
      if (stats !== null && !stats.isSymbolicLink()) {
        try {
          fs.chmodSync(dir.at(name), op.mode & PERMISSION_BITS);
        } catch (error) {
          throw mapFsError(error, op.path, "set the mode of");
        }
      }
      chmodded++;
      await step("op", { index, path: op.path });
      await breathe();
    }
  } finally {
    modeDirs.close();
  }

  if (journal.durable) await syncFilesystem(journal.root);
  // The change is complete once the journal is gone; what follows is cleanup.
  fs.unlinkSync(journalPath(info));
  if (journal.durable) syncDirectory(info.stateDir);
  await step("applied");
  const location: Location = { basePath: journal.staging.basePath, segments: journal.staging.segments };
  removeStagingArea(info, location, journal.staging.insideRoot);
  await step("cleaned");
  return { deleted, created, moved, chmodded };
}
