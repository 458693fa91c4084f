import type * as fs from "node:fs";
import { FileExistsError, FileNotFoundError, InvalidArgumentError, IsADirectoryError, PermissionDeniedError } from "../../../errors.js";
import { displayPath } from "../../paths.js";
import { type Name, lstatAtSync } from "../io/confined.js";
import { DirTree, type Location, breather, keyOf, segmentsOf } from "./dir-tree.js";
import { type JournalOp, journalSegments } from "./journal.js";
import { probeRename } from "./probe.js";
import { isMissing } from "./run-journal.js";
import type { TreeStaging } from "./staging.js";
import { type TreeChange } from "./types.js";

export interface PlannedOp {
  readonly journal: JournalOp;
  /** Segments of the target path (for validation). */
  readonly segments: readonly Name[];
}

type CurrentKind = "file" | "directory" | "symlink" | "other" | null;

/**
 * Check every change against the current tree before anything is committed: targets of
 * mkdir/put must be creatable (no file, symlink or special file on the way that is not being
 * deleted), put sources must exist, puts must not overlap. Throws with the offending path.
 */
export async function validatePlan(staging: TreeStaging, planned: readonly PlannedOp[]): Promise<void> {
  const deletedKeys = new Set(planned.filter((p) => p.journal.op === "delete").map((p) => keyOf(p.segments)));
  const isDeleted = (key: string): boolean => {
    for (let end = key.length; end > 0; end = key.lastIndexOf("/", end - 1)) if (deletedKeys.has(key.slice(0, end))) return true;
    return false;
  };
  const createdDirs = new Set<string>();
  const putKeys = new Set<string>();
  for (const p of planned) if (p.journal.op === "put") putKeys.add(keyOf(p.segments));
  for (const p of planned) {
    if (p.journal.op === "mkdir") for (let i = 1; i <= p.segments.length; i++) createdDirs.add(keyOf(p.segments.slice(0, i)));
  }

  const rootLoc: Location = { basePath: staging.info.real, segments: [] };
  const rootDirs = new DirTree(rootLoc);
  const stagedDirs = new DirTree(staging.tree);
  const breathe = breather();
  try {
    const kindCache = new Map<string, CurrentKind>();
    const currentKind = (segments: readonly Name[], fullPath: string): CurrentKind => {
      const key = keyOf(segments);
      if (kindCache.has(key)) return kindCache.get(key) ?? null;
      const name = segments[segments.length - 1] as Name;
      let kind: CurrentKind = null;
      try {
        const stats = lstatAtSync(rootDirs.open(segments.slice(0, -1), fullPath), name);
        if (stats !== null) kind = stats.isFile() ? "file" : stats.isDirectory() ? "directory" : stats.isSymbolicLink() ? "symlink" : "other";
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      kindCache.set(key, kind);
      return kind;
    };

    const probeDirs = new Map<string, { segments: readonly Name[]; full: string }>([["", { segments: [], full: "" }]]);
    for (const p of planned) {
      await breathe();
      const op = p.journal;
      const full = op.path;
      // Every ancestor must be (or become) a directory; never a link or special file.
      let underDeleted = false;
      let deepestDirectory: readonly Name[] = [];
      for (let i = 1; i < p.segments.length; i++) {
        const ancestor = p.segments.slice(0, i);
        const key = keyOf(ancestor);
        if (isDeleted(key)) {
          underDeleted = true;
          break; // recreated as a plain directory
        }
        if (putKeys.has(key)) throw new InvalidArgumentError(`Change below a replaced entry: ${displayPath(full)}`, { path: full });
        const kind = currentKind(ancestor, full);
        if (kind === "directory") deepestDirectory = ancestor;
        if (kind === null) break;
        if (kind === "directory") continue;
        if (op.op === "delete" && kind === "file") break; // nothing below a file: the delete is a no-op
        throw new PermissionDeniedError(full, `Cannot change ${displayPath(full)}: ${displayPath(key)} is ${kind === "other" ? "a special file" : `a ${kind}`}`, { reason: kind });
      }
      probeDirs.set(keyOf(deepestDirectory), { segments: deepestDirectory, full });
      if (op.op === "delete") continue;
      const key = keyOf(p.segments);
      const kind = underDeleted || isDeleted(key) ? null : currentKind(p.segments, full);
      if (op.op === "mkdir" && kind !== null && kind !== "directory") throw new FileExistsError(full, `Cannot create directory ${displayPath(full)}: a ${kind} is in the way`);
      if (op.op === "put" && kind === "directory") throw new IsADirectoryError(full, `Cannot replace directory ${displayPath(full)} without deleting it first`);
      if (op.op === "put" && kind === "other") throw new PermissionDeniedError(full, `Cannot replace special file ${displayPath(full)}`, { reason: "other" });
      if (op.op === "chmod" && kind === null && !createdDirs.has(key) && !putKeys.has(key)) throw new FileNotFoundError(full);
      if (op.op === "put") {
        const sourceSegments = journalSegments(op.source, op.sourceRaw);
        const sourceName = sourceSegments.pop() as Name;
        let staged: fs.Stats | null;
        try {
          staged = lstatAtSync(stagedDirs.open(sourceSegments, op.source), sourceName);
        } catch {
          staged = null;
        }
        if (staged === null) throw new FileNotFoundError(op.source, `Staged entry missing: ${displayPath(op.source)}`);
        if (staged.isDirectory() && kind !== null) throw new FileExistsError(full, `Cannot replace ${displayPath(full)} with a directory without deleting it first`);
      }
    }
    const trashDirs = new DirTree(staging.trash);
    try {
      const trash = trashDirs.open([], "");
      for (const { segments, full } of probeDirs.values()) {
        probeRename(staging.info, rootDirs, trash, segments, full);
        await breathe();
      }
    } finally {
      trashDirs.close();
    }
  } finally {
    rootDirs.close();
    stagedDirs.close();
  }
}

export function planChanges(changes: readonly TreeChange[]): PlannedOp[] {
  const planned: PlannedOp[] = [];
  const deletes: string[] = [];
  for (const change of changes) {
    if (change.op === "delete") deletes.push(change.path);
  }
  const deleteSet = new Set(deletes);
  const coveredByAncestor = (p: string): boolean => {
    for (let slash = p.lastIndexOf("/"); slash > 0; slash = p.lastIndexOf("/", slash - 1)) if (deleteSet.has(p.slice(0, slash))) return true;
    return false;
  };
  let trashIndex = 0;
  const seenDeletes = new Set<string>();
  for (const change of changes) {
    const segments = segmentsOf(change.path, "target");
    switch (change.op) {
      case "delete":
        if (coveredByAncestor(change.path) || seenDeletes.has(change.path)) break;
        seenDeletes.add(change.path);
        planned.push({ journal: { op: "delete", path: change.path, trash: `d${trashIndex++}` }, segments });
        break;
      case "mkdir":
        planned.push({ journal: { op: "mkdir", path: change.path, ...(change.mode === undefined ? {} : { mode: change.mode }) }, segments });
        break;
      case "put":
        segmentsOf(change.source, "staged");
        planned.push({ journal: { op: "put", path: change.path, source: change.source }, segments });
        break;
      case "chmod":
        planned.push({ journal: { op: "chmod", path: change.path, mode: change.mode }, segments });
        break;
      default:
        throw new InvalidArgumentError(`Unknown tree change ${JSON.stringify((change as { op?: unknown }).op)}`, {});
    }
  }
  const puts = planned.filter((p) => p.journal.op === "put").map((p) => p.journal.path).sort();
  for (let i = 1; i < puts.length; i++) {
    const previous = puts[i - 1] as string;
    const current = puts[i] as string;
    if (current === previous || current.startsWith(`${previous}/`)) throw new InvalidArgumentError(`Overlapping changes: ${displayPath(previous)} and ${displayPath(current)}`, { path: current });
  }
  return planned;
}
