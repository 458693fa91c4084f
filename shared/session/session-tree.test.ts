import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSessionText } from "./session-text.js";
import type { SessionTreeInput, SessionTreeNode } from "./session-tree.js";
import { buildSessionTree } from "./session-tree.js";
import { winkFixture } from "../../fixtures/paths.js";

const TREE_FILE = winkFixture("db5c4ea2-559a-52c5-8313-741e72978682.jsonl");

interface Shape {
  id: string;
  line: number;
  missing?: string[];
  missingParent?: string;
  children?: Shape[];
}

function shape<T extends SessionTreeInput>(node: SessionTreeNode<T>): Shape {
  return {
    id: node.sessionId,
    line: node.lineNumber,
    ...(node.missingChildren.length > 0 ? { missing: node.missingChildren } : {}),
    ...(node.missingParentId === null ? {} : { missingParent: node.missingParentId }),
    ...(node.children.length > 0 ? { children: node.children.map(shape) } : {}),
  };
}

function line(sessionId: string, lineNumber: number, parentId: string | null = null, childrenIds: string[] = []): SessionTreeInput {
  return { sessionId, lineNumber, parentId, childrenIds };
}

describe("buildSessionTree", () => {
  it("nests WINK's real session tree and lists the child the writer skipped as missing", () => {
    const { snapshots } = parseSessionText(readFileSync(TREE_FILE));
    const tree = buildSessionTree(snapshots);
    expect(tree.roots.map(shape)).toEqual([
      {
        id: "db5c4ea2-559a-52c5-8313-741e72978682",
        line: 1,
        missing: ["697af236-2ba5-58b5-aafb-da7b9042d70e"],
        children: [
          // children_ids order (registration), not file order (WINK writes them reversed)
          { id: "78789b9e-3e20-53c0-97ab-92eceb017908", line: 4 },
          {
            id: "07dca5ce-ff0b-548b-b731-8bcafa4a495c",
            line: 2,
            children: [{ id: "8a559633-e567-5a1f-a8bc-3dfff2aad673", line: 3 }],
          },
        ],
      },
    ]);
    expect(tree.duplicateSessionIds).toEqual([]);
    expect(tree.roots[0]?.snapshot).toBe(snapshots[0]);
    expect(() => JSON.stringify(tree.roots.map(shape))).not.toThrow();
  });

  it("keeps duplicate session ids apart by line and nests each child under the nearest earlier parent line listing it", () => {
    const tree = buildSessionTree([
      line("root", 1, null, ["a"]),
      line("a", 2, "root"),
      line("root", 4, null, ["a", "b"]),
      line("a", 5, "root"),
      line("b", 6, "root"),
    ]);
    expect(tree.roots.map(shape)).toEqual([
      { id: "root", line: 1, children: [{ id: "a", line: 2 }] },
      { id: "root", line: 4, children: [{ id: "a", line: 5 }, { id: "b", line: 6 }] },
    ]);
    expect(tree.duplicateSessionIds).toEqual(["root", "a"]);
  });

  it("marks a parent missing from the file and nests by children_ids when parent_id is absent", () => {
    const tree = buildSessionTree([
      line("orphan", 1, "gone"),
      line("p", 2, null, ["c"]),
      line("c", 3),
      { ...line("t", 4), tags: { session_id: "t", parent_session_id: "p" } },
    ]);
    expect(tree.roots.map(shape)).toEqual([
      { id: "orphan", line: 1, missingParent: "gone" },
      { id: "p", line: 2, children: [{ id: "c", line: 3 }, { id: "t", line: 4 }] },
    ]);
  });

  it("never loses a line to a cycle of parent ids", () => {
    const tree = buildSessionTree([line("a", 1, "b", ["b"]), line("b", 2, "a", ["a"]), line("self", 3, "self")]);
    const all: string[] = [];
    const visit = (node: SessionTreeNode<SessionTreeInput>): void => {
      all.push(node.sessionId);
      node.children.forEach(visit);
    };
    tree.roots.forEach(visit);
    expect(all.sort()).toEqual(["a", "b", "self"]);
  });

  it("handles a chain of 20,000 nested sessions without recursion limits", () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => line(`s${i}`, i + 1, i === 0 ? null : `s${i - 1}`, i === 19_999 ? [] : [`s${i + 1}`]));
    const tree = buildSessionTree(chain);
    expect(tree.roots).toHaveLength(1);
    let depth = 0;
    for (let node = tree.roots[0]; node !== undefined; node = node.children[0]) depth++;
    expect(depth).toBe(20_000);
  });
});
