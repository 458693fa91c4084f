/**
 * Search across a snapshot's slices and its workspace files: a case-insensitive substring
 * (no regular expression, so no pattern can stall the server), bounded by a number of hits,
 * a byte budget and a deadline. Slice hits name the item and the JSON path of the match;
 * file hits the line and column.
 */
import type { JsonValue } from "../session/json-value.js";
import { isJsonObject } from "../session/json-value.js";
import type { SessionSnapshot } from "../session/snapshot-line.js";
import { decodeText } from "./file-content.js";
import type { FileSource } from "./file-source.js";
import type { SearchHitView, SearchView } from "./types.js";

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
}

const SNIPPET_RADIUS = 60;
const MAX_WALK_DEPTH = 200;

/** Searches `query` in the snapshot's slice items and in `files` (when given). */
export async function searchSnapshot(snapshot: Pick<SessionSnapshot, "slices">, files: FileSource | null, query: string, options: SearchOptions = {}): Promise<SearchView> {
  const now = options.now ?? (() => Date.now());
  const deadline = now() + (options.timeoutMs ?? 2000);
  const maxHits = options.maxHits ?? 200;
  const scopes = new Set(options.scopes ?? ["slices", "files"]);
  const needle = query.toLowerCase();
  const hits: SearchHitView[] = [];
  const view: SearchView = { query, hits, truncated: false, scanned_files: 0, scanned_bytes: 0 };
  if (needle === "") return view;
  const full = (): boolean => {
    if (hits.length >= maxHits || now() > deadline) view.truncated = true;
    return view.truncated;
  };

  if (scopes.has("slices")) {
    outer: for (const slice of snapshot.slices) {
      for (let index = 0; index < slice.items.length; index++) {
        if (full()) break outer;
        walk(slice.items[index] ?? null, "", 0, (text, path) => {
          const at = text.toLowerCase().indexOf(needle);
          if (at === -1 || hits.length >= maxHits) return;
          hits.push({ kind: "slice", slice_type: slice.sliceType, display_name: slice.displayName, item_index: index, json_path: path, snippet: snippet(text, at, needle.length) });
        });
      }
    }
  }

  if (scopes.has("files") && files !== null && !full()) {
    const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    const maxFileBytes = options.maxFileBytes ?? 4 * 1024 * 1024;
    for (const entry of await files.list()) {
      if (full()) break;
      const nameAt = entry.path.toLowerCase().indexOf(needle);
      if (nameAt !== -1) hits.push({ kind: "file", path: entry.path, line: 0, column: nameAt + 1, snippet: entry.path });
      if (entry.size > maxFileBytes) continue;
      if (view.scanned_bytes + entry.size > maxBytes) {
        view.truncated = true;
        break;
      }
      const text = decodeText(await files.read(entry.path, maxFileBytes));
      view.scanned_files += 1;
      view.scanned_bytes += entry.size;
      if (text !== null) searchText(text, needle, entry.path, hits, maxHits);
    }
    full();
  }
  return view;
}

function searchText(text: string, needle: string, path: string, hits: SearchHitView[], maxHits: number): void {
  const lower = text.toLowerCase();
  // toLowerCase keeps offsets for almost all text; when it does not, search the original case.
  const haystack = lower.length === text.length ? lower : text;
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  for (let at = haystack.indexOf(needle); at !== -1 && hits.length < maxHits; at = haystack.indexOf(needle, at + needle.length)) {
    for (let newline = text.indexOf("\n", scanned); newline !== -1 && newline < at; newline = text.indexOf("\n", newline + 1)) {
      line += 1;
      lineStart = newline + 1;
    }
    scanned = lineStart;
    const lineEnd = text.indexOf("\n", at);
    const lineText = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
    hits.push({ kind: "file", path, line, column: at - lineStart + 1, snippet: snippet(lineText, at - lineStart, needle.length) });
  }
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
