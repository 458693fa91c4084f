/**
 * `/api/files`: the session files of a directory, each with its line errors and its
 * session tree (lines nested by `parent_id` / `children_ids`, duplicates kept apart).
 */
import type { SessionLineError } from "../session/snapshot-line.js";
import type { SessionTreeNode } from "../session/session-tree.js";
import { buildSessionTree } from "../session/session-tree.js";
import type { IndexedSnapshotLine } from "./snapshot-view.js";
import { validationErrorText } from "./snapshot-view.js";
import type { LineErrorView, SessionFileView, SessionNodeView } from "./types.js";

/** What is known about one session file. */
export interface SessionFileInput {
  readonly path: string;
  readonly name: string;
  readonly sizeBytes: number;
  readonly modifiedAt: string;
  readonly status: "ready" | "pending" | "error";
  /** Why the file could not be read (status `error`). */
  readonly error?: string | null;
  readonly lineCount: number;
  readonly lines: readonly IndexedSnapshotLine[];
  readonly errors: readonly SessionLineError[];
}

/** The view of a line error. */
export function lineErrorView(error: SessionLineError): LineErrorView {
  return { line_number: error.lineNumber, kind: error.kind, reason: error.reason, session_id: error.sessionId ?? null };
}

/** One file with its session tree. */
export function sessionFileView(file: SessionFileInput): SessionFileView {
  const inputs = file.lines.map((line) => ({
    sessionId: line.summary.sessionId,
    parentId: line.summary.parentId,
    childrenIds: line.summary.childrenIds,
    lineNumber: line.lineNumber,
    tags: line.summary.tags,
    line,
  }));
  const tree = buildSessionTree(inputs);
  const noLines = file.status === "ready" && file.lines.length === 0;
  return {
    path: file.path,
    name: file.name,
    size_bytes: file.sizeBytes,
    modified_at: file.modifiedAt,
    status: file.status,
    error: file.error ?? (noLines ? "The file contains no loadable snapshot line" : null),
    line_count: file.lineCount,
    snapshot_count: file.lines.length,
    errors: file.errors.map(lineErrorView),
    duplicate_session_ids: tree.duplicateSessionIds,
    sessions: tree.roots.map(nodeView),
  };
}

function nodeView(node: SessionTreeNode<{ sessionId: string; parentId: string | null; childrenIds: readonly string[]; lineNumber: number; line: IndexedSnapshotLine }>): SessionNodeView {
  const { summary } = node.snapshot.line;
  return {
    session_id: node.sessionId,
    line_number: node.lineNumber,
    created_at: summary.createdAt,
    tags: { ...summary.tags },
    parent_id: summary.parentId,
    slice_count: summary.slices.length,
    event_count: summary.slices.reduce((sum, slice) => sum + (slice.kind === "event" ? slice.count : 0), 0),
    validation_error: validationErrorText(summary.validationErrors),
    missing_children: [...node.missingChildren],
    missing_parent_id: node.missingParentId,
    children: node.children.map(nodeView),
  };
}
