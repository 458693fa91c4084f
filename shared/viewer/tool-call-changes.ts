/**
 * What the timeline shows of the per-tool-call undo store (browser-safe): the store's record
 * of each tool call (`readToolCallChanges` from shared/undo) joined with the timeline's
 * tool-call events by call id, and, on demand, one changed file's diff between its pre-image
 * and its post-state.
 *
 * The post-state is the post-image the store recorded when the call finished; else the
 * pre-image the session's next call touching the path captured; else the path as the
 * workspace of the session's first snapshot line after the call holds it (the same file
 * sources the compare view reads). A call undone before that line is not judged by it: the
 * line shows the restored state.
 */
import { FileNotFoundError } from "../errors.js";
import type { UndoPathState } from "../undo/manifest.js";
import type { BodyLoader, ToolCallChanges, ToolCallChangesResult, ToolCallFileChange } from "../undo/tool-call-changes.js";
import { decodeText } from "./file-content.js";
import type { FileSource } from "./file-source.js";
import { diffText } from "./text-diff.js";
import { compareTimes } from "./timeline.js";
import type {
  DiffEngine,
  HunkView,
  SnapshotRefView,
  TimelineChangesView,
  TimelineView,
  ToolCallAfterSource,
  ToolCallChangeKind,
  ToolCallFileDiffView,
  ToolCallFileView,
  ToolCallSideView,
  UndoPathKindView,
} from "./types.js";

function sizeOf(state: UndoPathState): number | null {
  return state.kind === "file" && state.sizeBytes >= 0 ? state.sizeBytes : null;
}

function fileView(file: ToolCallFileChange): ToolCallFileView {
  return {
    path: file.path,
    change: file.change,
    before: file.before.state.kind,
    after: file.after?.state.kind ?? null,
    before_size: sizeOf(file.before.state),
    after_size: file.after === null ? null : sizeOf(file.after.state),
  };
}

/**
 * The `changes` of a timeline: each tool-call event whose call id the store recorded, with the
 * files the call changed and whether it was undone. When one call id appears on several events
 * (or in several store snapshots), they are paired in order.
 */
export function timelineChanges(timeline: Pick<TimelineView, "session_id" | "events">, changes: ToolCallChangesResult): TimelineChangesView {
  const eventsByCall = new Map<string, number[]>();
  for (const event of timeline.events) {
    if (event.kind !== "tool_call" || event.call_id === null) continue;
    const indices = eventsByCall.get(event.call_id) ?? [];
    indices.push(event.index);
    eventsByCall.set(event.call_id, indices);
  }
  const problems = changes.problems.map((problem) => `${problem.where}: ${problem.message}`);
  const paired = new Map<string, number>();
  const toolCalls: TimelineChangesView["tool_calls"] = [];
  let otherCalls = 0;
  for (const call of changes.toolCalls) {
    if (call.sessionId !== timeline.session_id) {
      problems.push(`${call.toolCallId}: recorded for session ${call.sessionId}, not ${timeline.session_id}`);
      continue;
    }
    const used = paired.get(call.toolCallId) ?? 0;
    const eventIndex = eventsByCall.get(call.toolCallId)?.[used];
    if (eventIndex === undefined) {
      otherCalls += 1;
      continue;
    }
    paired.set(call.toolCallId, used + 1);
    toolCalls.push({
      call_id: call.toolCallId,
      event_index: eventIndex,
      turn_id: call.turnId,
      captured_at: call.capturedAt,
      undone: call.undone,
      restored_at: call.restoredAt,
      files: call.files.map(fileView),
    });
  }
  toolCalls.sort((a, b) => a.event_index - b.event_index);
  return { tool_calls: toolCalls, other_calls: otherCalls, problems };
}

/** Orders two timestamps by instant (to the millisecond); unparsable ones as the timeline orders them. */
function compareInstants(a: string, b: string): number {
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return Number.isNaN(ta) || Number.isNaN(tb) ? compareTimes(a, b) : ta - tb;
}

/** The first of `snapshots` created at or after `time` (same instant: the lower line), or null. */
export function snapshotAfter<R extends Pick<SnapshotRefView, "created_at" | "line_number">>(snapshots: readonly R[], time: string): R | null {
  let best: R | null = null;
  for (const snapshot of snapshots) {
    if (compareInstants(snapshot.created_at, time) < 0) continue;
    const order = best === null ? -1 : compareInstants(snapshot.created_at, best.created_at);
    if (best === null || order < 0 || (order === 0 && snapshot.line_number < best.line_number)) best = snapshot;
  }
  return best;
}

export interface ToolCallDiffContext {
  /** The bodies of the session's undo store, by sha256. */
  readonly loadBody: BodyLoader;
  /** The session's snapshot lines: the first at or after the call is the fallback for a post-state the store did not record. */
  readonly snapshots?: readonly SnapshotRefView[];
  /** The workspace of one of `snapshots` (null: it has none). */
  readonly workspace?: (snapshot: SnapshotRefView) => Promise<FileSource | null>;
}

export interface ToolCallDiffOptions {
  /** Largest file diffed as text, per side (default 8 MiB, as the compare view). */
  maxBytes?: number;
  /** Largest text sent whole with the hunks, per side (default 1 MiB); larger files come as hunks only. */
  maxTextBytes?: number;
  /** jsdiff time budget (default 500 ms). */
  timeoutMs?: number;
  /** Called when jsdiff runs out of time (the server runs `git diff --no-index`). */
  fallback?: (base: string, target: string) => Promise<HunkView[] | null>;
}

const DEFAULT_MAX_DIFF_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_TEXT_BYTES = 1024 * 1024;

/** A side with its bytes, when it is a file whose bytes could be had. */
interface LoadedSide {
  readonly kind: UndoPathKindView;
  readonly size: number | null;
  readonly bytes: Uint8Array | null;
  /** Why a file's bytes are missing. */
  readonly missing: string | null;
}

async function loadState(state: UndoPathState, loadBody: BodyLoader, maxBytes: number, label: string): Promise<LoadedSide> {
  if (state.kind !== "file") return { kind: state.kind, size: null, bytes: null, missing: null };
  const size = sizeOf(state);
  if (size !== null && size > maxBytes) return { kind: "file", size, bytes: null, missing: `The ${label} is larger than ${maxBytes} bytes: no text diff` };
  const bytes = await loadBody(state.bodyHash).catch(() => null);
  if (bytes === null) return { kind: "file", size, bytes: null, missing: `The ${label}'s body (${state.bodyHash}) is missing from the undo store` };
  if (bytes.length > maxBytes) return { kind: "file", size: bytes.length, bytes: null, missing: `The ${label} is larger than ${maxBytes} bytes: no text diff` };
  return { kind: "file", size: bytes.length, bytes, missing: null };
}

/** The path in a workspace: a file, a directory (files below it), or absent. */
async function loadFromWorkspace(source: FileSource, path: string, maxBytes: number): Promise<LoadedSide> {
  const entries = await source.list();
  const entry = entries.find((candidate) => candidate.path === path);
  if (entry === undefined) {
    const prefix = `${path}/`;
    return { kind: entries.some((candidate) => candidate.path.startsWith(prefix)) ? "directory" : "absent", size: null, bytes: null, missing: null };
  }
  if (entry.size > maxBytes) return { kind: "file", size: entry.size, bytes: null, missing: `The post-state is larger than ${maxBytes} bytes: no text diff` };
  return { kind: "file", size: entry.size, bytes: await source.read(path, maxBytes), missing: null };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function kindOfChange(before: LoadedSide, after: LoadedSide): ToolCallFileDiffView["change"] {
  if (before.kind === after.kind) {
    if (before.kind !== "file") return "unchanged";
    return before.bytes !== null && after.bytes !== null && sameBytes(before.bytes, after.bytes) ? "unchanged" : "modified";
  }
  if (before.kind === "absent") return "added";
  if (after.kind === "absent") return "deleted";
  return "type-changed";
}

interface ResolvedAfter {
  readonly side: LoadedSide | null;
  readonly source: ToolCallAfterSource;
  readonly snapshot: SnapshotRefView | null;
  readonly note: string | null;
}

async function resolveAfter(call: ToolCallChanges, file: ToolCallFileChange, context: ToolCallDiffContext, maxBytes: number): Promise<ResolvedAfter> {
  if (file.after !== null) {
    return { side: await loadState(file.after.state, context.loadBody, maxBytes, "post-image"), source: file.afterSource === "recorded" ? "recorded" : "next_call", snapshot: null, note: null };
  }
  const unknown = (note: string, snapshot: SnapshotRefView | null = null): ResolvedAfter => ({ side: null, source: "unknown", snapshot, note });
  const snapshot = snapshotAfter(context.snapshots ?? [], call.capturedAt);
  if (snapshot === null || context.workspace === undefined) return unknown("The undo store recorded no post-state, and no later snapshot line of this session shows the workspace.");
  if (call.restoredAt !== null && compareInstants(call.restoredAt, snapshot.created_at) <= 0) {
    return unknown(`The undo store recorded no post-state, and the call was undone before line ${snapshot.line_number}, which shows the restored state.`, snapshot);
  }
  const source = await context.workspace(snapshot);
  if (source === null) return unknown(`The undo store recorded no post-state, and line ${snapshot.line_number} has no workspace.`, snapshot);
  return {
    side: await loadFromWorkspace(source, file.path, maxBytes),
    source: "workspace",
    snapshot,
    note: `Post-state from the workspace at line ${snapshot.line_number} (the store recorded none): later calls before that line may show in it.`,
  };
}

function sideView(side: LoadedSide, maxTextBytes: number): ToolCallSideView {
  const text = side.bytes === null || side.bytes.length > maxTextBytes ? null : decodeText(side.bytes);
  return { kind: side.kind, size_bytes: side.size, text };
}

function joinNotes(...notes: (string | null)[]): string | null {
  const present = notes.filter((note): note is string => note !== null);
  return present.length === 0 ? null : present.join(" ");
}

/**
 * One file a tool call changed: pre-image against post-state, as hunks (and whole texts up to
 * `maxTextBytes`). Throws `FileNotFoundError` when the store has no such call, or the call did
 * not change `path`.
 */
export async function toolCallFileDiff(changes: ToolCallChangesResult, callId: string, path: string, context: ToolCallDiffContext, options: ToolCallDiffOptions = {}): Promise<ToolCallFileDiffView> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DIFF_BYTES;
  const maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
  const call = Object.prototype.hasOwnProperty.call(changes.byToolCallId, callId) ? changes.byToolCallId[callId] : undefined;
  if (call === undefined) throw new FileNotFoundError(callId, `The undo store has no tool call ${callId}`, { callId });
  const file = call.files.find((candidate) => candidate.path === path);
  if (file === undefined) throw new FileNotFoundError(path, `Tool call ${callId} did not change ${path}`, { callId });

  const before = await loadState(file.before.state, context.loadBody, maxBytes, "pre-image");
  const after = await resolveAfter(call, file, context, maxBytes);
  const base = {
    call_id: callId,
    path,
    before: sideView(before, maxTextBytes),
    after: after.side === null ? null : sideView(after.side, maxTextBytes),
    after_source: after.source,
    after_snapshot: after.snapshot,
    undone: call.undone,
    restored_at: call.restoredAt,
  };
  const view = (change: ToolCallFileDiffView["change"], rest: { binary?: boolean; engine?: DiffEngine; hunks?: HunkView[]; note?: string | null } = {}): ToolCallFileDiffView => ({
    ...base,
    change,
    binary: rest.binary ?? false,
    engine: rest.engine ?? "none",
    hunks: rest.hunks ?? [],
    note: joinNotes(after.note, rest.note ?? null),
  });

  if (after.side === null) return view("unknown");
  const change: ToolCallChangeKind | "unchanged" = after.source === "workspace" ? kindOfChange(before, after.side) : file.change;
  if (change === "unchanged") return view(change, { note: "The file is the same before and after the call." });
  if (before.kind === "directory" || after.side.kind === "directory") {
    return view(change, { note: `A directory ${change === "added" ? "created" : change === "deleted" ? "removed" : "changed"}: the files in it are listed on their own.` });
  }
  const missing = before.missing ?? after.side.missing;
  if (missing !== null) return view(change, { note: missing });
  const beforeText = before.bytes === null ? "" : decodeText(before.bytes);
  const afterText = after.side.bytes === null ? "" : decodeText(after.side.bytes);
  if (beforeText === null || afterText === null) return view(change, { binary: true, note: "Binary file: no text diff" });
  const result = diffText(beforeText, afterText, { timeoutMs: options.timeoutMs ?? 500 });
  if (result.status === "ok") return view(change, { engine: "jsdiff", hunks: result.hunks });
  const fallback = options.fallback === undefined ? null : await options.fallback(beforeText, afterText);
  if (fallback !== null) return view(change, { engine: "git", hunks: fallback });
  return view(change, { note: "The change is too large to compute a line diff in time" });
}
