import { describe, expect, it } from "vitest";
import { buildFileTree } from "../../../shared/viewer/file-tree.js";
import { ancestors, countFiles, initialExpanded, visibleRows } from "./tree-rows.js";

const entries = ["a/x.txt", "a/b/y.txt", "a/b/c/z.txt", "top.md", "w/1.txt"].map((path) => ({ path, size: 1, fingerprint: 0 }));
const root = buildFileTree(entries, { added: ["a/b/c/z.txt"], modified: [], deleted: ["gone/old.txt"], unchangedCount: 4 }, new Map([["gone/old.txt", 3]]));

describe("file tree rows", () => {
  it("shows only expanded directories, directories first", () => {
    const rows = visibleRows(root, { expanded: new Set(["a"]), filter: "", changedOnly: false });
    expect(rows.map((row) => `${row.depth}:${row.node.path}`)).toEqual(["0:a", "1:a/b", "1:a/x.txt", "0:gone", "0:w", "0:top.md"]);
  });

  it("filters by path, showing matches with their directories", () => {
    expect(visibleRows(root, { expanded: new Set(), filter: "Z.TXT", changedOnly: false }).map((row) => row.node.path)).toEqual(["a", "a/b", "a/b/c", "a/b/c/z.txt"]);
    expect(visibleRows(root, { expanded: new Set(), filter: "", changedOnly: true }).map((row) => row.node.path)).toEqual(["a", "a/b", "a/b/c", "a/b/c/z.txt", "gone", "gone/old.txt"]);
  });

  it("opens the directories holding changes and those above the selection", () => {
    expect([...initialExpanded(root, "w/1.txt")].sort()).toEqual(["a", "a/b", "a/b/c", "gone", "w"]);
    expect(ancestors("a/b/c.txt")).toEqual(["a", "a/b"]);
    expect(countFiles(root)).toBe(5);
  });
});
