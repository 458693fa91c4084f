/**
 * The session tree of a file: lines nested by `parent_id` / `children_ids`.
 *
 * Every line is its own node, so a session id that appears on two lines stays two nodes,
 * told apart by line number. A child line is attached to a line of its parent session:
 * preferably the nearest earlier one that lists it in `children_ids`. Children named in
 * `children_ids` that have no line in the file are listed as missing; a line whose parent
 * is not in the file becomes a root that says so.
 */

/** What tree building needs from a line (a full snapshot or a cheap summary both fit). */
export interface SessionTreeInput {
  readonly sessionId: string;
  readonly parentId: string | null;
  readonly childrenIds: readonly string[];
  readonly lineNumber: number;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface SessionTreeNode<T extends SessionTreeInput> {
  readonly sessionId: string;
  readonly lineNumber: number;
  readonly snapshot: T;
  /** Child lines: in `children_ids` order, then by line number. */
  readonly children: SessionTreeNode<T>[];
  /** Ids in `children_ids` with no line in the file (e.g. a child WINK skipped as empty). */
  readonly missingChildren: string[];
  /** The parent session id when it has no line in the file; null otherwise. */
  readonly missingParentId: string | null;
}

export interface SessionTree<T extends SessionTreeInput> {
  /** Top-level nodes in file order. */
  readonly roots: SessionTreeNode<T>[];
  /** Session ids that appear on more than one line. */
  readonly duplicateSessionIds: string[];
}

/** Builds the nested session tree of one file's lines (given in file order). */
export function buildSessionTree<T extends SessionTreeInput>(snapshots: readonly T[]): SessionTree<T> {
  const nodes = snapshots.map((snapshot) => ({
    sessionId: snapshot.sessionId,
    lineNumber: snapshot.lineNumber,
    snapshot,
    children: [] as Node<T>[],
    missingChildren: [] as string[],
    missingParentId: null as string | null,
  }));
  const byId = groupBy(nodes, (node) => [node.sessionId]);
  // Which lines list a session id among their children (each line at most once per id).
  const listedBy = groupBy(nodes, (node) => [...new Set(node.snapshot.childrenIds)]);

  // Parent links live beside the nodes so the tree itself stays acyclic (safe to serialise).
  const parents = new Map<Node<T>, Node<T>>();
  for (const node of nodes) {
    node.missingChildren = node.snapshot.childrenIds.filter((id) => !byId.has(id));
    const parentId = node.snapshot.parentId ?? node.snapshot.tags?.parent_session_id ?? null;
    const parent = chooseParent(node, parentId, byId, listedBy);
    if (parent !== null) parents.set(node, parent);
    else if (parentId !== null && !byId.has(parentId)) node.missingParentId = parentId;
  }
  breakCycles(nodes, parents);
  for (const node of nodes) parents.get(node)?.children.push(node);

  for (const node of nodes) {
    const order = node.snapshot.childrenIds;
    const rank = (child: Node<T>): number => {
      const index = order.indexOf(child.sessionId);
      return index === -1 ? Number.MAX_SAFE_INTEGER : index;
    };
    node.children.sort((a, b) => rank(a) - rank(b) || a.lineNumber - b.lineNumber);
  }

  const duplicateSessionIds = [...byId].filter(([, list]) => list.length > 1).map(([id]) => id);
  return { roots: nodes.filter((node) => !parents.has(node)), duplicateSessionIds };
}

type Node<T extends SessionTreeInput> = {
  -readonly [K in keyof SessionTreeNode<T>]: SessionTreeNode<T>[K];
};

function groupBy<T extends SessionTreeInput>(nodes: readonly Node<T>[], keys: (node: Node<T>) => string[]): Map<string, Node<T>[]> {
  const groups = new Map<string, Node<T>[]>();
  for (const node of nodes) {
    for (const key of keys(node)) {
      const list = groups.get(key);
      if (list === undefined) groups.set(key, [node]);
      else list.push(node);
    }
  }
  return groups;
}

/**
 * The line to nest `node` under: a line of its parent session (or, without a parent id, a
 * line listing it as a child), preferring lines that list it and then the nearest earlier one.
 */
function chooseParent<T extends SessionTreeInput>(
  node: Node<T>,
  parentId: string | null,
  byId: ReadonlyMap<string, Node<T>[]>,
  listedBy: ReadonlyMap<string, Node<T>[]>,
): Node<T> | null {
  const listers = listedBy.get(node.sessionId) ?? [];
  const candidates = parentId === null ? listers : (byId.get(parentId) ?? []);
  const others = candidates.filter((candidate) => candidate !== node);
  if (others.length === 0) return null;
  const listing = others.filter((candidate) => listers.includes(candidate));
  const pool = listing.length > 0 ? listing : others;
  const earlier = pool.filter((candidate) => candidate.lineNumber < node.lineNumber);
  return earlier.length > 0 ? (earlier[earlier.length - 1] ?? null) : (pool[0] ?? null);
}

/**
 * Parent ids that loop (a → b → a) would hide every line of the loop: detach the earliest
 * line of each loop so it becomes a root. Linear: each line is walked once.
 */
function breakCycles<T extends SessionTreeInput>(nodes: readonly Node<T>[], parents: Map<Node<T>, Node<T>>): void {
  const state = new Map<Node<T>, "walking" | "done">();
  for (const start of nodes) {
    const path: Node<T>[] = [];
    let current: Node<T> | undefined = start;
    while (current !== undefined && !state.has(current)) {
      state.set(current, "walking");
      path.push(current);
      current = parents.get(current);
    }
    if (current !== undefined && state.get(current) === "walking") {
      const loop = path.slice(path.indexOf(current));
      const earliest = loop.reduce((a, b) => (b.lineNumber < a.lineNumber ? b : a));
      parents.delete(earliest);
    }
    for (const node of path) state.set(node, "done");
  }
}
