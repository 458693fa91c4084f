/**
 * The legacy API's views of one snapshot line: `/api/meta`, `/api/entries`,
 * `/api/slices/:type` (a page of items, markdown-enriched) and `/api/raw`.
 */
import { InvalidArgumentError } from "../errors.js";
import type { EnvelopeSummary } from "../session/envelope-scan.js";
import type { JsonValue } from "../session/json-value.js";
import type { SessionSlice } from "../session/snapshot-line.js";
import { EventLoopSlices } from "../session/event-loop-slices.js";
import type { EnvelopeShape, SessionLines } from "../session/session-lines.js";
import { LazyJsonArray, toStrictJson } from "../session/strict-json.js";
import { enrichMarkdown } from "./markdown.js";
import type { EntryView, SlicePageView, SnapshotMetaView } from "./types.js";

/** A loaded line of a session file: where it is and its summary (no items). */
export interface IndexedSnapshotLine {
  readonly lineNumber: number;
  readonly summary: EnvelopeSummary;
}

/** WINK's single `validation_error` string: the line's problems joined, or null. */
export function validationErrorText(errors: readonly string[]): string | null {
  return errors.length === 0 ? null : errors.join("; ");
}

/** `/api/meta` for one line of the file at `path` (relative to the served directory). */
export function snapshotMeta(path: string, line: IndexedSnapshotLine): SnapshotMetaView {
  const { summary } = line;
  return {
    version: summary.version,
    created_at: summary.createdAt,
    path,
    session_id: summary.sessionId,
    line_number: line.lineNumber,
    tags: { ...summary.tags },
    validation_error: validationErrorText(summary.validationErrors),
    parent_id: summary.parentId,
    children_ids: [...summary.childrenIds],
    slices: summary.slices.map((slice) => ({
      slice_type: slice.sliceType,
      item_type: slice.itemType,
      display_name: slice.displayName,
      item_display_name: slice.itemDisplayName,
      count: slice.count,
      kind: slice.kind,
    })),
  };
}

/** `/api/entries`: every loaded line of the file; only `selectedLine` is `selected`. */
export function snapshotEntries(path: string, lines: readonly IndexedSnapshotLine[], selectedLine: number | null): EntryView[] {
  return lines.map((line) => entryView(path, line, selectedLine));
}

/**
 * The same entries made as they are written, for a file of many lines (serialise with
 * `strictJsonChunks`): 1.5 million lines answered 83 MiB built whole, with its objects.
 */
export function lazySnapshotEntries(path: string, count: number, lineAt: (index: number) => IndexedSnapshotLine, selectedLine: number | null): LazyJsonArray {
  return new LazyJsonArray(count, (index) => entryView(path, lineAt(index), selectedLine));
}

/** Positions `start … end - 1` of a file's lines (0-based, file order): a page of `/api/entries`. */
export interface EntryRange {
  readonly start: number;
  readonly end: number;
}

/** Characters of `/api/entries` gathered before a chunk is handed on (as `strictJsonChunks` does). */
const ENTRY_CHUNK_CHARS = 64 * 1024;
/** Distinct line shapes whose JSON is kept while one answer is written (a file of all-different lines keeps no more). */
const MAX_CACHED_SHAPES = 10_000;

/**
 * The text `strictJsonChunks(lazySnapshotEntries(…))` gives, written straight from the
 * index's columns: each distinct shape's session id and tags are serialised once, a line adds
 * its number and time, and `slices` gives the event loop a turn every slice (300,000 lines
 * built and written an entry object each with the loop held: `/api/meta` of another file
 * waited 2.2 s).
 */
export async function* snapshotEntriesJson(path: string, lines: SessionLines, selectedLine: number | null, slices: EventLoopSlices = new EventLoopSlices(), range: EntryRange = { start: 0, end: lines.length }): AsyncGenerator<string, void, undefined> {
  const pathJson = toStrictJson(path);
  // Per shape: `{"session_id":…,"name":"<id>` (the name's closing quote comes after its line
  // number: JSON escapes a string unit by unit, so "<id> (line N)" is the id's text plus that),
  // and `,"tags":{…},"selected":`.
  const shapes = new Map<EnvelopeShape, { head: string; tags: string }>();
  let parts: string[] = ["["];
  let size = 1;
  const start = Math.max(0, Math.min(range.start, lines.length));
  const end = Math.max(start, Math.min(range.end, lines.length));
  for (let at = start; at < end; at++) {
    const shape = lines.shapeAt(at);
    let json = shapes.get(shape);
    if (json === undefined) {
      const id = toStrictJson(shape.sessionId);
      json = { head: `{"session_id":${id},"name":${id.slice(0, -1)}`, tags: `,"tags":${toStrictJson({ ...shape.tags })},"selected":` };
      if (shapes.size < MAX_CACHED_SHAPES) shapes.set(shape, json);
    }
    const lineNumber = lines.lineNumberAt(at);
    const entry = `${at === start ? "" : ","}${json.head} (line ${lineNumber})","path":${pathJson},"line_number":${lineNumber},"created_at":${toStrictJson(lines.timeAt(at))}${json.tags}${lineNumber === selectedLine ? "true" : "false"}}`;
    parts.push(entry);
    size += entry.length;
    if (size >= ENTRY_CHUNK_CHARS) {
      yield parts.join("");
      parts = [];
      size = 0;
    }
    if (slices.due()) await slices.pause();
  }
  parts.push("]");
  yield parts.join("");
}

function entryView(path: string, line: IndexedSnapshotLine, selectedLine: number | null): EntryView {
  return {
    session_id: line.summary.sessionId,
    name: `${line.summary.sessionId} (line ${line.lineNumber})`,
    path,
    line_number: line.lineNumber,
    created_at: line.summary.createdAt,
    tags: { ...line.summary.tags },
    selected: line.lineNumber === selectedLine,
  };
}

export interface SlicePageOptions {
  /** First item (default 0). */
  offset?: number;
  /** Items to return (default: all from `offset`; 0 gives an empty page). */
  limit?: number | null;
  /** Wrap markdown-looking strings (default true, as WINK's viewer does). */
  markdown?: boolean;
}

/**
 * A page of a slice's items. An offset past the end gives an empty page; markdown is
 * rendered for the returned items only, so a page of a 2,400-item slice costs one page.
 */
export function slicePage(slice: SessionSlice, options: SlicePageOptions = {}): SlicePageView {
  const { start, end } = pageBounds(slice, options);
  const page: JsonValue[] = slice.items.slice(start, end);
  return pageView(slice, options, options.markdown === false ? page : page.map(enrichMarkdown));
}

/**
 * The same page with its items made as they are written (markdown rendered item by item),
 * for answers too big to build whole: serialise it with `strictJsonChunks`.
 */
export function lazySlicePage(slice: SessionSlice, options: SlicePageOptions = {}): Omit<SlicePageView, "items"> & { items: LazyJsonArray } {
  const { start, end } = pageBounds(slice, options);
  const markdown = options.markdown !== false;
  return pageView(slice, options, new LazyJsonArray(end - start, (index) => {
    const item = slice.items[start + index] ?? null;
    return markdown ? enrichMarkdown(item) : item;
  }));
}

/** Number of items a page of a slice holds (for deciding how to send it). */
export function slicePageLength(slice: SessionSlice, options: SlicePageOptions = {}): number {
  const { start, end } = pageBounds(slice, options);
  return end - start;
}

function pageBounds(slice: SessionSlice, options: SlicePageOptions): { start: number; end: number } {
  const offset = options.offset ?? 0;
  const limit = options.limit ?? null;
  if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentError(`offset must be a non-negative integer, got ${offset}`);
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) throw new InvalidArgumentError(`limit must be a non-negative integer, got ${limit}`);
  const end = limit === null ? slice.items.length : Math.min(slice.items.length, offset + limit);
  return { start: Math.min(offset, slice.items.length), end: Math.max(Math.min(offset, slice.items.length), end) };
}

function pageView<T>(slice: SessionSlice, options: SlicePageOptions, items: T): Omit<SlicePageView, "items"> & { items: T } {
  return {
    slice_type: slice.sliceType,
    item_type: slice.itemType,
    display_name: slice.displayName,
    item_display_name: slice.itemDisplayName,
    kind: slice.kind,
    items,
    offset: options.offset ?? 0,
    limit: options.limit ?? null,
    total: slice.items.length,
  };
}
