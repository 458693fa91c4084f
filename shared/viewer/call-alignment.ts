/**
 * Two runs' tool calls side by side (a failed run against a passing run of the same sample):
 * the two sequences aligned as a diff, calls matching when they have the same tool and the
 * same key argument, and the first row where they part. Pure and browser-safe: the viewer
 * aligns what it fetched, and the tests pin the alignment without a browser.
 */

/** What the alignment looks at in a call: its tool, its key argument, whether it succeeded. */
export interface AlignableCall {
  readonly tool: string;
  /** The key argument's value (path, command, pattern…); null when the call has none. */
  readonly argument: string | null;
  /** `false` for a failed call; null when unknown. */
  readonly success: boolean | null;
}

/**
 * `same`: one call on both sides, and both succeeded (or neither said);
 * `result`: the same call on both sides, one failed and the other did not;
 * `changed`: the same tool at that place with another key argument;
 * `left` / `right`: a call only the left (failed) or right (passing) run made.
 */
export type AlignmentKind = "same" | "result" | "changed" | "left" | "right";

export interface AlignmentRow {
  readonly kind: AlignmentKind;
  /** Index of the call in the left sequence, or null on a `right` row. */
  readonly left: number | null;
  /** Index of the call in the right sequence, or null on a `left` row. */
  readonly right: number | null;
}

export interface CallAlignment {
  readonly rows: readonly AlignmentRow[];
  /** Index in `rows` of the first row that is not `same`; null when the sequences agree. */
  readonly firstDivergence: number | null;
  /** True when the sequences were too long for a full alignment and the middle was paired in order. */
  readonly approximate: boolean;
}

/**
 * The table of the longest common subsequence costs (left × right) 4 bytes a cell: past this
 * many cells (16 MiB) the middle part, after the common head and tail, is paired in order.
 */
export const MAX_ALIGNMENT_CELLS = 4_000_000;

const keyOf = (call: AlignableCall) => `${call.tool}\u0000${call.argument ?? ""}`;

function matchedRow(left: AlignableCall, leftIndex: number, right: AlignableCall, rightIndex: number): AlignmentRow {
  const differs = left.success !== null && right.success !== null && left.success !== right.success;
  return { kind: differs ? "result" : "same", left: leftIndex, right: rightIndex };
}

/**
 * Runs of unmatched calls between two matches: a left call and a right call of the same tool
 * at the same position of the run are one `changed` row (the same step, another argument);
 * the rest stay apart, left first.
 */
function gapRows(left: readonly AlignableCall[], leftFrom: number, leftTo: number, right: readonly AlignableCall[], rightFrom: number, rightTo: number): AlignmentRow[] {
  const rows: AlignmentRow[] = [];
  let i = leftFrom;
  let j = rightFrom;
  while (i < leftTo || j < rightTo) {
    const a = i < leftTo ? left[i] : undefined;
    const b = j < rightTo ? right[j] : undefined;
    if (a !== undefined && b !== undefined && a.tool === b.tool) {
      rows.push({ kind: "changed", left: i++, right: j++ });
    } else if (a !== undefined && (b === undefined || !right.slice(j, rightTo).some((call) => call.tool === a.tool))) {
      rows.push({ kind: "left", left: i++, right: null });
    } else if (b !== undefined) {
      rows.push({ kind: "right", left: null, right: j++ });
    } else {
      rows.push({ kind: "left", left: i++, right: null });
    }
  }
  return rows;
}

/** Aligns `left` (the failed run's calls, in order) against `right` (the passing run's). */
export function alignCalls(left: readonly AlignableCall[], right: readonly AlignableCall[]): CallAlignment {
  const leftKeys = left.map(keyOf);
  const rightKeys = right.map(keyOf);
  let head = 0;
  while (head < left.length && head < right.length && leftKeys[head] === rightKeys[head]) head += 1;
  let tail = 0;
  while (tail < left.length - head && tail < right.length - head && leftKeys[left.length - 1 - tail] === rightKeys[right.length - 1 - tail]) tail += 1;

  const rows: AlignmentRow[] = [];
  for (let k = 0; k < head; k += 1) rows.push(matchedRow(left[k] as AlignableCall, k, right[k] as AlignableCall, k));

  const n = left.length - head - tail;
  const m = right.length - head - tail;
  let approximate = false;
  if (n > 0 || m > 0) {
    if (n === 0 || m === 0 || (n + 1) * (m + 1) <= MAX_ALIGNMENT_CELLS) {
      // lcs[i][j]: the longest common subsequence of the middle's suffixes from i and j.
      const width = m + 1;
      const lcs = new Uint32Array((n + 1) * width);
      for (let i = n - 1; i >= 0; i -= 1) {
        for (let j = m - 1; j >= 0; j -= 1) {
          lcs[i * width + j] = leftKeys[head + i] === rightKeys[head + j] ? (lcs[(i + 1) * width + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
        }
      }
      let i = 0;
      let j = 0;
      let gapLeft = 0;
      let gapRight = 0;
      while (i < n && j < m) {
        if (leftKeys[head + i] === rightKeys[head + j]) {
          rows.push(...gapRows(left, head + gapLeft, head + i, right, head + gapRight, head + j));
          rows.push(matchedRow(left[head + i] as AlignableCall, head + i, right[head + j] as AlignableCall, head + j));
          i += 1;
          j += 1;
          gapLeft = i;
          gapRight = j;
        } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number)) {
          i += 1;
        } else {
          j += 1;
        }
      }
      rows.push(...gapRows(left, head + gapLeft, head + n, right, head + gapRight, head + m));
    } else {
      approximate = true;
      rows.push(...gapRows(left, head, head + n, right, head, head + m));
    }
  }

  for (let k = tail; k > 0; k -= 1) rows.push(matchedRow(left[left.length - k] as AlignableCall, left.length - k, right[right.length - k] as AlignableCall, right.length - k));
  const divergence = rows.findIndex((row) => row.kind !== "same");
  return { rows, firstDivergence: divergence === -1 ? null : divergence, approximate };
}
