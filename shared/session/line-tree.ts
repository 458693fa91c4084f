/**
 * The session tree of a file (see `session-tree.ts`, whose rules it follows line for line),
 * built over line positions in typed arrays instead of one node object per line. The tree of a
 * file of 1.5 million lines built a node, its summary object and two arrays a line (17.6 s
 * with every other request waiting, ~500 bytes a line); here a line costs four integers while
 * the tree is built, its work is cut into event-loop slices, and a caller builds objects only
 * for the nodes it shows (a page of roots).
 *
 * What a line says about the tree (session id, parent, children) is asked of its "shape":
 * lines that share a shape object share those answers, so a file whose lines repeat a few
 * envelopes does that work once per envelope, not once per line.
 */
import type { EventLoopSlices } from "./event-loop-slices.js";

/** What tree building needs of a line but its line number; lines may share one object. */
export interface TreeShape {
  readonly sessionId: string;
  readonly parentId: string | null;
  readonly childrenIds: readonly string[];
  readonly tags?: Readonly<Record<string, string>>;
}

/** A file's lines as the tree reads them, by position (0-based, file order). */
export interface TreeLineSource {
  readonly length: number;
  shapeAt(position: number): TreeShape;
  lineNumberAt(position: number): number;
}

export interface LineTree {
  /** Positions of the top-level lines, in file order. */
  readonly roots: Int32Array;
  /** Session ids that appear on more than one line. */
  readonly duplicateSessionIds: string[];
  /** The child lines of a line, in `children_ids` order, then by line number. */
  children(position: number): number[];
  /** Ids in `children_ids` with no line in the file. */
  missingChildren(position: number): readonly string[];
  /** The parent session id when it has no line in the file; null otherwise. */
  missingParentId(position: number): string | null;
}

const NO_PARENT = -1;

interface SessionFacts {
  /** The session's ordinal (index into the session ids), or -1. */
  readonly ordinal: number;
  readonly parentId: string | null;
  readonly missingChildren: readonly string[];
  readonly missingParentId: string | null;
  readonly listsSelf: boolean;
  /** Distinct known child sessions' ordinals this shape lists. */
  readonly listed: readonly number[];
}

/** Positions to nest a line under: lines of its parent session that list it, and all candidates. */
interface Pool {
  readonly listing: ArrayLike<number>;
  readonly candidates: ArrayLike<number>;
}

/** Builds the tree of `lines`, giving the event loop a turn whenever `slices` says so. */
export async function buildLineTree(lines: TreeLineSource, slices?: EventLoopSlices): Promise<LineTree> {
  const count = lines.length;
  const pace = async (): Promise<void> => {
    if (slices?.due() === true) await slices.pause();
  };

  // Sessions by ordinal, each line's ordinal, and the lines of each session (counting sort).
  const ordinals = new Map<string, number>();
  const sessionIds: string[] = [];
  const sessionOf = new Int32Array(count);
  const ordinalOfShape = new Map<TreeShape, number>();
  let ascending = true;
  for (let at = 0; at < count; at++) {
    const shape = lines.shapeAt(at);
    let ordinal = ordinalOfShape.get(shape);
    if (ordinal === undefined) {
      ordinal = ordinals.get(shape.sessionId);
      if (ordinal === undefined) {
        ordinal = sessionIds.push(shape.sessionId) - 1;
        ordinals.set(shape.sessionId, ordinal);
      }
      ordinalOfShape.set(shape, ordinal);
    }
    sessionOf[at] = ordinal;
    if (at > 0 && lines.lineNumberAt(at - 1) >= lines.lineNumberAt(at)) ascending = false;
    await pace();
  }
  ordinalOfShape.clear();
  const sessionStart = new Int32Array(sessionIds.length + 1);
  for (let at = 0; at < count; at++) {
    const next = (sessionOf[at] as number) + 1;
    sessionStart[next] = (sessionStart[next] as number) + 1;
  }
  for (let s = 0; s < sessionIds.length; s++) sessionStart[s + 1] = (sessionStart[s + 1] as number) + (sessionStart[s] as number);
  const bySession = new Int32Array(count);
  {
    const fill = sessionStart.slice(0, sessionIds.length);
    for (let at = 0; at < count; at++) {
      const s = sessionOf[at] as number;
      bySession[(fill[s] as number)++] = at;
    }
  }
  const linesOf = (ordinal: number): Int32Array => bySession.subarray(sessionStart[ordinal] as number, sessionStart[ordinal + 1] as number);

  // What each shape says, once per shape.
  const facts = new Map<TreeShape, SessionFacts>();
  const factsOf = (shape: TreeShape): SessionFacts => {
    let known = facts.get(shape);
    if (known === undefined) {
      const parentId = shape.parentId ?? shape.tags?.parent_session_id ?? null;
      const listed = new Set<number>();
      for (const id of shape.childrenIds) {
        const ordinal = ordinals.get(id);
        if (ordinal !== undefined) listed.add(ordinal);
      }
      known = {
        ordinal: ordinals.get(shape.sessionId) ?? -1,
        parentId,
        missingChildren: shape.childrenIds.filter((id) => !ordinals.has(id)),
        missingParentId: parentId !== null && !ordinals.has(parentId) ? parentId : null,
        listsSelf: shape.childrenIds.includes(shape.sessionId),
        listed: [...listed],
      };
      facts.set(shape, known);
    }
    return known;
  };

  // Which lines list each session among their children (each line once per session), in file order.
  const listedBy = new Map<number, number[]>();
  for (let at = 0; at < count; at++) {
    for (const ordinal of factsOf(lines.shapeAt(at)).listed) {
      const list = listedBy.get(ordinal);
      if (list === undefined) listedBy.set(ordinal, [at]);
      else list.push(at);
    }
    await pace();
  }

  // The pool of candidate parents depends on the session and its parent id only.
  const pools = new Map<string, Pool>();
  const poolOf = (facts: SessionFacts): Pool => {
    const key = `${facts.ordinal}\n${facts.parentId === null ? "" : `=${facts.parentId}`}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      const listers = listedBy.get(facts.ordinal) ?? [];
      if (facts.parentId === null) {
        pool = { listing: listers, candidates: listers };
      } else {
        const parent = ordinals.get(facts.parentId);
        pool = { listing: parent === undefined ? [] : listers.filter((at) => sessionOf[at] === parent), candidates: parent === undefined ? [] : linesOf(parent) };
      }
      pools.set(key, pool);
    }
    return pool;
  };

  const parents = new Int32Array(count).fill(NO_PARENT);
  for (let at = 0; at < count; at++) {
    const own = factsOf(lines.shapeAt(at));
    const { listing, candidates } = poolOf(own);
    // Whether this line is among the candidates (its parent is its own session, or it lists itself).
    const selfCandidate = own.parentId === null ? own.listsSelf : own.parentId === lines.shapeAt(at).sessionId;
    const selfListing = selfCandidate && own.listsSelf;
    const others = candidates.length - (selfCandidate ? 1 : 0);
    if (others <= 0) continue;
    const pool = listing.length - (selfListing ? 1 : 0) > 0 ? listing : candidates;
    parents[at] = nearestEarlier(pool, at, lines, ascending);
    await pace();
  }

  // Parent ids that loop would hide every line of the loop: the earliest line of each becomes a root.
  const state = new Uint8Array(count);
  const path: number[] = [];
  for (let start = 0; start < count; start++) {
    path.length = 0;
    let current = start;
    while (current !== NO_PARENT && state[current] === 0) {
      state[current] = 1;
      path.push(current);
      current = parents[current] as number;
    }
    if (current !== NO_PARENT && state[current] === 1) {
      let earliest = current;
      for (let i = path.indexOf(current); i < path.length; i++) {
        const candidate = path[i] as number;
        if (lines.lineNumberAt(candidate) < lines.lineNumberAt(earliest)) earliest = candidate;
      }
      parents[earliest] = NO_PARENT;
    }
    for (const node of path) state[node] = 2;
    await pace();
  }

  // Children by parent (counting sort, file order within a parent); roots in file order.
  const childStart = new Int32Array(count + 1);
  let rootCount = 0;
  for (let at = 0; at < count; at++) {
    const parent = parents[at] as number;
    if (parent === NO_PARENT) rootCount++;
    else childStart[parent + 1] = (childStart[parent + 1] as number) + 1;
  }
  for (let at = 0; at < count; at++) childStart[at + 1] = (childStart[at + 1] as number) + (childStart[at] as number);
  const childList = new Int32Array(count - rootCount);
  const roots = new Int32Array(rootCount);
  {
    const fill = childStart.slice(0, count);
    let root = 0;
    for (let at = 0; at < count; at++) {
      const parent = parents[at] as number;
      if (parent === NO_PARENT) roots[root++] = at;
      else childList[(fill[parent] as number)++] = at;
    }
  }

  const duplicateSessionIds: string[] = [];
  for (let s = 0; s < sessionIds.length; s++) if ((sessionStart[s + 1] as number) - (sessionStart[s] as number) > 1) duplicateSessionIds.push(sessionIds[s] as string);

  return {
    roots,
    duplicateSessionIds,
    children: (position) => {
      const order = lines.shapeAt(position).childrenIds;
      const rank = (child: number): number => {
        const index = order.indexOf(sessionIds[sessionOf[child] as number] as string);
        return index === -1 ? Number.MAX_SAFE_INTEGER : index;
      };
      const children = [...childList.subarray(childStart[position] as number, childStart[position + 1] as number)];
      return children.sort((a, b) => rank(a) - rank(b) || lines.lineNumberAt(a) - lines.lineNumberAt(b));
    },
    missingChildren: (position) => factsOf(lines.shapeAt(position)).missingChildren,
    missingParentId: (position) => (parents[position] === NO_PARENT ? factsOf(lines.shapeAt(position)).missingParentId : null),
  };
}

/**
 * Of `pool` (positions in file order, maybe holding `self`), the last line before `self`'s line
 * number, else the first that is not `self`.
 */
function nearestEarlier(pool: ArrayLike<number>, self: number, lines: TreeLineSource, ascending: boolean): number {
  const own = lines.lineNumberAt(self);
  if (ascending) {
    // Line numbers rise with positions: the last one below `own` by bisection.
    let low = 0;
    let high = pool.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (lines.lineNumberAt(pool[middle] as number) < own) low = middle + 1;
      else high = middle;
    }
    if (low > 0) return pool[low - 1] as number;
  } else {
    for (let i = pool.length - 1; i >= 0; i--) if (lines.lineNumberAt(pool[i] as number) < own) return pool[i] as number;
  }
  const first = pool[0] as number;
  return first === self ? (pool[1] as number) : first;
}
