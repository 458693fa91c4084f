/**
 * Lines added and removed per changed file (what `git diff --numstat` prints), for the
 * changed-files tree of the compare view. Each file pair is read and line-diffed within a
 * budget of files, bytes and time; what the budget leaves out is marked `truncated`.
 */
import { decodeText } from "./file-content.js";
import type { FileSource } from "./file-source.js";
import { diffText } from "./text-diff.js";
import type { DiffStatView, FileChangeView, FileStatView } from "./types.js";

/** One file pair's counts: null counts for a binary file or a diff that ran out of time. */
export type LineCounts = Pick<FileStatView, "added" | "removed" | "binary">;

/** Counts one file pair (its two contents; empty for a side without the file). */
export type LineCounter = (before: Uint8Array, after: Uint8Array) => Promise<LineCounts>;

export interface DiffStatOptions {
  maxFiles?: number;
  /** Bytes read over both sides (default 32 MiB). */
  maxBytes?: number;
  /** Largest file counted (default 4 MiB). */
  maxFileBytes?: number;
  timeoutMs?: number;
  now?: () => number;
  /**
   * Counts one pair (default {@link countChangedLines} on the calling thread; the server runs
   * big pairs on its worker thread, as a fully rewritten file costs seconds of line diffing).
   */
  count?: LineCounter;
}

/** jsdiff's budget per file pair before the pair is reported without counts. */
export const LINE_COUNT_TIMEOUT_MS = 200;

/** Lines added and removed between two contents (a line diff with no context), on the calling thread. */
export function countChangedLines(before: Uint8Array, after: Uint8Array, timeoutMs = LINE_COUNT_TIMEOUT_MS): LineCounts {
  const beforeText = decodeText(before);
  const afterText = decodeText(after);
  if (beforeText === null || afterText === null) return { added: null, removed: null, binary: true };
  const result = diffText(beforeText, afterText, { context: 0, timeoutMs });
  if (result.status !== "ok") return { added: null, removed: null, binary: false };
  let added = 0;
  let removed = 0;
  for (const hunk of result.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { added, removed, binary: false };
}

const countHere: LineCounter = async (before, after) => countChangedLines(before, after);

export async function diffStats(changes: readonly FileChangeView[], base: FileSource | null, target: FileSource | null, options: DiffStatOptions = {}): Promise<DiffStatView> {
  const now = options.now ?? (() => Date.now());
  const deadline = now() + (options.timeoutMs ?? 4000);
  const maxFiles = options.maxFiles ?? 1000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxFileBytes = options.maxFileBytes ?? 4 * 1024 * 1024;
  const count = options.count ?? countHere;
  const view: DiffStatView = { files: [], truncated: false };
  let spent = 0;
  for (const change of changes) {
    const size = (change.base_size ?? 0) + (change.target_size ?? 0);
    if (view.files.length >= maxFiles || spent + size > maxBytes || now() > deadline) {
      view.truncated = true;
      break;
    }
    if ((change.base_size ?? 0) > maxFileBytes || (change.target_size ?? 0) > maxFileBytes) {
      view.files.push({ path: change.path, added: null, removed: null, binary: false });
      continue;
    }
    spent += size;
    const read = async (source: FileSource | null, path: string, present: boolean) => (present && source !== null ? source.read(path, maxFileBytes, { transient: true }) : new Uint8Array());
    const [before, after] = await Promise.all([read(base, change.old_path ?? change.path, change.base_size !== null), read(target, change.path, change.target_size !== null)]);
    view.files.push({ path: change.path, ...(await count(before, after)) });
  }
  return view;
}
