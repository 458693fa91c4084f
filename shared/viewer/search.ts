/**
 * Search across a snapshot's slices and its workspace files: a case-insensitive substring, or
 * a regular expression (compiled by the caller: the server allows only linear-time ones),
 * bounded by a number of hits, a byte budget and a deadline. Files report one hit per line. Slice hits name the item and the JSON path of the match;
 * file hits the line and column.
 */
import { WinkError } from "../errors.js";
import type { JsonValue } from "../session/json-value.js";
import { isJsonObject } from "../session/json-value.js";
import type { SessionSlice, SessionSnapshot } from "../session/snapshot-line.js";
import { decodeText } from "./file-content.js";
import type { FileIndexEntry, FileSource } from "./file-source.js";
import { searchSlices, type EventLoopSlices } from "../session/event-loop-slices.js";
import type { TextMatcher } from "./text-matcher.js";
import { createMatcher } from "./text-matcher.js";
import type { SearchHitView, SearchSkippedFileView, SearchView } from "./types.js";

export interface SearchOptions {
  /** Most hits returned (default 200). */
  maxHits?: number;
  /** Most file bytes read (default 32 MiB). */
  maxBytes?: number;
  /** Largest single file searched (default 4 MiB). */
  maxFileBytes?: number;
  /** Time budget in milliseconds (default 2,000). */
  timeoutMs?: number;
  /** Where to look (default both). */
  scopes?: readonly ("slices" | "files")[];
  /** Clock, for tests. */
  now?: () => number;
  /** Treat the query as a regular expression (see `text-matcher.ts`). */
  regex?: boolean;
  /** Compiles a regular expression (the server insists on linear-time matching). */
  compileRegex?: (source: string) => RegExp;
}

const SNIPPET_RADIUS = 60;
/** A file's text is matched in pieces of about this many characters, with a turn of the event loop between. */
const PIECE_CHARS = 256 * 1024;
const MAX_WALK_DEPTH = 200;

/** Searches `query` in the snapshot's slice items and in `files` (when given). */
export async function searchSnapshot(snapshot: Pick<SessionSnapshot, "slices">, files: FileSource | null, query: string, options: SearchOptions = {}): Promise<SearchView> {
  const now = options.now ?? (() => Date.now());
  const deadline = now() + (options.timeoutMs ?? 2000);
  const maxHits = options.maxHits ?? 200;
  const scopes = new Set(options.scopes ?? ["slices", "files"]);
  const matcher = createMatcher(query, { regex: options.regex ?? false, ...(options.compileRegex === undefined ? {} : { compile: options.compileRegex }) });
  const hits: SearchHitView[] = [];
  const view: SearchView = { query, hits, truncated: false, scanned_files: 0, scanned_bytes: 0, skipped_files: [] };
  if (query === "") return view;
  const full = (): boolean => {
    if (hits.length >= maxHits || now() > deadline) view.truncated = true;
    return view.truncated;
  };
  const pacing = { pacer: searchSlices(), stop: () => now() > deadline };

  if (scopes.has("slices")) {
    outer: for (const slice of snapshot.slices) {
      for (let index = 0; index < slice.items.length; index++) {
        await pacing.pacer.pace();
        if (full()) break outer;
        searchItem(slice, index, matcher, hits, maxHits);
      }
    }
  }

  if (scopes.has("files") && files !== null && !full()) {
    const budget = { maxBytes: options.maxBytes ?? 32 * 1024 * 1024, maxFileBytes: options.maxFileBytes ?? 4 * 1024 * 1024 };
    for (const entry of await files.list()) {
      if (full()) break;
      if (!(await searchFile(files, entry, matcher, hits, maxHits, budget, view, (skipped) => view.skipped_files.push(skipped), pacing))) break;
    }
  }
  full();
  // A string matched only in its first part (see MAX_REGEX_INPUT) makes the answer partial, not the search shorter.
  if (matcher.clippedInputs > 0) view.truncated = true;
  return view;
}

/** Adds the hits of one slice item (strings and keys, with JSON paths). */
export function searchItem(slice: SessionSlice, index: number, matcher: TextMatcher, hits: SearchHitView[], maxHits: number): void {
  walk(slice.items[index] ?? null, "", 0, (text, path) => {
    if (hits.length >= maxHits) return;
    const match = matcher.first(text);
    if (match === null) return;
    hits.push({ kind: "slice", slice_type: slice.sliceType, display_name: slice.displayName, item_index: index, json_path: path, snippet: snippet(text, match.index, match.length) });
  });
}

/**
 * Adds the hits of one file (its name, then its lines). Returns false when the byte budget is
 * spent (the counts in `progress` say what was read). A file that cannot be read (a corrupt
 * or refused archive entry) is given to `skip` with the reason, not fatal to the search.
 */
export async function searchFile(
  files: FileSource,
  entry: FileIndexEntry,
  matcher: TextMatcher,
  hits: SearchHitView[],
  maxHits: number,
  budget: { readonly maxBytes: number; readonly maxFileBytes: number },
  progress: { scanned_files: number; scanned_bytes: number; truncated: boolean },
  skip: (skipped: SearchSkippedFileView) => void,
  /** Gives the event loop its turns and says when the time is up (the search is then partial). */
  pacing: { readonly pacer: EventLoopSlices; readonly stop: () => boolean } = { pacer: searchSlices(), stop: () => false },
): Promise<boolean> {
  const name = matcher.first(entry.path);
  if (name !== null && hits.length < maxHits) hits.push({ kind: "file", path: entry.path, line: 0, column: name.index + 1, snippet: entry.path });
  if (entry.size > budget.maxFileBytes) return true;
  if (progress.scanned_bytes + entry.size > budget.maxBytes) {
    progress.truncated = true;
    return false;
  }
  let bytes: Uint8Array;
  try {
    bytes = await files.read(entry.path, budget.maxFileBytes);
  } catch (error) {
    if (!(error instanceof WinkError)) throw error;
    skip({ path: entry.path, detail: error.message });
    return true;
  }
  const text = decodeText(bytes);
  progress.scanned_files += 1;
  progress.scanned_bytes += entry.size;
  if (text === null) return true;
  // In pieces that end at a line's end, so no one call holds the event loop for a whole file.
  let line = 0;
  for (let start = 0; start < text.length && hits.length < maxHits; ) {
    await pacing.pacer.pace();
    if (pacing.stop()) {
      progress.truncated = true;
      return false;
    }
    const newline = text.indexOf("\n", Math.min(text.length, start + PIECE_CHARS));
    const end = newline === -1 ? text.length : newline + 1;
    const piece = text.slice(start, end);
    for (const found of matcher.lines(piece, maxHits - hits.length)) {
      hits.push({ kind: "file", path: entry.path, line: line + found.line + 1, column: found.match.index + 1, snippet: snippet(found.lineText, found.match.index, found.match.length) });
    }
    for (let at = piece.indexOf("\n"); at !== -1; at = piece.indexOf("\n", at + 1)) line += 1;
    start = end;
  }
  return true;
}

/** Calls `visit` for every string (and object key) in `value`, with its JSON path. */
function walk(value: JsonValue, path: string, depth: number, visit: (text: string, path: string) => void): void {
  if (typeof value === "string") {
    visit(value, path);
    return;
  }
  if (depth >= MAX_WALK_DEPTH || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((element, index) => walk(element, `${path}[${index}]`, depth + 1, visit));
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const childPath = /^[A-Za-z_$][\w$]*$/.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;
    visit(key, childPath);
    walk(value[key] ?? null, childPath, depth + 1, visit);
  }
}

/** Up to 60 characters either side of a match, on one line, with ellipses where cut. */
export function snippet(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_RADIUS);
  const end = Math.min(text.length, at + length + SNIPPET_RADIUS);
  const body = text.slice(start, end).replace(/[\r\n\t]+/g, " ");
  return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}
