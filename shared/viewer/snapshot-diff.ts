/**
 * What changed between two snapshots (of one session or of any two): the workspace file
 * list from sizes and fingerprints alone (nothing is read or inflated), the slices with
 * item counts, and, on demand, one file's or one slice's text diff.
 */
import { diffFileIndexEntries } from "../archive/index-diff.js";
import type { FileIndexChanges, FileIndexEntry } from "../archive/index-diff.js";
import { FileNotFoundError, hasErrorCode } from "../errors.js";
import type { JsonObject } from "../session/json-value.js";
import { ownValue } from "../session/json-value.js";
import type { SessionSlice, SessionSnapshot } from "../session/snapshot-line.js";
import { toStrictJson } from "../session/strict-json.js";
import type { FilesystemDiff } from "../filesystem/snapshot-contract.js";
import { decodeText } from "./file-content.js";
import type { FileSource } from "./file-source.js";
import { prettyJson } from "./json-text.js";
import { detectRenames } from "./rename-detection.js";
import type { RenameOptions } from "./rename-detection.js";
import { diffText } from "./text-diff.js";
import type { FileChangeView, FileDiffView, FilesDiffView, FilesystemSourceKind, HunkView, SliceChangeStatus, SliceChangeView, SliceDiffView, SliceItemChangeView } from "./types.js";

/** A file list and where it came from; `null` entries for a snapshot without a workspace. */
export interface IndexedSource {
  readonly kind: FilesystemSourceKind | null;
  readonly entries: readonly FileIndexEntry[];
}

/** The changed files between two file lists, with sizes, sorted by status then path. */
export function diffFileLists(base: IndexedSource, target: IndexedSource): FilesDiffView & { readonly diff: FilesystemDiff; readonly indexChanges: FileIndexChanges } {
  const changes = diffFileIndexEntries(base.entries, target.entries);
  const diff: FilesystemDiff = {
    added: changes.added.map((entry) => entry.path),
    modified: changes.modified.map(([, entry]) => entry.path),
    deleted: changes.deleted.map((entry) => entry.path),
    unchangedCount: changes.unchangedCount,
  };
  return {
    diff,
    indexChanges: changes,
    base_source: base.kind,
    target_source: target.kind,
    changes: [
      ...changes.added.map((entry) => ({ path: entry.path, status: "added" as const, old_path: null, similarity: null, base_size: null, target_size: entry.size })),
      ...changes.modified.map(([before, after]) => ({ path: after.path, status: "modified" as const, old_path: null, similarity: null, base_size: before.size, target_size: after.size })),
      ...changes.deleted.map((entry) => ({ path: entry.path, status: "deleted" as const, old_path: null, similarity: null, base_size: entry.size, target_size: null })),
    ],
    added: diff.added.length,
    modified: diff.modified.length,
    deleted: diff.deleted.length,
    renamed: 0,
    copied: 0,
    unchanged_count: diff.unchangedCount,
    rename_detection: { renames: false, copies: false, threshold: 50, limited: false },
  };
}

/** Sources of both sides of a comparison, with their listings. */
export interface DiffSides {
  readonly base: { readonly source: FileSource | null; readonly entries: readonly FileIndexEntry[] };
  readonly target: { readonly source: FileSource | null; readonly entries: readonly FileIndexEntry[] };
}

/**
 * The changed files between two workspaces with renames and copies found (git's `-M -C`
 * semantics, see `rename-detection.ts`): what `/api/diff` answers. The counts of added and
 * deleted files leave out those that became renames.
 */
export async function diffWorkspaces(sides: DiffSides, options: RenameOptions = {}): Promise<FilesDiffView> {
  const { diff: _diff, indexChanges, ...files } = diffFileLists({ kind: sides.base.source?.kind ?? null, entries: sides.base.entries }, { kind: sides.target.source?.kind ?? null, entries: sides.target.entries });
  // Rename candidates are the deleted and added files: their entries are all detection needs of the listings.
  const { changes, detection } = await detectRenames(files.changes, indexChanges.deleted, indexChanges.added, sides.base.source, sides.target.source, options);
  const count = (status: FileChangeView["status"]) => changes.filter((change) => change.status === status).length;
  return { ...files, changes, added: count("added"), modified: count("modified"), deleted: count("deleted"), renamed: count("renamed"), copied: count("copied"), rename_detection: detection };
}

export interface FileDiffOptions {
  /** Largest file diffed as text, per side (default 8 MiB). */
  maxBytes?: number;
  /** jsdiff time budget (default 500 ms). */
  timeoutMs?: number;
  /** Called when jsdiff runs out of time (the server runs `git diff --no-index`). */
  fallback?: (base: string, target: string) => Promise<HunkView[] | null>;
  /** The file's path in the base when it was renamed or copied (default: `path`). */
  basePath?: string;
}

const DEFAULT_MAX_DIFF_BYTES = 8 * 1024 * 1024;

/**
 * What a file diff needs before any content is read: the file's entries on both sides, its
 * status, and either the finished view (unchanged, too large) or the view to complete from
 * the two contents (`diffFileContents`). Throws ENOENT when neither side has the file.
 */
export interface FileDiffPlan {
  readonly view: FileDiffView;
  /** The contents must be read and diffed (`diffFileContents`); false when `view` is the answer. */
  readonly needsContent: boolean;
  /** The file's path in the base (its old path when renamed or copied). */
  readonly basePath: string;
  readonly baseEntry: FileIndexEntry | null;
  readonly targetEntry: FileIndexEntry | null;
  /** Largest content read per side. */
  readonly maxBytes: number;
}

export async function planFileDiff(base: FileSource | null, target: FileSource | null, path: string, options: Pick<FileDiffOptions, "maxBytes" | "basePath"> = {}): Promise<FileDiffPlan> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DIFF_BYTES;
  const basePath = options.basePath ?? path;
  const moved = basePath !== path;
  const [baseEntry, targetEntry] = await Promise.all([findEntry(base, basePath), findEntry(target, path)]);
  if (baseEntry === null && targetEntry === null) throw new FileNotFoundError(path, `Not in either snapshot: ${path}`);
  if (moved && (baseEntry === null || targetEntry === null)) throw new FileNotFoundError(baseEntry === null ? basePath : path, `Not in the ${baseEntry === null ? "base" : "target"} snapshot: ${baseEntry === null ? basePath : path}`);
  const same = baseEntry !== null && targetEntry !== null && baseEntry.size === targetEntry.size && baseEntry.fingerprint === targetEntry.fingerprint;
  const status = moved ? "renamed" : baseEntry === null ? "added" : targetEntry === null ? "deleted" : same ? "unchanged" : "modified";
  const view: FileDiffView = { path, old_path: moved ? basePath : null, status, base_size: baseEntry?.size ?? null, target_size: targetEntry?.size ?? null, binary: false, engine: "none", hunks: [], note: null };
  if (same) return { view, needsContent: false, basePath, baseEntry, targetEntry, maxBytes };
  if ((baseEntry?.size ?? 0) > maxBytes || (targetEntry?.size ?? 0) > maxBytes) {
    return { view: { ...view, note: `File larger than ${maxBytes} bytes: no text diff` }, needsContent: false, basePath, baseEntry, targetEntry, maxBytes };
  }
  return { view, needsContent: true, basePath, baseEntry, targetEntry, maxBytes };
}

/** Both sides' contents for a plan that needs them (empty for a side without the file). */
export async function readFileDiffContents(plan: FileDiffPlan, base: FileSource | null, target: FileSource | null): Promise<[Uint8Array, Uint8Array]> {
  return Promise.all([
    plan.baseEntry === null || base === null ? new Uint8Array() : base.read(plan.basePath, plan.maxBytes, { transient: true }),
    plan.targetEntry === null || target === null ? new Uint8Array() : target.read(plan.view.path, plan.maxBytes, { transient: true }),
  ]);
}

/**
 * Complete a plan's view from the two contents: binary, or the line diff (jsdiff within its
 * time budget, then `fallback`). CPU-heavy on big files: the server runs it in a worker.
 */
export async function diffFileContents(view: FileDiffView, baseBytes: Uint8Array, targetBytes: Uint8Array, options: Pick<FileDiffOptions, "timeoutMs" | "fallback"> = {}): Promise<FileDiffView> {
  const baseText = decodeText(baseBytes);
  const targetText = decodeText(targetBytes);
  if (baseText === null || targetText === null) return { ...view, binary: true, note: "Binary file: no text diff" };
  const result = diffText(baseText, targetText, { timeoutMs: options.timeoutMs ?? 500 });
  if (result.status === "ok") return { ...view, engine: "jsdiff", hunks: result.hunks };
  const fallback = options.fallback === undefined ? null : await options.fallback(baseText, targetText);
  if (fallback !== null) return { ...view, engine: "git", hunks: fallback };
  return { ...view, note: "The change is too large to compute a line diff in time" };
}

/** One file's text diff between two sources (either may lack the file, or be absent), on the calling thread. */
export async function diffSourceFile(base: FileSource | null, target: FileSource | null, path: string, options: FileDiffOptions = {}): Promise<FileDiffView> {
  const plan = await planFileDiff(base, target, path, options);
  if (!plan.needsContent) return plan.view;
  const [baseBytes, targetBytes] = await readFileDiffContents(plan, base, target);
  return diffFileContents(plan.view, baseBytes, targetBytes, options);
}

async function findEntry(source: FileSource | null, path: string): Promise<FileIndexEntry | null> {
  if (source === null) return null;
  try {
    return (await source.list()).find((entry) => entry.path === path) ?? null;
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return null;
    throw error;
  }
}

/** Per slice type: added, removed, changed or unchanged, with item counts. */
export function diffSliceSummaries(base: Pick<SessionSnapshot, "slices">, target: Pick<SessionSnapshot, "slices">): SliceChangeView[] {
  const baseSlices = new Map(base.slices.map((slice) => [slice.sliceType, slice]));
  const targetSlices = new Map(target.slices.map((slice) => [slice.sliceType, slice]));
  const types = [...new Set([...baseSlices.keys(), ...targetSlices.keys()])].sort();
  return types.map((type) => {
    const before = baseSlices.get(type);
    const after = targetSlices.get(type);
    const items = compareItems(before, after);
    const counts = { added: 0, removed: 0, changed: 0 };
    for (const item of items) if (item.status !== "unchanged") counts[item.status] += 1;
    const reference = (after ?? before) as SessionSlice;
    return {
      slice_type: type,
      display_name: reference.displayName,
      kind: reference.kind,
      status: sliceStatus(before, after, counts),
      base_count: before?.items.length ?? 0,
      target_count: after?.items.length ?? 0,
      ...counts,
    };
  });
}

export interface SliceDiffOptions {
  /** Largest JSON text (per side) diffed line by line (default 4 MiB of characters). */
  maxChars?: number;
  timeoutMs?: number;
}

/** One slice compared item by item, plus the line diff of its indented JSON. */
export function diffSlice(base: SessionSnapshot, target: SessionSnapshot, sliceType: string, options: SliceDiffOptions = {}): SliceDiffView {
  const before = base.slices.find((slice) => slice.sliceType === sliceType);
  const after = target.slices.find((slice) => slice.sliceType === sliceType);
  if (before === undefined && after === undefined) throw new FileNotFoundError(sliceType, `Unknown slice type: ${sliceType}`);
  const items = compareItems(before, after);
  const counts = { added: 0, removed: 0, changed: 0 };
  for (const item of items) if (item.status !== "unchanged") counts[item.status] += 1;
  const reference = (after ?? before) as SessionSlice;
  const view: SliceDiffView = {
    slice_type: sliceType,
    display_name: reference.displayName,
    status: sliceStatus(before, after, counts),
    base_count: before?.items.length ?? 0,
    target_count: after?.items.length ?? 0,
    items,
    engine: "none",
    hunks: [],
    note: null,
  };
  if (view.status === "unchanged") return view;
  const maxChars = options.maxChars ?? 4 * 1024 * 1024;
  const baseText = before === undefined ? "" : `${prettyJson([...before.items])}\n`;
  const targetText = after === undefined ? "" : `${prettyJson([...after.items])}\n`;
  if (baseText.length > maxChars || targetText.length > maxChars) return { ...view, note: `Slice JSON longer than ${maxChars} characters: no text diff` };
  const result = diffText(baseText, targetText, { timeoutMs: options.timeoutMs ?? 500 });
  if (result.status === "timeout") return { ...view, note: "The change is too large to compute a line diff in time" };
  return { ...view, engine: "jsdiff", hunks: result.hunks };
}

function sliceStatus(before: SessionSlice | undefined, after: SessionSlice | undefined, counts: { added: number; removed: number; changed: number }): SliceChangeStatus {
  if (before === undefined) return "added";
  if (after === undefined) return "removed";
  return counts.added + counts.removed + counts.changed === 0 ? "unchanged" : "changed";
}

/**
 * Items matched by key: `event_id` for event slices (so an event stays itself when others
 * are inserted before it), the position for state slices.
 */
function compareItems(before: SessionSlice | undefined, after: SessionSlice | undefined): SliceItemChangeView[] {
  const keyed = (slice: SessionSlice | undefined): Map<string, { index: number; item: JsonObject }> => {
    const map = new Map<string, { index: number; item: JsonObject }>();
    slice?.items.forEach((item, index) => {
      const key = itemKey(slice, item, index);
      if (!map.has(key)) map.set(key, { index, item });
    });
    return map;
  };
  const old = keyed(before);
  const now = keyed(after);
  const result: SliceItemChangeView[] = [];
  const events = (after ?? before)?.kind === "event";
  for (const [key, value] of now) {
    const previous = old.get(key);
    const status = previous === undefined ? "added" : sameItem(previous.item, value.item, events && !key.startsWith("#")) ? "unchanged" : "changed";
    result.push({ key, status, base_index: previous?.index ?? null, target_index: value.index });
  }
  for (const [key, value] of old) if (!now.has(key)) result.push({ key, status: "removed", base_index: value.index, target_index: null });
  return result;
}

/**
 * Equal items. Events are records that never change once written, so two events with the
 * same `event_id` are compared by `created_at` only (a 2,400-event slice is not serialised
 * twice); state items are compared by their strict JSON text.
 */
function sameItem(a: JsonObject, b: JsonObject, byEventId: boolean): boolean {
  if (a === b) return true;
  if (byEventId) return ownValue(a, "created_at") === ownValue(b, "created_at");
  return toStrictJson(a) === toStrictJson(b);
}

function itemKey(slice: SessionSlice, item: JsonObject, index: number): string {
  if (slice.kind === "event") {
    const id = ownValue(item, "event_id");
    if (typeof id === "string") return id;
  }
  return `#${index}`;
}
