/**
 * Hunks as display rows, for diffs shown without the full texts (slice diffs, files too
 * large to load whole): unified rows with both line numbers, or split rows pairing removed
 * and added lines of a block. Pure; virtualised by `HunkList`.
 */
import type { HunkResponse } from "../api/api.js";

export type RowKind = "context" | "add" | "del" | "hunk" | "note";

export interface UnifiedRow {
  readonly kind: RowKind;
  readonly oldLine: number | null;
  readonly newLine: number | null;
  readonly text: string;
}

export interface SplitCell {
  readonly kind: RowKind;
  readonly line: number | null;
  readonly text: string;
}

export interface SplitRow {
  readonly left: SplitCell | null;
  readonly right: SplitCell | null;
  readonly hunk?: string;
}

export function hunkHeader(hunk: HunkResponse): string {
  return `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`;
}

export function unifiedRows(hunks: readonly HunkResponse[]): UnifiedRow[] {
  const rows: UnifiedRow[] = [];
  for (const hunk of hunks) {
    rows.push({ kind: "hunk", oldLine: null, newLine: null, text: hunkHeader(hunk) });
    let oldLine = hunk.old_lines === 0 ? hunk.old_start + 1 : hunk.old_start;
    let newLine = hunk.new_lines === 0 ? hunk.new_start + 1 : hunk.new_start;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "-") rows.push({ kind: "del", oldLine: oldLine++, newLine: null, text });
      else if (mark === "+") rows.push({ kind: "add", oldLine: null, newLine: newLine++, text });
      else if (mark === " ") rows.push({ kind: "context", oldLine: oldLine++, newLine: newLine++, text });
      else rows.push({ kind: "note", oldLine: null, newLine: null, text: line.slice(1).trim() });
    }
  }
  return rows;
}

export function splitRows(hunks: readonly HunkResponse[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let removed: SplitCell[] = [];
  let added: SplitCell[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) rows.push({ left: removed[i] ?? null, right: added[i] ?? null });
    removed = [];
    added = [];
  };
  for (const row of unifiedRows(hunks)) {
    if (row.kind === "del") removed.push({ kind: "del", line: row.oldLine, text: row.text });
    else if (row.kind === "add") added.push({ kind: "add", line: row.newLine, text: row.text });
    else {
      flush();
      if (row.kind === "hunk") rows.push({ left: null, right: null, hunk: row.text });
      else if (row.kind === "context") rows.push({ left: { kind: "context", line: row.oldLine, text: row.text }, right: { kind: "context", line: row.newLine, text: row.text } });
      else rows.push({ left: { kind: "note", line: null, text: row.text }, right: null });
    }
  }
  flush();
  return rows;
}
