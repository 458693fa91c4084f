/**
 * The changed files of a comparison as a directory tree (directories first, then files,
 * by name), each directory with its number of changed files and summed line counts. A
 * renamed or copied file sits where it is now. Pure, so it is tested without a browser.
 */
import type { FileChangeResponse } from "../../api/api.js";

export interface LineCounts {
  readonly added: number | null;
  readonly removed: number | null;
}

export interface ChangeTreeDirectory {
  readonly kind: "directory";
  readonly name: string;
  /** Directory path (`src/shop`); chains of single directories are joined (`src/shop/billing`). */
  readonly path: string;
  readonly children: ChangeTreeNode[];
  readonly files: number;
  readonly added: number;
  readonly removed: number;
}

export interface ChangeTreeFile {
  readonly kind: "file";
  readonly name: string;
  readonly change: FileChangeResponse;
  readonly counts: LineCounts | null;
}

export type ChangeTreeNode = ChangeTreeDirectory | ChangeTreeFile;

interface Building {
  name: string;
  path: string;
  directories: Map<string, Building>;
  files: ChangeTreeFile[];
}

export function changeTree(changes: readonly FileChangeResponse[], counts: ReadonlyMap<string, LineCounts> = new Map()): ChangeTreeDirectory {
  const root: Building = { name: "", path: "", directories: new Map(), files: [] };
  for (const change of changes) {
    const parts = change.path.split("/");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let next = node.directories.get(part);
      if (next === undefined) {
        next = { name: part, path: node.path === "" ? part : `${node.path}/${part}`, directories: new Map(), files: [] };
        node.directories.set(part, next);
      }
      node = next;
    }
    node.files.push({ kind: "file", name: parts[parts.length - 1] ?? change.path, change, counts: counts.get(change.path) ?? null });
  }
  return finish(root);
}

function finish(node: Building): ChangeTreeDirectory {
  const directories = [...node.directories.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map(finish);
  const files = [...node.files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let fileCount = files.length;
  let added = 0;
  let removed = 0;
  for (const file of files) {
    added += file.counts?.added ?? 0;
    removed += file.counts?.removed ?? 0;
  }
  for (const directory of directories) {
    fileCount += directory.files;
    added += directory.added;
    removed += directory.removed;
  }
  const joined = directories.length === 1 && files.length === 0 && node.path !== "" ? directories[0] : undefined;
  if (joined !== undefined) return { ...joined, name: `${node.name}/${joined.name}` };
  return { kind: "directory", name: node.name, path: node.path, children: [...directories, ...files], files: fileCount, added, removed };
}

/** The files of the tree in display order (for J/K). */
export function treeFiles(node: ChangeTreeDirectory): ChangeTreeFile[] {
  const result: ChangeTreeFile[] = [];
  for (const child of node.children) {
    if (child.kind === "file") result.push(child);
    else result.push(...treeFiles(child));
  }
  return result;
}
