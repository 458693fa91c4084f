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
  /** Line errors from the `errorsOffset`-th (the file's first ones by default). */
  readonly errors: readonly SessionLineError[];
  /** Every line error of the file (default: `errors.length`). */
  readonly errorCount?: number;
  /** Where `errors` starts among the file's line errors (default 0). */
  readonly errorsOffset?: number;
}

/**
 * A bounded page of one file's view: a file of 2,000,000 lines listed 2,000,000 errors or
 * sessions (68-230 MiB) in every `/api/files`. `error_count` and `session_count` say how
 * many there are in all.
 */
export interface SessionFilePage {
  /** Line errors listed (default {@link DEFAULT_LISTED_ERRORS}), from `errorsOffset` of the input. */
  readonly errorsLimit?: number;
  /** The first top-level session listed (0-based; default 0) and how many (default {@link DEFAULT_LISTED_SESSIONS}). */
  readonly sessionsOffset?: number;
  readonly sessionsLimit?: number;
}

export const DEFAULT_LISTED_ERRORS = 100;
export const DEFAULT_LISTED_SESSIONS = 1000;

/** The view of a line error. */
export function lineErrorView(error: SessionLineError): LineErrorView {
  return { line_number: error.lineNumber, kind: error.kind, reason: error.reason, session_id: error.sessionId ?? null };
}

/** One file with its session tree. */
export function sessionFileView(file: SessionFileInput, page: SessionFilePage = {}): SessionFileView {
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
  const sessionsOffset = page.sessionsOffset ?? 0;
  const roots = tree.roots.slice(sessionsOffset, sessionsOffset + (page.sessionsLimit ?? DEFAULT_LISTED_SESSIONS));
  return {
    path: file.path,
    name: file.name,
    size_bytes: file.sizeBytes,
    modified_at: file.modifiedAt,
    status: file.status,
    error: file.error ?? (noLines ? "The file contains no loadable snapshot line" : null),
    line_count: file.lineCount,
    snapshot_count: file.lines.length,
    errors: file.errors.slice(0, page.errorsLimit ?? DEFAULT_LISTED_ERRORS).map(lineErrorView),
    error_count: file.errorCount ?? file.errors.length,
    errors_offset: file.errorsOffset ?? 0,
    duplicate_session_ids: tree.duplicateSessionIds,
    sessions: roots.map(nodeView),
    session_count: tree.roots.length,
    sessions_offset: sessionsOffset,
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
