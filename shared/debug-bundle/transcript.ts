/**
 * The transcript of a run: WINK's `TranscriptEmitter` entries (log records whose event is
 * `transcript.entry`), as WINK's `/api/transcript` rows — the same columns, extracted with
 * the same rules as WINK's `wink query` (role, readable content, tool name and id from the
 * adapter's `detail` payload) — plus the pairing of each `tool_result` with its `tool_use`.
 *
 * The entries are read from `logs/app.jsonl`, not `transcript.jsonl`: WINK writes the latter
 * through `str.splitlines()`, which drops every entry whose JSON holds U+2028 and friends.
 * `transcript.jsonl` is used when the logs hold fewer entries (or are missing).
 */
import { dumpsPython, formatPythonNumber } from "../session/python-json-dumps.js";
import type { JsonObject, JsonValue } from "../session/json-value.js";
import { isJsonObject, ownValue } from "../session/json-value.js";
import { looksLikeMarkdown, renderMarkdown } from "../viewer/markdown.js";
import { JsonLines, parseRecord } from "./json-lines.js";
import type { LogIndex } from "./logs.js";
import { pageOf, sortFacets } from "./paging.js";
import type { FacetCountView, TranscriptEntryView, TranscriptFacetsView, TranscriptPageView } from "./types.js";

export const TRANSCRIPT_EVENT = "transcript.entry";

export interface TranscriptQuery {
  readonly offset?: number;
  readonly limit?: number | null;
  readonly sources?: readonly string[];
  readonly excludeSources?: readonly string[];
  readonly entryTypes?: readonly string[];
  readonly excludeEntryTypes?: readonly string[];
  /** Case-insensitive substring of the content, the raw message or the parsed detail. */
  readonly search?: string;
  /** Start the page at the first matching entry whose rowid is at least this (instead of `offset`; a deep link to an entry). */
  readonly atRowid?: number;
}

/** Where the entries came from. */
export type TranscriptOrigin = "logs/app.jsonl" | "transcript.jsonl";

interface Row {
  readonly view: Omit<TranscriptEntryView, "paired_rowid" | "content_html">;
  /** Lower-cased content, raw and parsed text, for search. */
  lower: string | null;
}

const str = (value: JsonValue | undefined): string => (typeof value === "string" ? value : "");

/** Python's `json.dumps(value, ensure_ascii=False)`: non-ASCII characters written as they are. */
function dumpsUnicode(value: JsonValue): string {
  return dumpsPython(value).replace(/\\\\|\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|\\u([0-9a-f]{4})/g, (match, high: string | undefined, low: string | undefined, single: string | undefined) => {
    if (high !== undefined && low !== undefined) return String.fromCharCode(parseInt(high, 16), parseInt(low, 16));
    if (single === undefined) return match;
    const code = parseInt(single, 16);
    // Control characters stay escaped (Python escapes them too); lone surrogates cannot be raw.
    return code < 0x80 || (code >= 0xd800 && code <= 0xdfff) ? match : String.fromCharCode(code);
  });
}

/** Python's `str()` of a scalar. */
function pythonStr(value: JsonValue): string {
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return formatPythonNumber(value);
  if (typeof value === "bigint") return value.toString();
  return String(value);
}

/** A readable string from a content value: text blocks joined by newlines, objects by their text-ish keys. */
export function readableContent(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(readableContent).filter((part) => part !== "").join("\n");
  if (isJsonObject(value)) {
    for (const key of ["text", "content", "thinking", "summary"]) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      const extracted = readableContent(value[key]);
      if (extracted !== "") return extracted;
    }
    if (ownValue(value, "type") === "tool_use") {
      const parts = [str(ownValue(value, "name")), str(ownValue(value, "id")) || str(ownValue(value, "tool_use_id"))].filter((part) => part !== "");
      const input = ownValue(value, "input");
      if (input !== undefined && input !== null) parts.push(dumpsUnicode(input));
      return `[tool_use] ${parts.join(" ").trim()}`.trim();
    }
    return dumpsUnicode(value);
  }
  return pythonStr(value);
}

const firstString = (object: JsonObject, keys: readonly string[]): string => {
  for (const key of keys) {
    const value = str(ownValue(object, key));
    if (value !== "") return value;
  }
  return "";
};

/** Role, content, tool name and tool id of a parsed `detail`, by WINK's rules. */
function details(parsed: JsonObject, entryType: string): { role: string; content: string; toolName: string; toolUseId: string } {
  let role = "";
  let content = "";
  let toolName = "";
  let toolUseId = "";
  const message = ownValue(parsed, "message");
  if (isJsonObject(message)) {
    role = str(ownValue(message, "role"));
    const blocks = ownValue(message, "content");
    content = readableContent(blocks);
    const candidates = isJsonObject(blocks) ? [blocks] : Array.isArray(blocks) ? blocks.filter(isJsonObject) : [];
    const use = candidates.find((block) => ownValue(block, "type") === "tool_use");
    if (use !== undefined) {
      const name = ownValue(use, "name");
      const id = ownValue(use, "id") || ownValue(use, "tool_use_id") || ownValue(use, "tool_call_id");
      toolName = name === undefined || name === null ? "" : pythonStr(name);
      toolUseId = id === undefined || id === null || id === "" ? "" : pythonStr(id);
    }
  }
  if (entryType === "tool_result") {
    toolUseId ||= firstString(parsed, ["tool_use_id", "tool_call_id"]);
    toolName ||= str(ownValue(parsed, "tool_name"));
    content ||= readableContent(ownValue(parsed, "content"));
  }
  const notification = ownValue(parsed, "notification");
  const item = isJsonObject(notification) ? ownValue(notification, "item") : undefined;
  if (toolUseId === "" && (entryType === "tool_use" || entryType === "tool_result") && isJsonObject(notification)) {
    if (isJsonObject(item)) {
      // A Codex item (commandExecution, fileChange, mcpToolCall, webSearch).
      toolUseId ||= str(ownValue(item, "id"));
      if (toolName === "") {
        const command = ownValue(item, "command");
        const type = ownValue(item, "type");
        toolName = typeof command === "string" ? command : type === undefined || type === null ? "" : pythonStr(type);
      }
      content ||= str(ownValue(item, "aggregatedOutput"));
    } else {
      // A WINK tool bridged to the model.
      toolUseId ||= str(ownValue(notification, "callId"));
      toolName ||= str(ownValue(notification, "tool"));
      if (content === "") {
        const result = ownValue(parsed, "result");
        if (typeof result === "string") content = result;
        else if (result !== undefined && result !== null) content = dumpsUnicode(result);
      }
    }
  }
  const type = ownValue(parsed, "type");
  if (entryType === "tool_use" && toolName === "" && type === "tool_use") {
    const name = ownValue(parsed, "name");
    if (typeof name === "string") toolName = name;
    const id = ownValue(parsed, "id") || ownValue(parsed, "tool_use_id") || ownValue(parsed, "tool_call_id");
    if (typeof id === "string") toolUseId = id;
  }
  if (entryType === "tool_result" && toolUseId === "" && type === "tool_result") {
    const id = ownValue(parsed, "tool_use_id") || ownValue(parsed, "tool_call_id");
    if (typeof id === "string") toolUseId = id;
    const text = ownValue(parsed, "content");
    if (content === "" && typeof text === "string") content = text;
  }
  toolUseId ||= str(ownValue(parsed, "tool_call_id"));
  toolName ||= str(ownValue(parsed, "tool_name"));
  if (content === "") {
    const key = entryType === "thinking" ? "thinking" : entryType === "summary" ? "summary" : entryType === "system" ? null : "content";
    content = key === null ? readableContent(ownValue(parsed, "details") || ownValue(parsed, "event")) : readableContent(ownValue(parsed, key));
  }
  if (content === "" && isJsonObject(item)) content = str(ownValue(item, "text"));
  if (content === "") content = readableContent(parsed);
  return { role, content, toolName, toolUseId };
}

/** What a `transcript.entry` record is made of before its columns are extracted. */
interface TranscriptRecordParts {
  readonly context: JsonObject;
  readonly entryType: string;
  readonly raw: string | null;
  /** The adapter's payload (`detail`, its `sdk_entry`, else `raw` parsed). */
  readonly parsed: JsonObject | null;
}

/** The parts of a `transcript.entry` record, or null for any other record (exactly the records {@link transcriptRow} makes no row of). */
function transcriptRecordParts(record: JsonObject): TranscriptRecordParts | null {
  if (ownValue(record, "event") !== TRANSCRIPT_EVENT) return null;
  const context = ownValue(record, "context");
  if (!isJsonObject(context)) return null;
  const entryType = str(ownValue(context, "entry_type")) || "unknown";
  const rawValue = ownValue(context, "raw");
  const raw = typeof rawValue === "string" ? rawValue : null;
  let parsed: JsonObject | null = null;
  const detail = ownValue(context, "detail");
  if (isJsonObject(detail)) {
    const sdkEntry = ownValue(detail, "sdk_entry");
    parsed = isJsonObject(sdkEntry) ? sdkEntry : detail;
  } else if (raw !== null) {
    const fromRaw = parseRecord(raw);
    parsed = fromRaw.ok ? fromRaw.value : null;
  }
  return { context, entryType, raw, parsed };
}

/** The row of a `transcript.entry` record, or null for any other record. */
export function transcriptRow(record: JsonObject, rowid: number, lineNumber: number): Row["view"] | null {
  const parts = transcriptRecordParts(record);
  return parts === null ? null : rowOfParts(record, parts, rowid, lineNumber);
}

function rowOfParts(record: JsonObject, { context, entryType, raw, parsed }: TranscriptRecordParts, rowid: number, lineNumber: number): Row["view"] {
  const extracted = parsed === null ? { role: "", content: "", toolName: "", toolUseId: "" } : details(parsed, entryType);
  const sequence = ownValue(context, "sequence_number");
  const timestamp = ownValue(record, "timestamp");
  return {
    rowid,
    timestamp: typeof timestamp === "string" ? timestamp : "",
    prompt_name: readableScalar(ownValue(context, "prompt_name")),
    transcript_source: readableScalar(ownValue(context, "source")),
    sequence_number: typeof sequence === "number" && Number.isInteger(sequence) ? sequence : null,
    entry_type: entryType,
    role: extracted.role,
    content: extracted.content || (raw ?? ""),
    tool_name: extracted.toolName,
    tool_use_id: extracted.toolUseId,
    raw_json: raw,
    parsed: parsed === null ? null : dumpsUnicode(parsed),
    line_number: lineNumber,
  };
}

function readableScalar(value: JsonValue | undefined): string {
  return value === undefined || value === null || value === "" || value === false ? "" : pythonStr(value);
}

/** The transcript of one bundle. */
export class TranscriptIndex {
  readonly origin: TranscriptOrigin;
  /** Entries in `logs/app.jsonl` and lines of `transcript.jsonl` (null when the file is absent), for the reader to compare. */
  readonly counts: { readonly logs: number | null; readonly transcriptJsonl: number | null };
  readonly #rows: Row[];
  readonly #paired: Map<number, number>;

  readonly #onGrow: () => void;

  private constructor(origin: TranscriptOrigin, rows: Row[], counts: TranscriptIndex["counts"], onGrow: () => void) {
    this.origin = origin;
    this.#onGrow = onGrow;
    this.#rows = rows;
    this.counts = counts;
    this.#paired = pairToolCalls(rows);
  }

  /** From the bundle's logs (preferred) and/or its `transcript.jsonl` bytes; `onGrow` is called when a search keeps lower-cased text. */
  static build(logs: LogIndex | null, transcriptJsonl: Uint8Array | null, onGrow: () => void = () => undefined): TranscriptIndex {
    const fromLogs = logs === null ? null : rowsFromLogs(logs);
    const fromFile = transcriptJsonl === null ? null : rowsFromJsonLines(transcriptJsonl);
    const counts = { logs: fromLogs?.length ?? null, transcriptJsonl: fromFile === null ? null : new JsonLines(transcriptJsonl ?? new Uint8Array()).count };
    if (fromLogs !== null && (fromFile === null || fromLogs.length >= fromFile.length)) return new TranscriptIndex("logs/app.jsonl", fromLogs, counts, onGrow);
    return new TranscriptIndex("transcript.jsonl", fromFile ?? [], counts, onGrow);
  }

  get count(): number {
    return this.#rows.length;
  }

  /** Bytes the rows keep alive, estimated: their text in UTF-16, twice once a search lower-cased it, plus a fixed cost per row. */
  get retainedBytes(): number {
    let bytes = 0;
    for (const row of this.#rows) {
      const { content, raw_json: raw, parsed } = row.view;
      const text = content.length + (raw?.length ?? 0) + (parsed?.length ?? 0);
      bytes += 2 * text * (row.lower === null ? 1 : 2) + 256;
    }
    return bytes;
  }

  entry(index: number): TranscriptEntryView {
    const row = this.#rows[index] as Row;
    const view: TranscriptEntryView = { ...row.view, paired_rowid: this.#paired.get(row.view.rowid) ?? null };
    if (looksLikeMarkdown(view.content)) view.content_html = renderMarkdown(view.content);
    return view;
  }

  /** Rows matching a query (indexes, in order). */
  matching(query: TranscriptQuery): number[] {
    const set = (values: readonly string[] | undefined) => (values === undefined || values.length === 0 ? null : new Set(values));
    const sources = set(query.sources);
    const excludeSources = set(query.excludeSources);
    const types = set(query.entryTypes);
    const excludeTypes = set(query.excludeEntryTypes);
    const needle = query.search === undefined || query.search === "" ? null : query.search.toLowerCase();
    const found: number[] = [];
    let grew = false;
    this.#rows.forEach((row, index) => {
      const { transcript_source: source, entry_type: type } = row.view;
      if (sources !== null && !sources.has(source)) return;
      if (excludeSources !== null && excludeSources.has(source)) return;
      if (types !== null && !types.has(type)) return;
      if (excludeTypes !== null && excludeTypes.has(type)) return;
      if (needle !== null) {
        if (row.lower === null) {
          row.lower = `${row.view.content}\n${row.view.raw_json ?? ""}\n${row.view.parsed ?? ""}`.toLowerCase();
          grew = true;
        }
        if (!row.lower.includes(needle)) return;
      }
      found.push(index);
    });
    if (grew) this.#onGrow();
    return found;
  }

  page(query: TranscriptQuery): TranscriptPageView {
    const found = this.matching(query);
    let offset = query.offset ?? 0;
    if (query.atRowid !== undefined) {
      const rowid = query.atRowid;
      const first = found.findIndex((index) => (this.#rows[index] as Row).view.rowid >= rowid);
      offset = first === -1 ? found.length : first;
    }
    return pageOf(found, offset, query.limit ?? null, (index) => this.entry(index));
  }

  facets(): TranscriptFacetsView {
    const count = (pick: (row: Row) => string): FacetCountView[] => {
      const counts = new Map<string, number>();
      for (const row of this.#rows) {
        const name = pick(row);
        if (name !== "") counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return sortFacets([...counts].map(([name, value]) => ({ name, count: value })));
    };
    return { sources: count((row) => row.view.transcript_source), entry_types: count((row) => row.view.entry_type) };
  }
}

function rowsFromLogs(logs: LogIndex): Row[] {
  const rows: Row[] = [];
  for (const index of logs.indexesOfEvent(TRANSCRIPT_EVENT)) {
    const parsed = parseRecord(logs.line(index));
    if (!parsed.ok) continue;
    const view = transcriptRow(parsed.value, rows.length + 1, logs.lineNumber(index));
    if (view !== null) rows.push({ view, lower: null });
  }
  return rows;
}

function rowsFromJsonLines(bytes: Uint8Array): Row[] {
  const lines = new JsonLines(bytes);
  const rows: Row[] = [];
  for (let i = 0; i < lines.count; i++) {
    const parsed = parseRecord(lines.line(i));
    if (!parsed.ok) continue;
    const view = transcriptRow(parsed.value, rows.length + 1, lines.lineNumbers[i] as number);
    if (view !== null) rows.push({ view, lower: null });
  }
  return rows;
}

/** rowid ↔ rowid of each `tool_use` and the `tool_result` that answers it (same tool id; the first result after the use). */
function pairToolCalls(rows: readonly Row[]): Map<number, number> {
  const paired = new Map<number, number>();
  const open = new Map<string, number>();
  for (const { view } of rows) {
    if (view.tool_use_id === "") continue;
    const key = `${view.transcript_source}\n${view.tool_use_id}`;
    if (view.entry_type === "tool_use") open.set(key, view.rowid);
    else if (view.entry_type === "tool_result") {
      const use = open.get(key);
      if (use === undefined) continue;
      open.delete(key);
      paired.set(use, view.rowid);
      paired.set(view.rowid, use);
    }
  }
  return paired;
}

/** A `tool_result` row as a run digest reads it: its payload as parsed, its columns only when asked for. */
export interface TranscriptResult {
  readonly parsed: JsonObject | null;
  /** The row's columns (as {@link TranscriptIndex.entry} has them, without pairing and HTML), extracted on this call. */
  row(): Omit<TranscriptEntryView, "paired_rowid" | "content_html">;
}

/** What the run model takes from a transcript: how many `tool_use` rows, and the `tool_result` rows. */
export interface TranscriptCalls {
  readonly rows: number;
  readonly toolUses: number;
  readonly results: readonly TranscriptResult[];
}

/**
 * The transcript's tool calls without its index: the same rows, rowids and origin as
 * {@link TranscriptIndex.build}, but no payload re-serialised as Python JSON (a third of the
 * time of digesting a bundle went there) and no columns extracted but those asked for.
 */
export function transcriptCalls(logs: LogIndex | null, transcriptJsonl: Uint8Array | null): TranscriptCalls {
  const fromLogs = logs === null ? null : callsOf(logs.indexesOfEvent(TRANSCRIPT_EVENT).map((index) => [logs.line(index), logs.lineNumber(index)] as const));
  if (transcriptJsonl === null) return fromLogs ?? { rows: 0, toolUses: 0, results: [] };
  const lines = new JsonLines(transcriptJsonl);
  // A line makes one row at most: logs holding as many rows as the file has lines win unread.
  if (fromLogs !== null && fromLogs.rows >= lines.count) return fromLogs;
  const fromFile = callsOf(Array.from({ length: lines.count }, (_, i) => [lines.line(i), lines.lineNumbers[i] as number] as const));
  return fromLogs !== null && fromLogs.rows >= fromFile.rows ? fromLogs : fromFile;
}

function callsOf(lines: readonly (readonly [string, number])[]): TranscriptCalls {
  let rows = 0;
  let toolUses = 0;
  const results: TranscriptResult[] = [];
  for (const [line, lineNumber] of lines) {
    const record = parseRecord(line);
    if (!record.ok) continue;
    const parts = transcriptRecordParts(record.value);
    if (parts === null) continue;
    rows += 1;
    if (parts.entryType === "tool_use") toolUses += 1;
    else if (parts.entryType === "tool_result") {
      const rowid = rows;
      results.push({ parsed: parts.parsed, row: () => rowOfParts(record.value, parts, rowid, lineNumber) });
    }
  }
  return { rows, toolUses, results };
}
