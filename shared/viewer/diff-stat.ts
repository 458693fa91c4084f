/**
 * Lines added and removed per changed file (what `git diff --numstat` prints), for the
 * changed-files tree of the compare view. Each file pair is read and line-diffed within a
 * budget of files, bytes and time; what the budget leaves out is marked `truncated`.
 */
import { decodeText } from "./file-content.js";
import type { FileSource } from "./file-source.js";
import { diffText } from "./text-diff.js";
import type { DiffStatView, FileChangeView } from "./types.js";

export interface DiffStatOptions {
  maxFiles?: number;
  /** Bytes read over both sides (default 32 MiB). */
  maxBytes?: number;
  /** Largest file counted (default 4 MiB). */
  maxFileBytes?: number;
  timeoutMs?: number;
  now?: () => number;
}

export async function diffStats(changes: readonly FileChangeView[], base: FileSource | null, target: FileSource | null, options: DiffStatOptions = {}): Promise<DiffStatView> {
  const now = options.now ?? (() => Date.now());
  const deadline = now() + (options.timeoutMs ?? 4000);
  const maxFiles = options.maxFiles ?? 1000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxFileBytes = options.maxFileBytes ?? 4 * 1024 * 1024;
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
    const read = async (source: FileSource | null, path: string, present: boolean) => (present && source !== null ? decodeText(await source.read(path, maxFileBytes, { transient: true })) : "");
    const [before, after] = await Promise.all([read(base, change.old_path ?? change.path, change.base_size !== null), read(target, change.path, change.target_size !== null)]);
    if (before === null || after === null) {
      view.files.push({ path: change.path, added: null, removed: null, binary: true });
      continue;
    }
    const result = diffText(before, after, { context: 0, timeoutMs: 200 });
    if (result.status !== "ok") {
      view.files.push({ path: change.path, added: null, removed: null, binary: false });
      continue;
    }
    let added = 0;
    let removed = 0;
    for (const hunk of result.hunks) {
      for (const line of hunk.lines) {
        if (line.startsWith("+")) added++;
        else if (line.startsWith("-")) removed++;
      }
    }
    view.files.push({ path: change.path, added, removed, binary: false });
  }
  return view;
}
