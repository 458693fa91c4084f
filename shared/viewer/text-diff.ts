/**
 * Line diffs of two texts as unified-diff hunks (jsdiff `structuredPatch`), bounded in
 * time: a fully rewritten file can take jsdiff seconds, so past `timeoutMs` the diff is
 * abandoned and the caller falls back (the server to `git diff --no-index`, the browser to
 * a whole-file replacement hunk).
 */
import { structuredPatch } from "diff";
import type { HunkView } from "./types.js";

export interface TextDiffOptions {
  /** Context lines around changes (default 3). */
  context?: number;
  /** Time budget in milliseconds (default 500). */
  timeoutMs?: number;
}

export type TextDiffResult = { readonly status: "ok"; readonly hunks: HunkView[] } | { readonly status: "timeout" };

/** The hunks turning `base` into `target`, or `timeout` when the budget ran out. */
export function diffText(base: string, target: string, options: TextDiffOptions = {}): TextDiffResult {
  if (base === target) return { status: "ok", hunks: [] };
  const patch = structuredPatch("a", "b", base, target, undefined, undefined, {
    context: options.context ?? 3,
    timeout: options.timeoutMs ?? 500,
  });
  if (patch === undefined) return { status: "timeout" };
  return { status: "ok", hunks: patch.hunks.map(toHunkView) };
}

/** One hunk replacing all of `base` by all of `target`: the fallback that is always correct. */
export function replacementHunk(base: string, target: string): HunkView[] {
  const oldLines = toLines(base);
  const newLines = toLines(target);
  if (oldLines.length === 0 && newLines.length === 0) return [];
  return [
    {
      old_start: oldLines.length === 0 ? 0 : 1,
      old_lines: oldLines.length,
      new_start: newLines.length === 0 ? 0 : 1,
      new_lines: newLines.length,
      lines: [...oldLines.map((line) => `-${line}`), ...noNewlineMarker(base), ...newLines.map((line) => `+${line}`), ...noNewlineMarker(target)],
    },
  ];
}

function toLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

function noNewlineMarker(text: string): string[] {
  return text !== "" && !text.endsWith("\n") ? ["\\ No newline at end of file"] : [];
}

/** A jsdiff hunk (or a parsed `git diff` hunk) in the API's shape. */
export function toHunkView(hunk: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }): HunkView {
  return { old_start: hunk.oldStart, old_lines: hunk.oldLines, new_start: hunk.newStart, new_lines: hunk.newLines, lines: hunk.lines };
}
