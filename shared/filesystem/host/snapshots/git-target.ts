/**
 * Reading a git restore's target through one `cat-file --batch` process: the snapshot's
 * ref and commit, the changes between its tree and the tree the workspace index mirrors
 * (only subtrees whose ids differ are read, so the cost follows the size of the change),
 * and the blobs to stage.
 */
import { Buffer } from "node:buffer";

import type { TreeStaging } from "../tree-apply/index.js";
import { toDisplayPath } from "./byte-paths.js";
import { decodeCommitMessage, defaultPerm, SNAPSHOT_REF_PREFIX, type CommitMeta, type TreeLeaf } from "./git-repo.js";
import { changedTreeEntries, MissingObjectError, parseTree, type GitObjectReader, type ObjectSink, type TreeEntry } from "./git-object-reader.js";
import { stagedName, type TargetLeaf } from "./restore-plan.js";

export interface SnapshotCommit {
  readonly commit: string;
  readonly tree: string;
  readonly meta: CommitMeta | null;
}

const TREE_MODE = "040000";
const EMPTY_TREE = Buffer.alloc(0);

function parseCommit(oid: string, content: Buffer): SnapshotCommit {
  const text = content.toString("utf8");
  const tree = /^tree ([0-9a-f]{40,64})$/m.exec(text.slice(0, text.indexOf("\n") + 1))?.[1];
  if (tree === undefined) throw new MissingObjectError(`${oid}^{tree}`);
  const body = text.indexOf("\n\n");
  return { commit: oid, tree, meta: decodeCommitMessage(body < 0 ? "" : text.slice(body + 1)) };
}

function isRefComponent(id: string): boolean {
  return /^[A-Za-z0-9._-]{1,200}$/.test(id) && !id.includes("..") && !id.endsWith(".lock");
}

/**
 * The snapshot's commit, when its ref still points at `commitRef`. Otherwise a reason:
 * "missing" (no such commit here) or "released" (the commit exists but the snapshot was pruned).
 */
export async function readSnapshotCommit(reader: GitObjectReader, snapshotId: string, commitRef: string): Promise<SnapshotCommit | "missing" | "released"> {
  const viaRef = isRefComponent(snapshotId) ? await reader.read(`${SNAPSHOT_REF_PREFIX}${snapshotId}`) : null;
  if (viaRef !== null && viaRef.oid === commitRef && viaRef.type === "commit") return parseCommit(viaRef.oid, viaRef.content);
  const direct = await reader.read(commitRef);
  return direct === null || direct.type !== "commit" ? "missing" : "released";
}

/** Any commit of the repository (e.g. the one the workspace index mirrors), or null. */
export async function readCommit(reader: GitObjectReader, commit: string): Promise<SnapshotCommit | null> {
  const object = await reader.read(commit);
  return object === null || object.type !== "commit" ? null : parseCommit(commit, object.content);
}

/** What differs between two trees: leaves (null = removed) and directories (true = appears, false = disappears). */
export interface TreeChanges {
  readonly leaves: Map<string, TreeLeaf | null>;
  readonly dirs: Map<string, boolean>;
  /** Changed leaf paths that were leaves in the base too (modified or removed, not added). */
  readonly existed: Set<string>;
}

/** One entry of `prefix`'s tree against its old entry there (undefined: none), noted in `out`. */
function compareEntry(reader: GitObjectReader, entry: TreeEntry, old: TreeEntry | undefined, prefix: string, out: TreeChanges, nested: Promise<void>[]): void {
  if (old !== undefined && old.oid === entry.oid && old.mode === entry.mode) return;
  const path = prefix + entry.name;
  const isDir = entry.mode === TREE_MODE;
  const wasDir = old?.mode === TREE_MODE;
  if (isDir) {
    if (!wasDir) out.dirs.set(path, true);
    if (old !== undefined && !wasDir) {
      out.leaves.set(path, null);
      out.existed.add(path);
    }
    nested.push(walkChanges(reader, entry.oid, wasDir ? (old?.oid ?? null) : null, `${path}/`, out));
  } else {
    out.leaves.set(path, { mode: entry.mode, oid: entry.oid });
    if (old !== undefined && !wasDir) out.existed.add(path);
    if (wasDir) {
      out.dirs.set(path, false);
      nested.push(walkChanges(reader, null, old?.oid ?? null, `${path}/`, out));
    }
  }
}

async function walkChanges(reader: GitObjectReader, tree: string | null, base: string | null, prefix: string, out: TreeChanges): Promise<void> {
  if (tree === base) return;
  const [mine, theirs] = await Promise.all([tree === null ? EMPTY_TREE : reader.treeContent(tree), base === null ? EMPTY_TREE : reader.treeContent(base)]);
  const nested: Promise<void>[] = [];
  const pairs = tree !== null && base !== null ? changedTreeEntries(mine, theirs) : null;
  if (pairs !== null) {
    for (const [entry, old] of pairs) compareEntry(reader, entry, old, prefix, out, nested);
  } else {
    // Names added or removed: compared by name.
    const before = new Map(parseTree(theirs).map((entry) => [entry.name, entry]));
    for (const entry of parseTree(mine)) {
      const old = before.get(entry.name);
      before.delete(entry.name);
      compareEntry(reader, entry, old, prefix, out, nested);
    }
    for (const [name, old] of before) {
      if (old.mode !== TREE_MODE) {
        out.leaves.set(prefix + name, null);
        out.existed.add(prefix + name);
        continue;
      }
      out.dirs.set(prefix + name, false);
      nested.push(walkChanges(reader, null, old.oid, `${prefix}${name}/`, out));
    }
  }
  await Promise.all(nested);
}

/**
 * The changes from tree `base` to tree `tree` (null: the empty tree). Identical subtrees
 * are skipped by id, so the cost follows the size of the change.
 */
export async function treeChanges(reader: GitObjectReader, tree: string | null, base: string | null): Promise<TreeChanges> {
  const out: TreeChanges = { leaves: new Map(), dirs: new Map(), existed: new Set() };
  await walkChanges(reader, tree, base, "", out);
  return out;
}

/** A tree leaf as a restore target, with the permission bits the commit's trailer records. */
export function targetLeaf(leaf: TreeLeaf, perm: number | undefined): TargetLeaf | null {
  if (leaf.mode === "160000") return null; // a gitlink made by another tool: restored as a directory
  const kind = leaf.mode === "120000" ? "symlink" : "file";
  return { kind, oid: leaf.oid, perm: perm ?? defaultPerm(leaf.mode) };
}

/** Stage the blobs of `puts` (files with their permission bits, symlinks as links) as `stagedName(i)`. */
export async function stageBlobs(reader: GitObjectReader, staging: TreeStaging, puts: readonly string[], targets: ReadonlyMap<string, TargetLeaf>): Promise<void> {
  // allSettled: every sink is finished before a failure lets the caller discard the staging.
  const results = await Promise.allSettled(
    puts.map((path, index) => {
      const leaf = targets.get(path) as TargetLeaf;
      return reader.stream(leaf.oid, async (): Promise<ObjectSink> => {
        if (leaf.kind === "file") return staging.createFile(stagedName(index), leaf.perm);
        const parts: Uint8Array[] = [];
        return {
          write: (chunk) => {
            parts.push(Uint8Array.from(chunk));
          },
          close: () => staging.symlink(stagedName(index), toDisplayPath(Buffer.concat(parts).toString("latin1"))),
        };
      });
    }),
  );
  const failed = results.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}
