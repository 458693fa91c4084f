import { describe, expect, it } from "vitest";
import { EventLoopSlices } from "./event-loop-slices.js";
import type { LineTree, TreeShape } from "./line-tree.js";
import { buildLineTree } from "./line-tree.js";
import type { SessionTreeInput, SessionTreeNode } from "./session-tree.js";
import { buildSessionTree } from "./session-tree.js";

interface Shape {
  line: number;
  missing: readonly string[];
  missingParent: string | null;
  children: Shape[];
}

const fromNodes = (node: SessionTreeNode<SessionTreeInput>): Shape => ({ line: node.lineNumber, missing: node.missingChildren, missingParent: node.missingParentId, children: node.children.map(fromNodes) });

function fromLines(tree: LineTree, lines: readonly SessionTreeInput[], at: number): Shape {
  return { line: (lines[at] as SessionTreeInput).lineNumber, missing: tree.missingChildren(at), missingParent: tree.missingParentId(at), children: tree.children(at).map((child) => fromLines(tree, lines, child)) };
}

/** A deterministic pseudo-random file: few session ids, parents, children lists, loops and self-references among them. */
function randomLines(seed: number, count: number): SessionTreeInput[] {
  let state = seed;
  const next = (n: number): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  const id = (): string => `s${next(8)}`;
  return Array.from({ length: count }, (_, i) => ({
    sessionId: id(),
    lineNumber: i + 1,
    parentId: next(3) === 0 ? null : id(),
    childrenIds: Array.from({ length: next(3) }, () => (next(5) === 0 ? "gone" : id())),
    ...(next(4) === 0 ? { tags: { parent_session_id: id() } } : {}),
  }));
}

describe("buildLineTree", () => {
  it("builds the same tree as buildSessionTree (node objects) over many random files", async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const lines = randomLines(seed, 1 + (seed % 40));
      const expected = buildSessionTree(lines);
      const tree = await buildLineTree({ length: lines.length, shapeAt: (at) => lines[at] as TreeShape, lineNumberAt: (at) => (lines[at] as SessionTreeInput).lineNumber });
      expect([...tree.roots].map((at) => fromLines(tree, lines, at)), `seed ${seed}`).toEqual(expected.roots.map(fromNodes));
      expect(tree.duplicateSessionIds).toEqual(expected.duplicateSessionIds);
    }
  });

  it("gives the event loop turns while it builds the tree of 300,000 lines sharing a few shapes", async () => {
    const shapes: TreeShape[] = Array.from({ length: 100 }, (_, i) => ({ sessionId: `s-${i}`, parentId: null, childrenIds: [] }));
    const source = { length: 300_000, shapeAt: (at: number) => shapes[at % 100] as TreeShape, lineNumberAt: (at: number) => at + 1 };
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const tree = await buildLineTree(source, new EventLoopSlices({ sliceMs: 1 }));
    clearInterval(timer);
    expect(tree.roots.length).toBe(300_000);
    expect(tree.duplicateSessionIds).toHaveLength(100);
    expect(turns).toBeGreaterThan(0);
  });
});
