/**
 * Every snapshot of the directory in the order the session panel shows them (files by
 * path, each file's session tree depth-first), for previous/next navigation, the palette
 * and the compare pickers.
 */
import type { FileListResponse, RunResponse, SessionNodeResponse, SnapshotRef } from "../../api/api.js";

export interface SnapshotEntry extends SnapshotRef {
  readonly sessionId: string;
  readonly createdAt: string;
  readonly depth: number;
  readonly fileName: string;
  readonly eventCount: number;
  readonly tags: Readonly<Record<string, string>>;
}

export function flattenSnapshots(list: FileListResponse | undefined): SnapshotEntry[] {
  const result: SnapshotEntry[] = [];
  if (list === undefined) return result;
  const visit = (file: FileListResponse["files"][number], node: SessionNodeResponse, depth: number) => {
    result.push({ file: file.path, line: node.line_number, sessionId: node.session_id, createdAt: node.created_at, depth, fileName: file.name, eventCount: node.event_count, tags: node.tags });
    for (const child of node.children) visit(file, child, depth + 1);
  };
  for (const file of list.files) for (const node of file.sessions) visit(file, node, 0);
  return result;
}

/** The entry `step` places after (or before, when negative) `ref`, clamped; null when `ref` is unknown. */
export function stepSnapshot(entries: readonly SnapshotEntry[], ref: SnapshotRef | null, step: number): SnapshotEntry | null {
  if (entries.length === 0) return null;
  const index = ref === null ? -1 : entries.findIndex((entry) => entry.file === ref.file && entry.line === ref.line);
  if (index === -1) return entries[0] ?? null;
  return entries[Math.min(entries.length - 1, Math.max(0, index + step))] ?? null;
}

/** A one-line label: `file.jsonl · line 3 · 07dca5ce…`. */
export function snapshotLabel(entry: SnapshotEntry): string {
  return `${entry.fileName} · line ${entry.line} · ${entry.sessionId}`;
}

/** The snapshots of the session `target` belongs to, in the run's order (oldest first); empty when the run does not list it. */
export function sessionSnapshots(run: RunResponse | undefined, target: SnapshotRef): SnapshotRef[] {
  if (run === undefined || run.source.path !== target.file) return [];
  const session = run.sessions.find((candidate) => candidate.snapshots.some((snapshot) => snapshot.line_number === target.line));
  return (session?.snapshots ?? []).map((snapshot) => ({ file: target.file, line: snapshot.line_number }));
}
