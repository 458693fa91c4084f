/**
 * The server's line hunks as the character ranges @codemirror/merge draws, so the diff the
 * user sees is the one the server computed (with its time budget and git fallback) and the
 * browser never diffs whole files. Within each changed block a character diff marks what
 * changed inside the lines, when the block is small enough for that to be cheap.
 */
import type { HunkResponse } from "../api/api.js";

export interface CharChange {
  readonly fromA: number;
  readonly toA: number;
  readonly fromB: number;
  readonly toB: number;
}

/**
 * Offsets where each line starts, plus the text's length at the end. A line here ends at
 * "\n" alone, as the server's hunks count lines (jsdiff, git): not `lineStarts` of
 * shared/filesystem/text.ts, whose lines are Python's `splitlines()`.
 */
export function hunkLineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  if (starts[starts.length - 1] !== text.length) starts.push(text.length);
  return starts;
}

/** Largest changed block (per side, in characters) given a character-level diff. */
export const MAX_INNER_DIFF_CHARS = 20_000;

/**
 * Character ranges for `hunks` over texts `a` and `b`. `inner`, when given, diffs the
 * text of a changed block; its ranges are relative to the block.
 */
export function hunksToChanges(hunks: readonly HunkResponse[], a: string, b: string, inner?: (blockA: string, blockB: string) => readonly CharChange[]): CharChange[] {
  const startsA = hunkLineStarts(a);
  const startsB = hunkLineStarts(b);
  const offsetA = (line: number) => startsA[Math.min(line - 1, startsA.length - 1)] ?? a.length;
  const offsetB = (line: number) => startsB[Math.min(line - 1, startsB.length - 1)] ?? b.length;
  const changes: CharChange[] = [];

  const push = (lineA: number, countA: number, lineB: number, countB: number) => {
    if (countA === 0 && countB === 0) return;
    const fromA = offsetA(lineA);
    const toA = offsetA(lineA + countA);
    const fromB = offsetB(lineB);
    const toB = offsetB(lineB + countB);
    if (inner !== undefined && countA > 0 && countB > 0 && toA - fromA <= MAX_INNER_DIFF_CHARS && toB - fromB <= MAX_INNER_DIFF_CHARS) {
      for (const change of inner(a.slice(fromA, toA), b.slice(fromB, toB))) {
        changes.push({ fromA: fromA + change.fromA, toA: fromA + change.toA, fromB: fromB + change.fromB, toB: fromB + change.toB });
      }
    } else {
      changes.push({ fromA, toA, fromB, toB });
    }
  };

  for (const hunk of hunks) {
    // A side with no lines names the line before the change (unified-diff convention).
    let lineA = hunk.old_lines === 0 ? hunk.old_start + 1 : hunk.old_start;
    let lineB = hunk.new_lines === 0 ? hunk.new_start + 1 : hunk.new_start;
    let blockA = lineA;
    let blockB = lineB;
    let removed = 0;
    let added = 0;
    for (const text of hunk.lines) {
      const mark = text[0];
      if (mark === "-") {
        removed++;
      } else if (mark === "+") {
        added++;
      } else if (mark === " ") {
        push(blockA, removed, blockB, added);
        lineA = blockA + removed + 1;
        lineB = blockB + added + 1;
        blockA = lineA;
        blockB = lineB;
        removed = 0;
        added = 0;
      }
    }
    push(blockA, removed, blockB, added);
  }
  return changes;
}
