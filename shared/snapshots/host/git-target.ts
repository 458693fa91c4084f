/**
 * The target state of a git restore, read through one `cat-file --batch` process: the
 * snapshot's ref and commit, and its tree's leaves. When the workspace index mirrors
 * another commit, only the subtrees whose ids differ from that commit's are read, so the
 * cost follows the size of the change, not of the tree.
 */
import { Buffer } from "node:buffer";

import type { TreeStaging } from "../../filesystem/host/tree-apply.js";
import { toDisplayPath } from "./byte-paths.js";
import { decodeCommitMessage, defaultPerm, gitModeOf, SNAPSHOT_REF_PREFIX, type CommitMeta, type TreeLeaf } from "./git-repo.js";
import { MissingObjectError, type GitObjectReader, type ObjectSink } from "./git-object-reader.js";
import { stagedName, withAncestors, type TargetLeaf, type TargetState } from "./restore-plan.js";
import type { IndexEntry } from "./workspace-index.js";

export interface SnapshotCommit {
  readonly commit: string;
  readonly tree: string;
  readonly meta: CommitMeta | null;
}

const TREE_MODE = "040000";

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

/** The tree id of any commit (e.g. the one the workspace index mirrors), or null. */
export async function readCommitTree(reader: GitObjectReader, commit: string): Promise<string | null> {
  const object = await reader.read(commit);
  return object === null || object.type !== "commit" ? null : parseCommit(commit, object.content).tree;
}

/** Leaves of `tree` that differ from `base` (null: every leaf). Removed leaves map to null. */
async function changedLeaves(reader: GitObjectReader, tree: string | null, base: string | null, prefix: string, out: Map<string, TreeLeaf | null>): Promise<void> {
  if (tree === base) return;
  const [mine, theirs] = await Promise.all([tree === null ? [] : reader.tree(tree), base === null ? [] : reader.tree(base)]);
  const before = new Map(theirs.map((entry) => [entry.name, entry]));
  const nested: Promise<void>[] = [];
  for (const entry of mine) {
    const old = before.get(entry.name);
    before.delete(entry.name);
    const path = prefix + entry.name;
    if (old !== undefined && old.oid === entry.oid && old.mode === entry.mode) continue;
    const isDir = entry.mode === TREE_MODE;
    const wasDir = old?.mode === TREE_MODE;
    if (isDir) nested.push(changedLeaves(reader, entry.oid, wasDir ? (old?.oid ?? null) : null, `${path}/`, out));
    else out.set(path, { mode: entry.mode, oid: entry.oid });
    if (old !== undefined && wasDir && !isDir) nested.push(changedLeaves(reader, null, old.oid, `${path}/`, out));
    else if (old !== undefined && !wasDir && isDir) out.set(path, null);
  }
  for (const [name, old] of before) {
    if (old.mode === TREE_MODE) nested.push(changedLeaves(reader, null, old.oid, `${prefix}${name}/`, out));
    else out.set(prefix + name, null);
  }
  await Promise.all(nested);
}

/**
 * Every leaf of `tree`. With `base` (a tree whose leaves are `baseLeaves`, e.g. the commit
 * the workspace index mirrors), only the subtrees that differ are read.
 */
export async function readTreeLeaves(
  reader: GitObjectReader,
  tree: string,
  base: { readonly tree: string; readonly leaves: ReadonlyMap<string, IndexEntry> } | null,
): Promise<Map<string, TreeLeaf>> {
  const changes = new Map<string, TreeLeaf | null>();
  await changedLeaves(reader, tree, base?.tree ?? null, "", changes);
  const leaves = new Map<string, TreeLeaf>();
  if (base !== null) {
    for (const [path, entry] of base.leaves) if (!changes.has(path)) leaves.set(path, { mode: gitModeOf(entry.kind, entry.perm), oid: entry.oid });
  }
  for (const [path, leaf] of changes) if (leaf !== null) leaves.set(path, leaf);
  return leaves;
}

/** The restore target: leaves with their permission bits, and every directory (empty ones from the commit's trailer). */
export function targetFromTree(tree: ReadonlyMap<string, TreeLeaf>, meta: CommitMeta | null): TargetState {
  const perms = new Map<string, number>(meta?.perms ?? []);
  const leaves = new Map<string, TargetLeaf>();
  const gitlinks: string[] = [];
  for (const [path, leaf] of tree) {
    if (leaf.mode === "160000") {
      gitlinks.push(path); // made by another tool: restored as an (empty) directory
      continue;
    }
    const kind = leaf.mode === "120000" ? "symlink" : "file";
    leaves.set(path, { kind, oid: leaf.oid, perm: perms.get(path) ?? defaultPerm(leaf.mode) });
  }
  return { leaves, dirs: withAncestors(leaves.keys(), [...(meta?.emptyDirs ?? []), ...gitlinks], perms) };
}

/** Stage the blobs of `puts` (files with their permission bits, symlinks as links) as `stagedName(i)`. */
export async function stageBlobs(reader: GitObjectReader, staging: TreeStaging, puts: readonly string[], target: TargetState): Promise<void> {
  // allSettled: every sink is finished before a failure lets the caller discard the staging.
  const results = await Promise.allSettled(
    puts.map((path, index) => {
      const leaf = target.leaves.get(path) as TargetLeaf;
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
