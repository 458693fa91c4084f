/**
 * `/api/files`: the session files of a directory, each with its line errors and its
 * session tree (lines nested by `parent_id` / `children_ids`, duplicates kept apart).
 */
import type { EnvelopeSummary } from "../session/envelope-scan.js";
import type { EventLoopSlices } from "../session/event-loop-slices.js";
import type { TreeLineSource } from "../session/line-tree.js";
import { buildLineTree } from "../session/line-tree.js";
import type { SessionLineError } from "../session/snapshot-line.js";
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
  /** The loaded lines, in file order: objects, or a column index read by position. */
  readonly lines: readonly IndexedSnapshotLine[] | ListedLines;
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

/** A file's lines by position without an object for each (a column index: `SessionLines`). */
export interface ListedLines extends TreeLineSource {
  /** The line's summary, built now. */
  summaryAt(position: number): EnvelopeSummary;
}

function listedLines(lines: readonly IndexedSnapshotLine[] | ListedLines): ListedLines {
  if (!Array.isArray(lines)) return lines as ListedLines;
  const array = lines as readonly IndexedSnapshotLine[];
  return {
    length: array.length,
    shapeAt: (position) => (array[position] as IndexedSnapshotLine).summary,
    lineNumberAt: (position) => (array[position] as IndexedSnapshotLine).lineNumber,
    summaryAt: (position) => (array[position] as IndexedSnapshotLine).summary,
  };
}

/**
 * One file with its session tree: a page of its top-level sessions. The tree is built over
 * line positions (`buildLineTree`), in event-loop slices when `slices` is given, and only the
 * page's nodes are made into views.
 */
export async function sessionFileView(file: SessionFileInput, page: SessionFilePage = {}, slices?: EventLoopSlices): Promise<SessionFileView> {
  const lines = listedLines(file.lines);
  const tree = await buildLineTree(lines, slices);
  const noLines = file.status === "ready" && lines.length === 0;
  const sessionsOffset = page.sessionsOffset ?? 0;
  const roots = tree.roots.subarray(sessionsOffset, sessionsOffset + (page.sessionsLimit ?? DEFAULT_LISTED_SESSIONS));
  const nodeView = (position: number): SessionNodeView => {
    const summary = lines.summaryAt(position);
    return {
      session_id: summary.sessionId,
      line_number: lines.lineNumberAt(position),
      created_at: summary.createdAt,
      tags: { ...summary.tags },
      parent_id: summary.parentId,
      slice_count: summary.slices.length,
      event_count: summary.slices.reduce((sum, slice) => sum + (slice.kind === "event" ? slice.count : 0), 0),
      validation_error: validationErrorText(summary.validationErrors),
      missing_children: [...tree.missingChildren(position)],
      missing_parent_id: tree.missingParentId(position),
      children: tree.children(position).map(nodeView),
    };
  };
  return {
    path: file.path,
    name: file.name,
    size_bytes: file.sizeBytes,
    modified_at: file.modifiedAt,
    status: file.status,
    error: file.error ?? (noLines ? "The file contains no loadable snapshot line" : null),
    line_count: file.lineCount,
    snapshot_count: lines.length,
    errors: file.errors.slice(0, page.errorsLimit ?? DEFAULT_LISTED_ERRORS).map(lineErrorView),
    error_count: file.errorCount ?? file.errors.length,
    errors_offset: file.errorsOffset ?? 0,
    duplicate_session_ids: tree.duplicateSessionIds,
    sessions: [...roots].map(nodeView),
    session_count: tree.roots.length,
    sessions_offset: sessionsOffset,
  };
}
