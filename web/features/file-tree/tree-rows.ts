/**
 * The file tree as the rows a virtual list shows: directories expanded by the user (plus
 * everything leading to the selected file), or, with a filter, every match with its
 * directories. Pure, so it is tested without a browser.
 */
import type { FileTreeNodeResponse } from "../../api/api.js";

export interface TreeRow {
  readonly node: FileTreeNodeResponse;
  readonly depth: number;
  readonly expanded: boolean;
}

export interface RowOptions {
  readonly expanded: ReadonlySet<string>;
  readonly filter: string;
  readonly changedOnly: boolean;
}

/** Directory paths leading to `path` (`a/b/c.txt` → `a`, `a/b`). */
export function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join("/"));
}

/** Most changed files for which every directory holding a change opens at first. */
export const REVEAL_CHANGES_LIMIT = 200;

/**
 * Directories open at first: those leading to the selected file, those holding changes
 * (when there are few), a chain of single directories from the root, and the top level
 * when it is short.
 */
export function initialExpanded(root: FileTreeNodeResponse, selected: string | undefined): Set<string> {
  const open = new Set<string>(selected === undefined ? [] : ancestors(selected));
  if (root.changed_count > 0 && root.changed_count <= REVEAL_CHANGES_LIMIT) {
    const stack = [...(root.children ?? [])];
    while (stack.length > 0) {
      const node = stack.pop();
      if (node === undefined || node.type !== "directory" || node.changed_count === 0) continue;
      open.add(node.path);
      stack.push(...(node.children ?? []));
    }
  }
  let node: FileTreeNodeResponse | undefined = root;
  while (node !== undefined) {
    const children: FileTreeNodeResponse[] = node.children ?? [];
    const directories = children.filter((child) => child.type === "directory");
    if (children.length === 1 && directories.length === 1 && directories[0] !== undefined) {
      open.add(directories[0].path);
      node = directories[0];
    } else {
      for (const directory of directories) if (children.length <= 12) open.add(directory.path);
      node = undefined;
    }
  }
  return open;
}

export function visibleRows(root: FileTreeNodeResponse, options: RowOptions): TreeRow[] {
  const rows: TreeRow[] = [];
  const needle = options.filter.trim().toLowerCase();
  if (needle === "" && !options.changedOnly) {
    const walk = (node: FileTreeNodeResponse, depth: number) => {
      for (const child of node.children ?? []) {
        const expanded = child.type === "directory" && options.expanded.has(child.path);
        rows.push({ node: child, depth, expanded });
        if (expanded) walk(child, depth + 1);
      }
    };
    walk(root, 0);
    return rows;
  }
  // Filtered: keep matching files and the directories above them, all shown open.
  const keep = (node: FileTreeNodeResponse): boolean => {
    if (node.type === "file") {
      if (options.changedOnly && node.change === null) return false;
      return needle === "" || node.path.toLowerCase().includes(needle);
    }
    return (node.children ?? []).some(keep);
  };
  const walk = (node: FileTreeNodeResponse, depth: number) => {
    for (const child of node.children ?? []) {
      if (!keep(child)) continue;
      rows.push({ node: child, depth, expanded: child.type === "directory" });
      if (child.type === "directory") walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return rows;
}

/** Number of files in the tree (deleted ones included). */
export function countFiles(root: FileTreeNodeResponse): number {
  let count = 0;
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    // A deleted file is shown (struck through) but is not in this workspace.
    if (node.type === "file") {
      if (node.change !== "deleted") count++;
    }
    else stack.push(...(node.children ?? []));
  }
  return count;
}
