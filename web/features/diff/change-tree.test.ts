import { describe, expect, it } from "vitest";
import type { FileChangeResponse } from "../../api/api.js";
import { changeTree, treeFiles } from "./change-tree.js";

const change = (path: string, status: FileChangeResponse["status"] = "modified", oldPath: string | null = null): FileChangeResponse => ({ path, status, old_path: oldPath, similarity: oldPath === null ? null : 93, base_size: 1, target_size: 1 });

describe("change tree", () => {
  it("nests files under their directories, joins single-directory chains, and sums line counts", () => {
    const tree = changeTree(
      [change("src/shop/billing/pricing.py", "renamed", "src/shop/pricing.py"), change("src/shop/cart.py"), change("README.md", "added"), change(".claude/settings.json")],
      new Map([
        ["src/shop/cart.py", { added: 3, removed: 1 }],
        ["src/shop/billing/pricing.py", { added: 1, removed: 1 }],
      ]),
    );
    expect(tree.files).toBe(4);
    expect(tree.added).toBe(4);
    const names = tree.children.map((node) => node.name);
    expect(names).toEqual([".claude", "src/shop", "README.md"]);
    const shop = tree.children[1];
    if (shop?.kind !== "directory") throw new Error("src/shop is a directory");
    expect(shop).toMatchObject({ path: "src/shop", files: 2, added: 4, removed: 2 });
    expect(shop.children.map((node) => node.name)).toEqual(["billing", "cart.py"]);
    expect(treeFiles(tree).map((file) => file.change.path)).toEqual([".claude/settings.json", "src/shop/billing/pricing.py", "src/shop/cart.py", "README.md"]);
  });
});
